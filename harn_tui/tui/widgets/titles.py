"""Border titles set only when they change: setting one repaints the whole widget, even to the same text."""

from __future__ import annotations

from textual.widget import Widget


def set_border(widget: Widget, *, title: str | None = None, subtitle: str | None = None) -> None:
    """Set the border title and/or subtitle (None leaves it as it is); an unchanged text costs nothing."""
    if title is not None and widget.border_title != title:
        widget.border_title = title
    if subtitle is not None and (widget.border_subtitle or "") != subtitle:
        widget.border_subtitle = subtitle
