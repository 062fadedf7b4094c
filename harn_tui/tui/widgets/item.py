"""The Item detail panel: one work item's objective, acceptance, attempts with proofs, findings and history."""

from __future__ import annotations

from textual.content import Content

from harn_tui.console.model import ConsoleModel
from harn_tui.console.views import work_history
from harn_tui.console.workspaces import workspace_line
from harn_tui.core.projection import AttemptView, GoalView, WorkView
from harn_tui.core.rules import pending_approval
from harn_tui.tui.states import glyph, state_content, state_style
from harn_tui.tui.text import indent, label, lines, literal, under_root
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.titles import set_border

LIVE_LINES = 12  # of a running attempt's output (a finished one shows LAST_LINES)
LAST_LINES = 6


def _heading(text: str) -> Content:
    return Content.styled(text, "bold underline")


def _summary(work: WorkView, goal: GoalView) -> Content:
    where = "active" if work.active else "superseded (not dispatchable)"
    root = " · active root" if work.id == goal.active_root else ""
    return Content.assemble(
        state_content(work.state),
        (" · next ", "dim"),
        work.next_action,
        (" · attempts ", "dim"),
        f"{work.charged_attempts}/{work.max_attempts} charged, {work.attempts_used} total",
        (" · ", "dim"),
        where + root,
    )


def _attempt(model: ConsoleModel, attempt: AttemptView) -> Content:
    style = state_style(attempt.status)
    head = Content.assemble(
        f"#{attempt.number} {attempt.trigger} ",
        (f"{glyph(attempt.status)} {attempt.status}", style),
        f" {attempt.run_id}",
        (f" class {attempt.class_}" if attempt.class_ else "", "dim"),
        (f"  started {attempt.started_at} by ", "dim"),
        literal(attempt.started_by),
    )
    parts = [head]
    if attempt.reason and attempt.reason != attempt.summary:
        parts.append(indent(label("reason", attempt.reason, "dim")))
    proof = model.proof(attempt.run_id)
    if proof is not None:
        parts.append(indent(label("proof", f"{proof.status}: {proof.summary}", "dim")))
        if proof.workspace is not None:
            parts.append(indent(label("workspace", workspace_line(proof.workspace), "dim")))
        for criterion in proof.acceptance:
            mark = {"satisfied": "✔", "unsatisfied": "✖"}.get(criterion.status, "?")
            parts.append(
                indent(
                    Content.assemble(
                        (f"{mark} {criterion.status} ", state_style("passed" if mark == "✔" else "failed")),
                        literal(criterion.criterion),
                        (" — ", "dim"),
                        literal(criterion.evidence, multiline=True),
                    ),
                    "    ",
                )
            )
    return lines(parts)


def _output(model: ConsoleModel, attempt: AttemptView) -> list[Content]:
    """The last lines the attempt printed; while it runs, more of them, followed as it prints."""
    running = attempt.status == "running"
    tail = model.transcript_tail(attempt.run_id, LIVE_LINES if running else LAST_LINES)
    if running:
        heading = Content.assemble(_heading(f"Output of {attempt.run_id}"), ("  running: follows live", "dim"))
        return [heading, *([indent(literal(line)) for line in tail] or [indent(Content.styled("nothing yet", "dim"))])]
    if not tail:
        return []
    return [_heading(f"Last output of {attempt.run_id}"), *[indent(literal(line)) for line in tail]]


