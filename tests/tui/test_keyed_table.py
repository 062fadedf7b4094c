"""The keyed table sizes its columns as DataTable would, without measuring each cell through the console."""

from __future__ import annotations

import pytest
from rich.text import Text
from textual.app import App, ComposeResult
from textual.widgets import DataTable

from harn_tui.tui.widgets.keyed_table import KeyedTable, column_widths

COLUMNS = (("State", "state"), ("Title", "title"), ("Why", "why"))
ROWS = [
    ("a", (Text("ready"), Text("short"), Text(""))),
    ("b", (Text("in_review", style="bold"), Text("宽字符的标题 ✔ wide"), Text("line one\nand a longer line two"))),
    ("c", (Text("corrupt"), Text("x" * 70), Text("🙂 emoji and combining é"))),
]


class Tables(App[None]):
    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, id="keyed")
        yield DataTable(id="plain")

    def on_mount(self) -> None:
        plain = self.query_one("#plain", DataTable)
        for label, key in COLUMNS:
            plain.add_column(Text(label), key=key)


@pytest.mark.anyio
async def test_columns_are_as_wide_as_datatable_measures_them() -> None:
    app = Tables()
    async with app.run_test(size=(160, 30)) as pilot:
        keyed, plain = app.query_one("#keyed", KeyedTable), app.query_one("#plain", DataTable)
        keyed.sync(ROWS)
        for key, cells in ROWS:
            plain.add_row(*cells, key=key)
        await pilot.pause()
        widths = {key: column.content_width for key, column in keyed.columns.items()}
        assert widths == {key: column.content_width for key, column in plain.columns.items()}
        assert widths[next(iter(widths))] == len("in_review") and max(widths.values()) == 70
        assert keyed.virtual_size == plain.virtual_size

        wider = [
            (key, (Text("waiting"), cells[1], Text("a reason longer than every other one so far")))
            for key, cells in ROWS[:2]
        ]
        keyed.sync(wider)  # different keys: rebuilt, the new rows measured again
        plain.clear()
        for key, cells in wider:
            plain.add_row(*cells, key=key)
        await pilot.pause()
        assert {k: c.content_width for k, c in keyed.columns.items()} == {
            k: c.content_width for k, c in plain.columns.items()
        }


@pytest.mark.anyio
async def test_rows_measured_ahead_size_the_columns_as_measuring_them_then() -> None:
    """The graph of the goal `n` goes to next is measured while the operator reads: the columns come out as they
    would have, and a later live update of one of those rows still changes only that row."""
    measured, ahead = Tables(), Tables()
    async with measured.run_test(size=(160, 30)), ahead.run_test(size=(160, 30)) as pilot:
        now, early = measured.query_one("#keyed", KeyedTable), ahead.query_one("#keyed", KeyedTable)
        now.sync(ROWS)
        early.sync(ROWS, widths=column_widths(ROWS))
        await pilot.pause()
        assert [c.content_width for c in early.columns.values()] == [c.content_width for c in now.columns.values()]
        assert early.virtual_size == now.virtual_size
        changed = [ROWS[0], ("b", (Text("accepted"), *ROWS[1][1][1:])), ROWS[2]]
        early.sync(changed)
        assert early.get_cell("b", "state").plain == "accepted" and early.get_cell("a", "title").plain == "short"


@pytest.mark.anyio
async def test_new_rows_are_sized_at_once_and_a_fresh_sync_replaces_every_row() -> None:
    app = Tables()
    async with app.run_test(size=(160, 30)) as pilot:
        keyed = app.query_one("#keyed", KeyedTable)
        keyed.sync(ROWS[:1])
        await pilot.pause()
        keyed.sync(ROWS)
        assert keyed.virtual_size.height == len(ROWS) + 1, "sized in the same step, not on the next idle"
        assert keyed.columns[next(iter(keyed.columns))].content_width == len("in_review")

        other = [(key, (Text("succeeded"), Text(f"another goal's {key}"), Text(""))) for key, _ in ROWS]
        keyed.sync(other, prefer="c", fresh=True)  # the same keys (positions) of another subject
        await pilot.pause()
        assert [keyed.get_row(key)[1].plain for key, _ in other] == [f"another goal's {key}" for key, _ in ROWS]
        assert keyed.cursor_key == "c"
