"""State words paired with a glyph and a style: meaning is carried by the word and glyph, colour only helps.

Glyphs are single-width symbols without emoji presentation, so 80-column layouts line up over SSH.
"""

from __future__ import annotations

from rich.text import Text
from textual.content import Content

_GLYPHS: dict[str, tuple[str, str]] = {
    # goal and work states
    "succeeded": ("✔", "green"),
    "running": ("►", "cyan"),
    "ready": ("○", ""),
    "waiting": ("◌", "dim"),
    "in_review": ("◎", "bold yellow"),
    "awaiting_approval": ("◇", "bold yellow"),
    "awaiting_attention": ("⚑", "bold yellow"),
    "blocked": ("✖", "red"),
    "cancelled": ("⊘", "dim"),
    "budget_exhausted": ("∅", "red"),
    "corrupt": ("⌧", "bold red"),
    "missing": ("?", "red"),
    # plan statuses
    "proposed": ("⚑", "bold yellow"),
    "applied": ("✔", "green"),
    "completed": ("★", "green"),
    "rejected": ("✖", "red"),
    "retry_requested": ("↻", "cyan"),
    "attention": ("⚑", "bold yellow"),
    "failed": ("✖", "red"),
    "planning": ("►", "cyan"),
    "interrupted": ("⊘", "dim"),
    # attempt statuses
    "passed": ("✔", "green"),
    "parked": ("◇", "yellow"),
    "lost": ("✖", "red"),
}


def glyph(state: str) -> str:
    return _GLYPHS.get(state, ("·", ""))[0]


def state_style(state: str) -> str:
    return _GLYPHS.get(state, ("·", ""))[1]


def state_text(state: str, style_override: str | None = None) -> Text:
    """`✔ succeeded` as a Rich Text cell."""
    return Text(f"{glyph(state)} {state}", style=state_style(state) if style_override is None else style_override)


def state_content(state: str) -> Content:
    """`✔ succeeded` as Textual content."""
    style = state_style(state)
    return Content.styled(f"{glyph(state)} {state}", style) if style else Content(f"{glyph(state)} {state}")


def check_mark(ok: bool) -> Content:
    """A pass/fail mark that reads without colour: `✔ yes` / `✖ no`."""
    return Content.styled("✔ yes", "green") if ok else Content.styled("✖ no ", "bold red")
