"""The one place the console touches Textual's private attributes (Textual is pinned; see `PRIVATE_ATTRIBUTES`).

Each use buys a repaint or a measurement the public API would do for the whole widget. `PRIVATE_ATTRIBUTES`
lists every one, and a test fails, naming it, when a Textual upgrade removes one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import zip_longest
from typing import Any, cast

from rich.text import Text
from textual.app import App
from textual.content import Content
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.widget import Widget
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey, DuplicateKey, RowKey
from textual.widgets.data_table import Row as TableRow

PRIVATE_ATTRIBUTES: dict[type, tuple[str, ...]] = {
    DataTable: (
        "_data",
        "_update_count",
        "_update_dimensions",
        "_row_locations",
        "_new_rows",
        "_require_update_dimensions",
    ),
    Widget: ("_border_subtitle", "_repaint_required", "_repaint_regions"),
    App: ("_exit", "_closing", "_batch_count"),
    Screen: ("_refresh_layout", "_compositor", "_dirty_widgets"),
}


class MeasuredTable(DataTable[Text]):
    """A DataTable whose subclass measures its own new rows and replaces cells without a whole-table repaint."""

    def measure_rows(self, new_rows: Iterable[RowKey]) -> Iterable[RowKey]:
        """Widen columns for `new_rows` and return the rows DataTable must still measure (here: all of them)."""
        return new_rows

    def row_cells(self, row_key: RowKey) -> Mapping[ColumnKey, Text] | None:
        """The cells of a row, None once the row is gone."""
        return self._data.get(row_key)

    def add_rows_at_once(self, rows: Sequence[tuple[str, Sequence[Text]]]) -> None:
        """Append `rows` as `add_row` would, one line high and unlabelled, in one step.

        `add_row` re-assigns the cursor (a reactive, with its validators and watchers) and checks for idle once
        per row: about 0.4 ms a row, 400 ms for a goal history of a thousand entries. Every row but the last is
        entered into the table's maps directly, as `add_row` enters it; the last goes through `add_row`, which
        does the once-per-change part (dimensions, cursor, highlight, idle) for all of them."""
        columns = self.ordered_columns
        for key, cells in rows[:-1]:
            row_key = RowKey(key)
            if row_key in self._row_locations:
                raise DuplicateKey(f"The row key {row_key!r} already exists.")
            self._row_locations[row_key] = self.row_count
            self._data[row_key] = {column.key: cell for column, cell in zip_longest(columns, cells)}
            self.rows[row_key] = TableRow(row_key, 1, None, False)
            self._new_rows.add(row_key)
        if rows:
            key, cells = rows[-1]
            self.add_row(*cells, key=key)

    def replace_in_row(self, key: str, cells: Mapping[str, Text]) -> None:
        """Replace cells in place, invalidate the render caches (keyed by the update count) and repaint only
        that row: `update_cell` repaints the whole table and re-measures it on idle."""
        row = self._data[RowKey(key)]
        for column, cell in cells.items():
            row[ColumnKey(column)] = cell
        self._update_count += 1
        self.refresh_row(self.get_row_index(key))

    def settle_dimensions(self) -> None:
        """Measure the rows added since the last measurement now, as DataTable does on idle: the table's
        scrollable size (and an auto-height table's height) is then right in the first frame after a change,
        which is laid out once instead of once with the old size and again after the idle."""
        if self._require_update_dimensions:
            self._require_update_dimensions = False
            new_rows = set(self._new_rows)
            self._new_rows.clear()
            self._update_dimensions(new_rows)

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        super()._update_dimensions(self.measure_rows(new_rows))


def set_subtitle_row(widget: Widget, subtitle: str) -> None:
    """Set the bottom border's text, repainting that one line (the `border_subtitle` setter repaints the whole
    widget); the setter when the widget is not laid out yet or the attribute is gone."""
    if not widget.is_mounted or not hasattr(widget, "_border_subtitle") or widget.outer_size.height < 2:
        widget.border_subtitle = subtitle
        return
    widget._border_subtitle = widget.render_str(subtitle).expand_tabs(4).split()[0]
    offset = widget.content_offset
    outer = widget.outer_size
    widget.refresh(Region(-offset.x, outer.height - 1 - offset.y, outer.width, 1))


def app_closing(app: App[Any]) -> bool:
    """True once the app has begun to exit or close (Textual has no public flag for either)."""
    return bool(app._exit or app._closing)


def palette_help(content: Content) -> str:
    """A palette hit's help as Content: Textual renders it through `Content.from_markup`, which takes Content
    as it is (so untrusted text is not read as markup), though its signature says `str`."""
    return cast(str, content)


class OnePassScreen(Screen[None]):
    """A screen whose layout pass leaves no frame behind for the scrollbars: it paints them itself.

    A layout pass resizes every widget whose geometry changed and, for a scrollable one, sets its scrollbars'
    sizes and asks them to repaint; a focus change restyles the scrollbars of the panels it concerns. Those
    requests were served a frame after the pass (about 2 KB, 20-40 ms later under load), although the pass had
    painted the scrollbars of every resized widget already. Here the scrollbars waiting to repaint are painted
    by the pass, and what the pass asks of them is dropped once it has painted: a scrollbar the pass shows or
    hides is laid out and painted again by the next pass anyway.
    """

    def _scrollbars(self) -> list[ScrollBar]:
        return [widget for widget in self._compositor.full_map if isinstance(widget, ScrollBar)]

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        paints = self.is_current and not self.app._batch_count and bool(size or self.outer_size)
        if paints:
            self._dirty_widgets.update(bar for bar in self._scrollbars() if bar._repaint_required)
        super()._refresh_layout(size, scroll)
        if paints:
            for bar in self._scrollbars():
                bar._repaint_required = False
                bar._repaint_regions.clear()
