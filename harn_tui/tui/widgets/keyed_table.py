"""A DataTable updated in place by row key: changed cells only, the cursor follows its row, scroll kept."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.coordinate import Coordinate
from textual.widgets.data_table import ColumnKey, RowKey

from harn_tui.tui.textual_compat import MeasuredTable

Row = tuple[str, Sequence[Text]]
Widths = tuple[int, ...]


def text_width(cell: Text) -> int:
    """The cells a Text needs unwrapped: its longest line (Rich's `Measurement.maximum` of a Text)."""
    return max((cell_len(line) for line in cell.plain.splitlines()), default=0)


def _signature(cells: Sequence[Text]) -> tuple[tuple[str, str], ...]:
    return tuple((cell.plain, str(cell.style)) for cell in cells)


def column_widths(rows: Sequence[Row]) -> Widths:
    """The widest cell of each column of `rows`: what the table measures when they are added (`sync` takes it
    from a caller that measured them ahead)."""
    widths = [0] * max((len(cells) for _, cells in rows), default=0)
    for _, cells in rows:
        for index, cell in enumerate(cells):
            widths[index] = max(widths[index], text_width(cell))
    return tuple(widths)


class KeyedTable(MeasuredTable):
    """Rows are (key, cells). `sync` never clears unless the row order changed, and then restores the cursor
    to the same key and the scroll offset, so a live refresh does not move what the operator looks at.

    `cursor_moved`, when set, is called as soon as the cursor moves (before `RowHighlighted` has travelled up
    to the screen), so what depends on the cursor is updated in the same frame as the cursor itself."""

    def __init__(self, columns: Sequence[tuple[str, str]], **kwargs: object) -> None:
        super().__init__(cursor_type="row", zebra_stripes=False, **kwargs)  # type: ignore[arg-type]
        self._column_spec = list(columns)
        self._order: list[str] = []
        self._signatures: dict[str, tuple[tuple[str, str], ...]] = {}
        self.cursor_moved: Callable[[KeyedTable], None] | None = None
        self._syncing = False
        self._widths_ahead: Widths | None = None

    def watch_cursor_coordinate(self, old_coordinate: Coordinate, new_coordinate: Coordinate) -> None:
        super().watch_cursor_coordinate(old_coordinate, new_coordinate)
        if old_coordinate != new_coordinate and self.cursor_moved is not None and not self._syncing:
            self.cursor_moved(self)

    def on_mount(self) -> None:
        for label, key in self._column_spec:
            self.add_column(Text(label), key=key)

    @property
    def cursor_key(self) -> str | None:
        if not self._order or self.row_count == 0:
            return None
        row = min(max(self.cursor_row, 0), self.row_count - 1)
        return self._order[row]

    def sync(
        self, rows: Sequence[Row], *, prefer: str | None = None, fresh: bool = False, widths: Widths | None = None
    ) -> None:
        """Show exactly `rows`. The cursor stays on its key (or moves to `prefer` if given and present).

        `fresh` says the rows are another subject's (another goal's history, keyed by position like the last):
        the table is rebuilt in one step rather than compared cell by cell, which for a thousand changed rows
        costs a repaint and a re-measure per cell. `widths`, `column_widths(rows)` measured ahead, spares the
        measuring of the rows if the table is rebuilt."""
        keys = [key for key, _ in rows]
        keep = prefer if prefer in keys else self.cursor_key
        self._syncing = True  # the caller refreshes what depends on the cursor after a sync
        try:
            if keys == self._order and not fresh:
                self._update_cells(rows)
            else:
                self._rebuild(rows, widths)
            if keep is not None and keep in keys and self.cursor_key != keep:
                self.move_cursor(row=keys.index(keep), animate=False, scroll=True)
        finally:
            self._syncing = False

    def _update_cells(self, rows: Sequence[Row]) -> None:
        column_keys = [key for _, key in self._column_spec]
        for key, cells in rows:
            signature = _signature(cells)
            old = self._signatures.get(key)
            if old is None:  # not compared since the table was rebuilt: the cells it holds
                shown = self.row_cells(RowKey(key))
                old = _signature(list(shown.values())) if shown is not None else None
            if old == signature:
                continue
            changed = {
                column_keys[index]: cell
                for index, cell in enumerate(cells)
                if old is None or index >= len(old) or old[index] != signature[index]
            }
            if all(cell.cell_len <= self.columns[ColumnKey(column)].content_width for column, cell in changed.items()):
                self.replace_in_row(key, changed)
            else:
                for column, cell in changed.items():
                    self.update_cell(key, column, cell, update_width=True)
            self._signatures[key] = signature

    def _rebuild(self, rows: Sequence[Row], widths: Widths | None = None) -> None:
        scroll = self.scroll_offset
        self.clear(columns=False)
        self._signatures = {}
        self.add_rows_at_once(rows)
        self._order = [key for key, _ in rows]
        self._widths_ahead = widths
        try:
            self.settle_dimensions()
        finally:
            self._widths_ahead = None
        self.scroll_to(scroll.x, scroll.y, animate=False, immediate=True)

    def measure_rows(self, new_rows: Iterable[RowKey]) -> Iterable[RowKey]:
        """Widen the columns for new rows from each cell's width; DataTable then measures none of them.

        DataTable measures every cell of a new row through the console (a fresh `ConsoleOptions` per cell, about
        8 µs): 1,400 cells and 25 ms of the first frame for the goal list of a 200-goal tree. Every cell here is a
        `Text` and every row one line high (no labels, no auto height), so a cell's width is its longest line's
        cell length, which is what Rich measures for a Text."""
        if self._widths_ahead is not None:  # the rows of a rebuild, measured ahead
            for ordered, width in zip(self.ordered_columns, self._widths_ahead, strict=False):
                ordered.content_width = max(ordered.content_width, width)
            return ()
        for row_key in new_rows:
            cells = self.row_cells(row_key)
            if cells is None:  # removed before the idle that measures it
                continue
            for column_key, cell in cells.items():
                column = self.columns.get(column_key)
                if column is not None:
                    column.content_width = max(column.content_width, text_width(cell))
        return ()

    def select_key(self, key: str) -> bool:
        if key not in self._order:
            return False
        self.move_cursor(row=self._order.index(key), animate=False, scroll=True)
        return True
