"""A scrollable read-only view of Textual content that renders only the lines on screen.

The detail panels (item, attention, findings, plan history) show long text that changes on every cursor move
and on live updates. A `Static` inside a scroll container re-wraps and re-renders all of it and relayouts the
screen on each change; this view wraps once per width, renders a line when it is first shown, and on an update
that keeps the scroll position repaints only the lines whose text or style changed.
"""

from __future__ import annotations

import re
from collections import OrderedDict

from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

PREPARED_KEPT = 8
_LIST_MARKER = re.compile(r"(?:[•*-]|\d{1,2}[.)]) ")
HEIGHT_STEP = 8


def wrap(content: Content, width: int) -> list[Content]:
    """`content` as screen lines of at most `width` cells. A wrapped line keeps its indentation (and the text
    after a list marker, `• `, `- `, `1. `, stays aligned), so indented detail reads as a block under its heading
    and a numbered step as one item."""
    lines: list[Content] = []
    for line in content.split("\n", allow_blank=True):
        if line.cell_length <= width:
            lines.append(line)
            continue
        text = line.plain
        hang = len(text) - len(text.lstrip(" "))
        marker = _LIST_MARKER.match(text, hang)
        if marker:
            hang = marker.end()
        if hang == 0 or hang > width // 2:
            lines.extend(line.wrap(width))
            continue
        first, *rest = line[hang:].wrap(width - hang)
        lines.append(line[:hang] + first)
        lines.extend(Content(" " * hang) + part for part in rest)
    return lines


class ContentView(ScrollView, can_focus=True):
    """`update(content)` replaces what is shown; the arrow, page, home and end keys scroll it."""

    DEFAULT_CSS = """
    ContentView {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-gutter: stable;
    }
    """

    def __init__(self, content: Content | None = None, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._content = content if content is not None else Content("")
        self._lines: list[Content] = []
        self._wrapped_at = -1
        self._strips: dict[int, Strip] = {}
        self._prepared: OrderedDict[int, tuple[Content, int, list[Content]]] = OrderedDict()

    @property
    def content(self) -> Content:
        return self._content

    @property
    def text(self) -> str:
        """The plain text shown (for tests and screen readers of the record)."""
        return self._content.plain

    def update(self, content: Content, *, keep_scroll: bool = False) -> None:
        """Show `content`. With `keep_scroll` (a live refresh of the same subject) the scroll position stays and
        only changed lines are repainted; otherwise the view returns to the top."""
        if content.is_same(self._content) and self._wrapped_at == self._width():
            if not keep_scroll:
                self.scroll_to(0, 0, animate=False, immediate=True)
            return
        self._content = content
        old = self._lines
        width = self._width()
        if width <= 0:
            self._wrapped_at = -1
            self._lines, self._strips = [], {}
            return
        self._rewrap(width)
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False, immediate=True)
            self.refresh()
            return
        self._refresh_changed(old)

    def prepare(self, content: Content) -> None:
        """Wrap `content` now (e.g. while idle), so showing it later is quicker; a few are kept."""
        self._wrapped(content, self._width())

    def _wrapped(self, content: Content, width: int) -> list[Content]:
        if width <= 0 or not content.plain:
            return []
        found = self._prepared.get(id(content))
        if found is not None and found[0] is content and found[1] == width:
            return found[2]
        lines = wrap(content, width)
        self._prepared[id(content)] = (content, width, lines)
        while len(self._prepared) > PREPARED_KEPT:
            self._prepared.popitem(last=False)
        return lines

    def _width(self) -> int:
        """The width lines are wrapped at: this view's own, or, while it is hidden (a tab not shown, which has no
        region), the width it will have when shown. Content given to a hidden view is then wrapped and sized at
        once, and the frame that shows the view shows the content too, not an empty view and a second layout."""
        width = self.scrollable_content_region.width
        return width if width > 0 else self._width_when_shown()

    def _width_when_shown(self) -> int:
        """The nearest laid-out ancestor's width, less the borders, padding and scrollbar gutters of this view and
        of the hidden containers between them (the panels stack vertically and take the width they are given)."""
        taken = self.gutter.width
        node = self.parent
        while isinstance(node, Widget):
            width = node.scrollable_content_region.width
            if width > 0:
                return max(width - taken, 0)
            taken += node.gutter.width
            node = node.parent
        return 0

    def _rewrap(self, width: int) -> None:
        self._lines = self._wrapped(self._content, width)
        self._wrapped_at = width
        self._strips = {}
        # the scrollable height moves in steps: a live update adding or removing a line or two then repaints
        # just those lines, where a new height would relayout the screen and repaint the whole panel
        height = -(-len(self._lines) // HEIGHT_STEP) * HEIGHT_STEP
        size = Size(width, height)
        if self.virtual_size != size:
            self.virtual_size = size

    def _refresh_changed(self, old: list[Content]) -> None:
        top = round(self.scroll_y)
        height = self.scrollable_content_region.height
        for index in range(top, top + height):
            before = old[index] if index < len(old) else None
            after = self._lines[index] if index < len(self._lines) else None
            if before is None and after is None:
                break
            if before is None or after is None or not before.is_same(after):
                self.refresh_lines(index)

    def on_resize(self) -> None:
        width = self._width()
        if width > 0 and width != self._wrapped_at:
            self._rewrap(width)
            self.refresh()

    def on_mount(self) -> None:
        super().on_mount()  # type: ignore[no-untyped-call]  # Textual leaves ScrollView.on_mount untyped
        self.on_resize()

    def render_line(self, y: int) -> Strip:
        width = self._width()
        index = round(self.scroll_y) + y
        style = self.visual_style
        if index >= len(self._lines) or width <= 0:
            return Strip.blank(width, style.rich_style)
        strip = self._strips.get(index)
        if strip is None or strip.cell_length != width:
            # Content's own segments over the widget's style: six times cheaper than `Visual.to_strips`, and
            # enough here (no selection, alignment or links in these panels)
            line = self._lines[index]
            strip = Strip(line.render_segments(style), line.cell_length).extend_cell_length(width, style.rich_style)
            self._strips[index] = strip
        return strip
