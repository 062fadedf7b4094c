"""The Goal graph panel: the active generation as a DAG (shared dependencies marked), superseded ones dimmed."""

from __future__ import annotations

from rich.text import Text

from harn_tui.console.graph import GraphRow, graph_rows
from harn_tui.console.views import is_standalone
from harn_tui.core.projection import GoalView
from harn_tui.tui.states import glyph, state_style
from harn_tui.tui.text import clip, literal_text, under_root, visible
from harn_tui.tui.widgets.keyed_table import KeyedTable, Row, Widths, column_widths
from harn_tui.tui.widgets.titles import set_border

COLUMNS = (("Work · dependencies indented below", "tree"), ("Attempts", "attempts"), ("Id", "id"))


def _tree_cell(row: GraphRow) -> Text:
    dim = "" if row.active else "dim"
    if row.kind == "heading":
        return Text(row.text, style="bold underline" if row.active else "dim underline")
    if row.kind == "note":
        return Text(row.text, style="italic")
    cell = Text(row.prefix, style="dim")
    if row.kind == "shared":
        cell.append("↗ shared: ", style=dim or "italic")
        cell.append(visible(row.work_id or ""), style=dim or "italic")
        cell.append(" (shown above)", style="dim")
        return cell
    state = row.view.state if row.view is not None else "missing"
    cell.append(f"{glyph(state)} {state}", style=dim or state_style(state))
    if row.is_root:
        cell.append(" ◆root", style=dim or "bold")
    cell.append("  ")
    cell.append(visible(clip(row.text, 60)), style=dim or ("bold" if row.is_root else ""))
    return cell


def graph_row(row: GraphRow) -> Row:
    dim = "" if row.active else "dim"
    if row.kind in ("heading", "note"):
        return row.key, (_tree_cell(row), Text(""), Text(""))
    view = row.view
    attempts = f"{view.charged_attempts}/{view.max_attempts}" if view is not None else "—"
    return row.key, (
        _tree_cell(row),
        Text(attempts if row.kind == "item" else "", style=dim),
        literal_text(row.work_id or "", "dim"),
    )


class GraphPanel(KeyedTable):
    """Rows keyed by graph position; `work_id_at_cursor` is what the item detail and work actions address."""

    def __init__(self, root: str, **kwargs: object) -> None:
        super().__init__(COLUMNS, **kwargs)
        self.root = root
        set_border(self, title="Goal graph")
        self.goal_id: str | None = None
        self.layout_rows: dict[str, GraphRow] = {}
        self._prepared: tuple[GoalView, list[GraphRow], list[Row], Widths] | None = None

    def _rows(self, goal: GoalView | None) -> tuple[list[GraphRow], list[Row], Widths | None]:
        if self._prepared is not None and goal is not None and self._prepared[0] is goal:
            return self._prepared[1], self._prepared[2], self._prepared[3]
        rows = graph_rows(goal) if goal is not None and goal.state != "corrupt" else []
        if goal is not None and goal.state == "corrupt":
            why = under_root(goal.reason, self.root)
            rows = [GraphRow("note:corrupt", "note", f"goal {goal.id} is corrupt: {why}")]
        return rows, [graph_row(row) for row in rows], None

    def prepare(self, goal: GoalView) -> None:
        """Build and measure the rows of `goal` ahead (the goal `n` goes to next), so showing it then only fills
        the table; kept while that goal's view is the one shown (a live update replaces the view)."""
        rows, cells, widths = self._rows(goal)
        self._prepared = (goal, rows, cells, widths if widths is not None else column_widths(cells))

    def show(self, goal: GoalView | None, *, prefer_work: str | None = None) -> None:
        rows, cells, widths = self._rows(goal)
        changed_goal = goal is None or goal.id != self.goal_id
        self.goal_id = goal.id if goal is not None else None
        self.layout_rows = {row.key: row for row in rows}
        prefer = f"item:{prefer_work}" if prefer_work else None
        if changed_goal and prefer is None:
            prefer = next((r.key for r in rows if r.kind == "item"), None)
        self.sync(cells, prefer=prefer, widths=widths)
        if is_standalone(goal):
            set_border(self, subtitle="work that belongs to no goal, waiting for a human")
        elif goal is not None and goal.state != "corrupt":
            superseded = sum(1 for w in goal.work if not w.active)
            set_border(
                self,
                subtitle=f"generation {goal.generation} · {len(goal.active_ids)} active"
                + (f" · {superseded} superseded (dimmed, below)" if superseded else ""),
            )
        else:
            set_border(self, subtitle="")

    @property
    def selected_row(self) -> GraphRow | None:
        key = self.cursor_key
        return self.layout_rows.get(key) if key is not None else None

    @property
    def work_id_at_cursor(self) -> str | None:
        row = self.selected_row
        return row.work_id if row is not None else None

    def neighbour_work_ids(self) -> list[str]:
        """The work items one move of the cursor away (the next row down first), to build their detail ahead."""
        found: list[str] = []
        if not self._order:
            return found
        here = min(max(self.cursor_row, 0), len(self._order) - 1)
        for index in (here + 1, here - 1):
            if 0 <= index < len(self._order):
                row = self.layout_rows.get(self._order[index])
                if row is not None and row.work_id and row.work_id not in found:
                    found.append(row.work_id)
        return found
