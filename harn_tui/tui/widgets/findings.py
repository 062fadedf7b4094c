"""The Findings panel: active work in review or carrying open findings, with dispositions so far.

The table selects the item; accept (`a`) and reopen (`o`) act on it, as do the buttons below the detail.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button

from harn_tui.console.model import ConsoleModel
from harn_tui.console.views import all_findings, dispositions_so_far, review_queue
from harn_tui.core.projection import GoalView, WorkView
from harn_tui.tui.states import state_text
from harn_tui.tui.text import clip, indent, label, lines, literal, literal_text
from harn_tui.tui.widgets.buttons import KeyButton
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.keyed_table import KeyedTable, Row
from harn_tui.tui.widgets.titles import set_border

COLUMNS = (("State", "state"), ("Open", "open"), ("Work", "id"), ("Title", "title"))


def review_row(work: WorkView) -> Row:
    return work.id, (
        state_text(work.state),
        Text(str(len(work.open_findings))),
        literal_text(work.id, "dim"),
        literal_text(clip(work.title, 48)),
    )


def findings_content(model: ConsoleModel, work: WorkView) -> Content:
    """The item, why it waits, its open findings (what accepting must dispose) first, then the latest proof."""
    events = model.work_events(work.id)
    parts: list[Content] = [
        Content.assemble(literal(work.title, "bold"), "  ", literal(work.id, "dim")),
        label("Why", work.reason, "dim"),
    ]
    parts.append(Content.styled(f"Open findings ({len(work.open_findings)})", "bold underline"))
    parts += [
        indent(
            Content.assemble(
                (f"{f.id} ", "bold"), ("by ", "dim"), literal(f.actor), ": ", literal(f.statement, multiline=True)
            )
        )
        for f in work.open_findings
    ] or [indent(Content.styled("none open: accepting needs no dispositions", "dim"))]
    latest = work.latest_attempt
    proof = model.proof(latest.run_id) if latest is not None else None
    if proof is not None:
        parts.append(label("Proof", f"{proof.status}: {proof.summary}"))
        parts += [
            indent(Content.assemble(("✔ " if c.status == "satisfied" else "✖ ") + c.status + " ", literal(c.criterion)))
            for c in proof.acceptance
        ]
    past = dispositions_so_far(events)
    parts.append(Content.styled(f"Dispositions so far ({len(past)})", "bold underline"))
    parts += [
        indent(
            Content.assemble(
                (f"{p.disposition.id} {p.disposition.outcome}", "bold"),
                (" by ", "dim"),
                literal(p.actor),
                (f" at {p.ts}", "dim"),
                *((": ", literal(p.disposition.reason, multiline=True)) if p.disposition.reason else ()),
            )
        )
        for p in past
    ] or [indent(Content.styled("none recorded yet", "dim"))]
    raised = all_findings(events)
    if len(raised) > len(work.open_findings):
        parts.append(Content.styled(f"Every finding raised ({len(raised)})", "bold underline"))
        parts += [
            indent(
                Content.assemble(
                    (f"{fid} ", "bold"), (f"{ts} ", "dim"), literal(actor), ": ", literal(statement, multiline=True)
                )
            )
            for ts, fid, actor, statement in raised
        ]
    return lines(parts)


class FindingsPanel(Vertical):
    """A keyed table of the review queue above a scrollable detail of the selected item and its buttons."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        set_border(self, title="Findings")
        self.items: dict[str, WorkView] = {}
        self.shown: str | None = None
        self._prepared: tuple[WorkView, Content] | None = None

    def compose(self) -> ComposeResult:
        yield KeyedTable(COLUMNS, id="findings-table")
        yield ContentView(literal("nothing is in review"), id="findings-detail")
        with Horizontal(classes="card-buttons", id="findings-buttons"):
            yield KeyButton("Accept… · a", id="findings-accept", variant="success")
            yield KeyButton("Reopen… · o", id="findings-reopen")

    @property
    def table(self) -> KeyedTable:
        return self.query_one("#findings-table", KeyedTable)

    @property
    def detail(self) -> ContentView:
        return self.query_one("#findings-detail", ContentView)

    @property
    def selected(self) -> WorkView | None:
        key = self.table.cursor_key
        return self.items.get(key) if key is not None else None

    def _content(self, model: ConsoleModel, work: WorkView) -> Content:
        found = self._prepared
        if found is not None and found[0] is work:
            return found[1]
        return findings_content(model, work)

    def prepare(self, model: ConsoleModel, work: WorkView) -> None:
        """Build (and wrap) the detail of `work` ahead (the item `n` goes to next); kept while that item's view
        is the one shown (a live update replaces the view)."""
        content = self._content(model, work)
        self._prepared = (work, content)
        self.detail.prepare(content)

    def show(self, model: ConsoleModel, goal: GoalView | None) -> None:
        queue = review_queue(goal) if goal is not None and goal.state != "corrupt" else []
        self.items = {w.id: w for w in queue}
        self.table.sync([review_row(w) for w in queue])
        if self.table.display != bool(queue):
            self.table.display = bool(queue)
        set_border(self, subtitle=f"{len(queue)} item(s)" if queue else "")
        self.show_selected(model)

    def show_selected(self, model: ConsoleModel) -> None:
        work = self.selected
        buttons = self.query_one("#findings-buttons")
        if work is None:
            self.shown = None
            self.detail.update(literal("nothing is in review and no work carries open findings"))
            if buttons.display:
                buttons.display = False
            return
        self.detail.update(self._content(model, work), keep_scroll=work.id == self.shown)
        self.shown = work.id
        if not buttons.display:
            buttons.display = True
        accept = self.query_one("#findings-accept", Button)
        if accept.display != (work.state == "in_review"):
            accept.display = work.state == "in_review"
