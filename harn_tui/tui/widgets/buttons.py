"""Buttons that mirror a key: clickable, never focused (Tab moves between panels; the key is on the label)."""

from __future__ import annotations

from textual.widgets import Button


class KeyButton(Button, can_focus=False):
    """A compact button for the mouse; the keyboard uses the key its label names."""

    def __init__(self, label: str, *, id: str, variant: str = "default") -> None:
        super().__init__(label, id=id, variant=variant, compact=True)  # type: ignore[arg-type]
