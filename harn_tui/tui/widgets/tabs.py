"""The tab line over the right-hand panels: each panel's key and name, the one shown bracketed and reversed.

A plain line rather than Textual's Tabs: which panel is shown reads without colour (tmux captures, 16-colour
and monochrome terminals), the keys that switch panels are on screen, and switching is one repaint of this
line with no animation and no activation messages that could arrive after a later switch.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

TABS = (
    ("attention", "3", "Attention"),
    ("plans", "4", "Plans"),
    ("findings", "5", "Findings"),
    ("item", "6", "Item"),
    ("history", "7", "History"),
)
GAP = "  "


class TabLine(Static):
    DEFAULT_CSS = """
    TabLine {
        height: 1;
        width: 1fr;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    class Chosen(Message):
        """A tab was clicked."""

        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self, active: str = "attention", **kwargs: Any) -> None:
        super().__init__("", **kwargs)
        self.active = active
        self._spans: list[tuple[int, int, str]] = []

    def show_active(self, active: str) -> None:
        if active == self.active:
            return
        self.active = active
        self._render_tabs()

    def on_resize(self) -> None:
        self._render_tabs()

    def _render_tabs(self) -> None:
        """Every tab's key and name; when that does not fit, only the keys of the tabs not shown."""
        for short in (False, True):
            parts: list[Content] = []
            spans: list[tuple[int, int, str]] = []
            x = 0
            for name, key, label in TABS:
                if name == self.active:
                    part = Content.styled(f"[{key} {label}]", "bold reverse")
                else:
                    part = Content.assemble((f" {key}", "bold"), " " if short else f" {label} ")
                spans.append((x, x + part.cell_length, name))
                parts.append(part)
                x += part.cell_length + len(GAP)
            line = Content(GAP).join(parts)
            if line.cell_length <= self.size.width or short or not self.size.width:
                break
        self._spans = spans
        self.update(line, layout=False)

    def on_click(self, event: events.Click) -> None:
        for start, end, name in self._spans:
            if start <= event.x < end:
                self.post_message(self.Chosen(name))
                return
