"""The footer: the keys legal for the focused item, as one line of text redrawn only when they change.

Textual's Footer rebuilds a widget per key whenever the bindings are refreshed (a relayout of the screen);
the console refreshes bindings on every selection and live update, and the legal keys change with the
cursor, so this footer is a single line updated in place, in the same frame as the move that changed it.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from harn_tui.tui.textual_compat import paint_in_next_frame

PALETTE = Binding("ctrl+p", "command_palette", "palette")


class KeysFooter(Static):
    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        width: 1fr;
        background: $footer-background;
        color: $footer-foreground;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    def __init__(self) -> None:
        super().__init__("", id="footer")
        self._shown: tuple[tuple[str, str, bool], ...] | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed, immediate=True)
        self.bindings_changed(self.screen)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def keys(self) -> tuple[tuple[str, str, bool], ...]:
        """(key as shown, description, enabled) of every binding the footer lists, one per action."""
        shown: dict[str, tuple[str, str, bool]] = {}
        for active in self.screen.active_bindings.values():
            binding = active.binding
            if not binding.show or binding.action in shown:
                continue
            shown[binding.action] = (self.app.get_key_display(binding), binding.description, active.enabled)
        return tuple(shown.values())

    def bindings_changed(self, screen: Screen[object]) -> None:
        if screen is not self.screen or not self.is_attached:
            return
        keys = self.keys()
        if keys == self._shown:
            return
        self._shown = keys
        parts = [
            Content.assemble(
                (f" {key} ", "bold reverse" if enabled else "dim reverse"), (description, "" if enabled else "dim")
            )
            for key, description, enabled in keys
        ]
        palette = Content.assemble("│", (f" {self.app.get_key_display(PALETTE)} ", "bold reverse"), "palette")
        width = max(self.size.width, 1)
        line = Content(" ").join(parts)
        room = width - palette.cell_length - 1
        if line.cell_length > room:
            line = line.truncate(max(room - 1, 0), ellipsis=True)
        self.update(line + Content(" " * max(room - line.cell_length + 1, 1)) + palette, layout=False)
        paint_in_next_frame(self)

    def on_resize(self) -> None:
        self._shown = None
        self.bindings_changed(self.screen)
