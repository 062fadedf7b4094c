"""The Goals panel: every goal with its state word and glyph, next action, budgets used/left, and why."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.text import Text

from harn_tui.console.kept import KeptRow, budget_cells
from harn_tui.console.views import is_standalone
from harn_tui.core.projection import GoalView
from harn_tui.tui.states import glyph, state_text
from harn_tui.tui.text import clip, literal_text, under_root
from harn_tui.tui.widgets.keyed_table import KeyedTable, Row
from harn_tui.tui.widgets.titles import set_border

UNREAD_MARK = "…"  # the state cell of a goal not read yet, with nothing kept of it

COLUMNS = (
    ("State", "state"),
    ("Next", "next"),
    ("Title", "title"),
    ("Attempts used/left", "attempts"),
    ("Replans used/left", "replans"),
    ("Goal", "id"),
    ("Why", "why"),
)


def goal_row(goal: GoalView, root: str) -> Row:
    if is_standalone(goal):
        return goal.id, (
            state_text(goal.state),
            Text(goal.next_action, style="bold"),
            literal_text(goal.title, "bold"),
            Text("—"),
            Text("—"),
            literal_text("no goal", "dim"),
            literal_text(clip(goal.reason, 160)),
        )
    corrupt = goal.state == "corrupt"
    attempts, replans = budget_cells(goal)
    return goal.id, (
        state_text(goal.state),
        Text(goal.next_action, style="bold" if goal.needs_human else ""),
        literal_text(clip(goal.title, 40), "bold" if goal.needs_human else ""),
        Text(attempts),
        Text(replans),
        literal_text(goal.id, "dim"),
        literal_text(clip(under_root(goal.reason, root), 160), "bold red" if corrupt else ""),
    )


def kept_goal_row(row: KeptRow, root: str) -> Row:
    """A row as the last console saw it (the goal is not read yet): `~` before its state, all of it dim. A row of
    an unread goal with nothing kept: `…` and its title, nothing more."""
    if row.state is None:
        blank = Text("")
        return row.id, (
            Text(f"{UNREAD_MARK} not read yet", style="dim"),
            blank,
            literal_text(clip(row.title, 40), "dim"),
            blank,
            blank,
            literal_text(row.id, "dim"),
            blank,
        )
    return row.id, (
        Text(f"~{glyph(row.state)} {row.state}", style="dim"),
        Text(row.next_action or "", style="dim"),
        literal_text(clip(row.title, 40), "dim"),
        Text(row.attempts, style="dim"),
        Text(row.replans, style="dim"),
        literal_text(row.id, "dim"),
        literal_text(clip(under_root(row.reason, root), 160), "dim"),
    )


class GoalsPanel(KeyedTable):
    """Rows keyed by goal id; a corrupt goal is a row with its reason, never an exception."""

    def __init__(self, root: str, **kwargs: object) -> None:
        super().__init__(COLUMNS, **kwargs)
        self.root = root
        set_border(self, title="Goals")

    def show(
        self,
        goals: Sequence[GoalView],
        *,
        prefer: str | None = None,
        of: Sequence[GoalView] | None = None,
        filter_text: str = "",
        quiet_hidden: bool = False,
        kept: Mapping[str, KeptRow] | None = None,
    ) -> None:
        """Show `goals`, the ones of all the goals (`of`) that the filter and the quiet toggle leave; a goal in
        `kept` is not read yet and shows its kept row."""
        kept = kept or {}
        self.sync(
            [
                kept_goal_row(kept[goal.id], self.root) if goal.id in kept else goal_row(goal, self.root)
                for goal in goals
            ],
            prefer=prefer,
        )
        every = goals if of is None else of
        real = [goal for goal in every if not is_standalone(goal)]
        if not every:
            set_border(self, subtitle="no goals yet: create one with `harn supervisor create`")
            return
        waiting = sum(1 for goal in real if goal.needs_human)
        subtitle = (
            f"{len(real)} goal{'' if len(real) == 1 else 's'} · {waiting} need{'s' if waiting == 1 else ''} a human"
        )
        standalone = next((goal for goal in every if is_standalone(goal)), None)
        if standalone is not None:
            subtitle += f" · {len(standalone.work)} standalone item{'' if len(standalone.work) == 1 else 's'} too"
        unread = sum(1 for row in kept.values() if row.state is None)
        if len(kept) > unread:
            subtitle += f" · {len(kept) - unread} as last seen (~), reading"
        if unread:
            subtitle += f" · {unread} not read yet ({UNREAD_MARK}), reading"
        if filter_text or quiet_hidden:
            why = [f"/{filter_text}" if filter_text else "", "quiet hidden (h)" if quiet_hidden else ""]
            subtitle = f"showing {len(goals)} · {' · '.join(w for w in why if w)} · " + subtitle
        set_border(self, subtitle=subtitle)
