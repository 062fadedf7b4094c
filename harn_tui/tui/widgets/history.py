"""The History tab: the selected goal's history, one entry a row, the later events of a run under its attempt.

`enter` on a row shows the goal as it stood right after that entry (see the main screen's past view).
"""

from __future__ import annotations

from rich.text import Text

from harn_tui.console.history import HistoryRow, history_rows
from harn_tui.core.history import GoalOverTime
from harn_tui.tui.text import literal_text, under_root
from harn_tui.tui.widgets.keyed_table import KeyedTable, Row
from harn_tui.tui.widgets.titles import set_border

COLUMNS = (("Time", "ts"), ("Actor", "actor"), ("Event", "event"), ("Summary", "summary"))


def _time(ts: str) -> str:
    """`HH:MM:SS` of a UTC timestamp: narrow enough for 80 columns (the full instant heads the past view)."""
    return ts[11:19] if len(ts) >= 19 else ts


def history_row(row: HistoryRow, root: str) -> Row:
    entry = row.entry
    damaged = entry.damaged
    branch = ("└ " if row.last else "├ ") if row.child else ""
    event = Text(branch, style="dim")
    event.append(entry.event, style="bold red" if damaged else "bold" if not row.child else "")
    return row.key, (
        Text(_time(entry.ts), style="dim"),
        literal_text(entry.actor or "—", "dim" if entry.actor in (None, "supervisor") else "bold"),
        event,
        literal_text(under_root(entry.summary, root), "red" if damaged else ""),
    )


class HistoryPanel(KeyedTable):
    """Rows keyed by history position; a live refresh keeps the cursor on its entry."""

    def __init__(self, root: str, **kwargs: object) -> None:
        super().__init__(COLUMNS, **kwargs)
        self.root = root
        self.goal_id: str | None = None
        set_border(self, title="History")

    def show(self, over: GoalOverTime | None) -> None:
        if over is None:
            self.goal_id = None
            self.sync([])
            set_border(self, subtitle="no history: no goal with a readable goal.json is selected")
            return
        changed = over.live.id != self.goal_id
        self.goal_id = over.live.id
        rows = history_rows(over.history.entries)
        self.sync(
            [history_row(row, self.root) for row in rows],
            prefer=rows[-1].key if changed and rows else None,
            fresh=changed,
        )
        damaged = sum(1 for entry in over.history.entries if entry.damaged)
        set_border(
            self,
            subtitle=f"{len(over.history)} entries · enter: the goal as it stood then"
            + (f" · {damaged} damaged" if damaged else ""),
        )

    @property
    def position_at_cursor(self) -> int | None:
        key = self.cursor_key
        return int(key.split(":", 1)[1]) if key is not None else None
