"""The Findings panel: active work in review or carrying open findings, with dispositions so far.

The table selects the item; accept (`a`) and reopen (`o`) act on it, as do the buttons below the detail.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from harn_tui.core.console_model import ConsoleModel
from harn_tui.core.console_views import all_findings, dispositions_so_far, review_queue
from harn_tui.core.projection import GoalView, WorkView
from harn_tui.tui.states import state_text
from harn_tui.tui.text import clip, indent, label, lines, literal, literal_text
from harn_tui.tui.widgets.keyed_table import KeyedTable, Row

COLUMNS = (("State", "state"), ("Open findings", "open"), ("Title", "title"), ("Work", "id"))


def review_row(work: WorkView) -> Row:
    return work.id, (state_text(work.state), Text(str(len(work.open_findings))),
                     literal_text(clip(work.title, 48)), literal_text(work.id, "dim"))


def findings_content(model: ConsoleModel, work: WorkView) -> Content:
    events = model.work_events(work.id)
    parts: list[Content] = [Content.assemble(literal(work.title, "bold"), "  ", literal(work.id, "dim")),
                            label("Why", work.reason, "dim")]
    latest = work.latest_attempt
    proof = model.proof(latest.run_id) if latest is not None else None
    if proof is not None:
        parts.append(label("Proof", f"{proof.status}: {proof.summary}"))
        parts += [indent(Content.assemble(("✔ " if c.status == "satisfied" else "✖ ") + c.status + " ",
                                          literal(c.criterion))) for c in proof.acceptance]
    parts.append(Content.styled(f"Open findings ({len(work.open_findings)})", "bold underline"))
    parts += [indent(Content.assemble((f"{f.id} ", "bold"), ("by ", "dim"), literal(f.actor), ": ",
                                      literal(f.statement, multiline=True))) for f in work.open_findings] or [
        indent(Content.styled("none open: accepting needs no dispositions", "dim"))]
    past = dispositions_so_far(events)
    parts.append(Content.styled(f"Dispositions so far ({len(past)})", "bold underline"))
    parts += [indent(Content.assemble(
        (f"{p.disposition.id} {p.disposition.outcome}", "bold"), (" by ", "dim"), literal(p.actor),
        (f" at {p.ts}", "dim"),
        *((": ", literal(p.disposition.reason, multiline=True)) if p.disposition.reason else ()),
    )) for p in past] or [indent(Content.styled("none recorded yet", "dim"))]
    raised = all_findings(events)
    if len(raised) > len(work.open_findings):
        parts.append(Content.styled(f"Every finding raised ({len(raised)})", "bold underline"))
        parts += [indent(Content.assemble((f"{fid} ", "bold"), (f"{ts} ", "dim"), literal(actor), ": ",
                                          literal(statement, multiline=True))) for ts, fid, actor, statement in raised]
    return lines(parts)


class FindingsPanel(Vertical):
    """A keyed table of the review queue above a scrollable detail of the selected item."""

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.border_title = "Findings"
        self.items: dict[str, WorkView] = {}

    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, id="findings-table")
        with VerticalScroll(id="findings-detail"):
            yield Static(literal("nothing is in review"), id="findings-body")
            with Horizontal(classes="card-buttons", id="findings-buttons"):
                yield Button("Accept… · a", id="findings-accept", variant="success", compact=True)
                yield Button("Reopen… · o", id="findings-reopen", compact=True)

    @property
    def table(self) -> KeyedTable:
        return self.query_one("#findings-table", KeyedTable)

    @property
    def selected(self) -> WorkView | None:
        key = self.table.cursor_key
        return self.items.get(key) if key is not None else None

    def show(self, model: ConsoleModel, goal: GoalView | None) -> None:
        queue = review_queue(goal) if goal is not None and goal.state != "corrupt" else []
        self.items = {w.id: w for w in queue}
        self.table.sync([review_row(w) for w in queue])
        self.table.display = bool(queue)
        self.border_subtitle = f"{len(queue)} item(s)" if queue else ""
        self.show_selected(model)

    def show_selected(self, model: ConsoleModel) -> None:
        body = self.query_one("#findings-body", Static)
        work = self.selected
        buttons = self.query_one("#findings-buttons")
        if work is None:
            body.update(literal("nothing is in review and no work carries open findings"))
            buttons.display = False
            return
        body.update(findings_content(model, work))
        buttons.display = True
        self.query_one("#findings-accept", Button).display = work.state == "in_review"