def item_content(model: ConsoleModel, goal: GoalView, work_id: str) -> Content:
    work = goal.work_item(work_id)
    files = model.tree.work.get(work_id)
    if work is None or files is None:
        return literal(f"work {work_id} is not part of goal {goal.id}")
    intent = files.intent
    parts: list[Content] = [
        literal(work.title, "bold"),
        Content.assemble(("id ", "dim"), literal(work.id)),
        _summary(work, goal),
        label("why", under_root(work.reason, model.layout.root), "dim"),
    ]
    if work.source_ref:
        parts.append(label("from", f"{work.source_kind} {work.source_ref}", "dim"))
    latest = work.latest_attempt
    running = latest if latest is not None and latest.status == "running" else None
    if running is not None:  # the work happening comes first: its output is on screen without scrolling
        parts += _output(model, running)
    waiting = pending_approval(work)
    if waiting:  # the decision waiting comes first: the question is on screen without scrolling
        parts += _approval(model, waiting)
    if intent is not None:
        parts += [_heading("Objective"), literal(intent.objective, multiline=True)]
        parts.append(_heading(f"Acceptance ({len(intent.acceptance)})"))
        parts += [indent(Content.assemble("• ", literal(c, multiline=True))) for c in intent.acceptance] or [
            indent(Content.styled("no criteria: the proof status decides", "dim"))
        ]
        deps = ", ".join(intent.dependencies) or "none"
        parts.append(label("Dependencies", deps))
    parts.append(_heading(f"Open findings ({len(work.open_findings)})"))
    parts += [
        indent(
            Content.assemble(
                (f"{f.id} ", "bold"), ("by ", "dim"), literal(f.actor), ": ", literal(f.statement, multiline=True)
            )
        )
        for f in work.open_findings
    ] or [indent(Content.styled("none", "dim"))]
    if work.approval_id and not waiting:
        parts += _approval(model, work.approval_id)
    parts.append(_heading(f"Attempts ({work.attempts_used})"))
    none_yet = [indent(Content.styled("none yet", "dim"))]
    parts += [indent(_attempt(model, a)) for a in reversed(work.attempts)] or none_yet
    if latest is not None and running is None:
        parts += _output(model, latest)
    parts.append(_heading("History (seq · time · event · actor · reason)"))
    for row in work_history(model.work_events(work_id)):
        parts.append(
            indent(
                Content.assemble(
                    (f"{row.seq:>3} ", "bold"),
                    (f"{row.ts} ", "dim"),
                    row.event,
                    " ",
                    literal(row.actor, "bold"),
                    (" " + row.detail if row.detail else "", "dim"),
                )
            )
        )
        if row.reason:
            parts.append(indent(literal(row.reason, multiline=True), "      "))
    return lines(parts)


def _approval(model: ConsoleModel, approval_id: str) -> list[Content]:
    approval = model.approval(approval_id)
    if approval is None or approval.request is None:
        return [label("Approval", f"{approval_id} (not readable)")]
    status = "decided" if approval.decision else "pending: approve (a) or deny (x)"
    parts = [_heading(f"Approval {approval_id} · {status}"), indent(label("question", approval.request.question))]
    parts += _details(approval.request.details)
    if approval.decision is not None:
        decision = approval.decision
        parts.append(indent(label("decision", f"{decision.verdict} by {decision.actor} at {decision.decided_at}")))
        if decision.reason:
            parts.append(indent(label("reason", decision.reason)))
    return parts


def _details(details: str | None) -> list[Content]:
    """An approval's details: one line beside its label; several (an agent's plan: its numbered steps and
    rationale) as a block under it, each line wrapped on its own, a step's continuation under its text."""
    if not details:
        return []
    if "\n" not in details.strip():
        return [indent(label("details", details.strip()))]
    body = [indent(literal(line), "    ") for line in details.strip("\n").split("\n")]
    return [indent(Content.styled("details:", "bold")), *body]


EMPTY = "select a work item in the goal graph"
BUILT_KEPT = 8


class ItemDetail(ContentView):
    """Scrollable detail of the graph's selected item; focusable so the keyboard can scroll it.

    A refresh of the item already shown (a live update) keeps the scroll position and repaints only the lines
    that changed; another item starts at the top. The detail of the items next to the cursor can be built ahead
    (`prefetch`, while the operator reads), so moving the cursor shows them without building them then."""

    def __init__(self, **kwargs: str) -> None:
        super().__init__(literal(EMPTY), **kwargs)
        self.shown: tuple[str, str] | None = None
        set_border(self, title="Item")
        self._built: dict[str, tuple[GoalView, Content]] = {}

    @property
    def shown_work(self) -> str | None:
        return self.shown[1] if self.shown is not None else None

    def _detail(self, model: ConsoleModel, goal: GoalView, work_id: str) -> Content:
        found = self._built.get(work_id)
        if found is not None and found[0] is goal:
            return found[1]
        if any(built is not goal for built, _ in self._built.values()):
            self._built = {key: entry for key, entry in self._built.items() if entry[0] is goal}
        content = item_content(model, goal, work_id)
        self._built[work_id] = (goal, content)
        while len(self._built) > BUILT_KEPT:
            del self._built[next(iter(self._built))]
        return content

    def forget(self) -> None:
        """Drop what was built ahead: something it shows changed without the goal being re-projected."""
        self._built = {}

    def prefetch(self, model: ConsoleModel, goal: GoalView | None, work_ids: list[str]) -> None:
        if goal is None:
            return
        for work_id in work_ids:
            self.prepare(self._detail(model, goal, work_id))

    def show(self, model: ConsoleModel, goal: GoalView | None, work_id: str | None) -> None:
        if goal is None or work_id is None:
            self.shown = None
            self.update(literal(EMPTY))
            set_border(self, title="Item")
            return
        subject = (goal.id, work_id)
        self.update(self._detail(model, goal, work_id), keep_scroll=subject == self.shown)
        self.shown = subject
        set_border(self, title=f"Item {work_id}")
