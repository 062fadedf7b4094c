"""What every transition form shares: the line saying the system refuses writes, shown before any field."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen
from textual.widgets import Static

from harn_tui.tui.text import literal

T = TypeVar("T")


class TransitionForm(ModalScreen[T]):
    """A transition's modal form. `writes_refused` (set by the console as it opens the form) is the system's
    refusal of a write to the tree, shown in words under the title: the decision would not be recorded."""

    writes_refused: str | None = None

    def refusal_line(self) -> Static:
        """The refusal in words, or nothing shown (no line taken) when writes work."""
        text = f"writes are refused: {self.writes_refused}" if self.writes_refused else ""
        line = Static(literal(text), id="writes-refused", classes="form-error")
        line.display = bool(text)
        return line
