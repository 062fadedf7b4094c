"""Panel border titles: set only when they change, and marked while the panel holds the focus.

Setting a border title repaints the whole widget, even to the same text, so titles are compared first. The
focused panel's title starts with `FOCUS_MARK` (and its border is heavy, see the stylesheet): which panel the
keys act on is visible without colour, in a tmux capture or a monochrome terminal.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from textual.widget import Widget

from harn_tui.tui.textual_compat import set_subtitle_row

FOCUS_MARK = "▶ "
_titles: WeakKeyDictionary[Widget, tuple[str, bool]] = WeakKeyDictionary()


def set_border(widget: Widget, *, title: str | None = None, subtitle: str | None = None) -> None:
    """Set the border title and/or subtitle (None leaves it as it is); an unchanged text costs nothing."""
    if title is not None:
        _, focused = _titles.get(widget, ("", False))
        _titles[widget] = (title, focused)
        _apply(widget)
    if subtitle is not None and (widget.border_subtitle or "") != subtitle:
        set_subtitle_row(widget, subtitle)


def mark_focus(widget: Widget, focused: bool) -> None:
    """Mark (or unmark) `widget` as the panel holding the focus."""
    title, was = _titles.get(widget, (widget.border_title or "", False))
    if was != focused:
        _titles[widget] = (title, focused)
        _apply(widget)


def _apply(widget: Widget) -> None:
    title, focused = _titles[widget]
    shown = FOCUS_MARK + title if focused else title
    if widget.border_title != shown:
        widget.border_title = shown
