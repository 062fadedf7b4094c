"""A read-only view of a unified diff: one screen line per diff line, scrolled both ways, rendered literally.

A diff is untrusted text: markup stays characters and control characters show as pictures (`text.visible`);
tabs are expanded to spaces first, since a tab is layout in a diff, not an escape. Lines are not wrapped, so the
diff's own first column (`+`, `-`, space) starts every screen line and tells added from removed lines without
colour; colour only adds to it. Only the lines on screen are built and rendered, so a long diff costs the
screen what it shows.
"""

from __future__ import annotations

from rich.cells import cell_len
from textual.content import Content
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from harn_tui.console.workspaces import DiffLineKind, diff_line_kinds
from harn_tui.tui.text import visible

TAB_SIZE = 4
MAX_LINES = 20_000
STYLES: dict[DiffLineKind, str] = {"file": "bold", "hunk": "cyan", "added": "green", "removed": "red", "context": ""}


def shown_lines(diff: str, more_hint: str) -> tuple[list[str], list[DiffLineKind]]:
    """The diff's lines as the view shows them (tabs expanded, controls made visible) with their kinds; past
    `MAX_LINES` one last line says how many more there are and `more_hint` where to read them."""
    raw = diff.splitlines()
    kinds = diff_line_kinds(raw[:MAX_LINES])
    lines = [visible(line.expandtabs(TAB_SIZE)) for line in raw[:MAX_LINES]]
    if len(raw) > MAX_LINES:
        lines.append(f"… {len(raw) - MAX_LINES} more lines not shown: {more_hint}")
        kinds.append("file")
    return lines, kinds


class DiffView(ScrollView, can_focus=True):
    """`show(lines, kinds)` replaces the diff shown and returns to its top; arrows, page keys, home and end
    scroll it, left and right sideways."""

    DEFAULT_CSS = """
    DiffView {
        height: 1fr;
        overflow-x: auto;
        overflow-y: auto;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.lines: list[str] = []
        self._kinds: list[DiffLineKind] = []
        self._strips: dict[int, Strip] = {}

    @property
    def text(self) -> str:
        """The text shown, one line per diff line (for tests and the record)."""
        return "\n".join(self.lines)

    def show(self, lines: list[str], kinds: list[DiffLineKind]) -> None:
        self.lines, self._kinds, self._strips = lines, kinds, {}
        width = max((cell_len(line) for line in lines), default=0)
        self.virtual_size = Size(width, len(lines))
        self.scroll_to(0, 0, animate=False, immediate=True)
        self.refresh()

    def _strip(self, index: int) -> Strip:
        strip = self._strips.get(index)
        if strip is None:
            text, style = self.lines[index], STYLES[self._kinds[index]]
            line = Content.styled(text, style) if style else Content(text)
            strip = Strip(line.render_segments(self.visual_style), line.cell_length)
            self._strips[index] = strip
        return strip

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = round(self.scroll_y) + y
        style = self.visual_style.rich_style
        if index >= len(self.lines) or width <= 0:
            return Strip.blank(width, style)
        left = round(self.scroll_x)
        return self._strip(index).crop_extend(left, left + width, style)
