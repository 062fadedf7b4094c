"""The Plan history panel: every plan newest first; a pending proposal is an approval card with its steps and
what approving it changes (the active items it replaces, with their states, those it keeps, those it adds).

Rationale and reasons are wrapped, never truncated. The Approve and Reject buttons below the history (shown
while the latest plan is a proposal) run the same screen actions as the `a` and `x` keys and the palette.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content

from harn_tui.console.rounds import review_rounds
from harn_tui.console.views import is_standalone, pending_proposal
from harn_tui.core.history import PlanDiff
from harn_tui.core.ids import plan_work_id
from harn_tui.core.projection import GoalView, PlanView
from harn_tui.core.records import Proposal, ReviewReceipt
from harn_tui.tui.states import glyph, state_style
from harn_tui.tui.text import counted, indent, label, lines, literal
from harn_tui.tui.widgets.buttons import KeyButton
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.titles import set_border


def _heading(plan: PlanView, pending: bool) -> Content:
    status = Content.styled(f"{glyph(plan.status)} {plan.status}", state_style(plan.status))
    head = Content.assemble(
        status, "  ", literal(plan.id, "bold"), (f"  #{plan.sequence}", "dim"), ("  trigger ", "dim"), plan.trigger
    )
    if plan.decision:
        head = head + Content.assemble(("  decision ", "dim"), plan.decision)
    if pending:
        head = Content("\n").join(
            [Content.styled("APPROVAL NEEDED: approve (a) or reject with a reason (x)", "bold reverse"), head]
        )
    return head


def _steps(proposal: Proposal, full: bool) -> list[Content]:
    if not proposal.work:
        return []
    root = proposal.root or "(the one item nothing depends on)"
    steps = counted(len(proposal.work), "work item")
    parts = [Content.assemble(("Steps", "bold underline"), (f"  {steps}, root ", "dim"), literal(root))]
    for number, step in enumerate(proposal.work, start=1):
        after = f"  after {', '.join(step.dependencies)}" if step.dependencies else ""
        parts.append(
            indent(
                Content.assemble(
                    (f"{number}. ", "bold"),
                    literal(step.key, "bold"),
                    " — ",
                    literal(step.title),
                    (f"  [{step.template}]", "dim"),
                    (after, "dim"),
                )
            )
        )
        if full:
            parts.append(indent(literal(step.objective, multiline=True), "      "))
            parts += [indent(Content.assemble("• ", literal(c, multiline=True)), "      ") for c in step.acceptance]
    return parts


def review_content(review: ReviewReceipt, heading: str = "Review") -> list[Content]:
    parts = [
        Content.assemble((heading, "bold underline"), f"  outcome {review.outcome}", (f"  {review.created_at}", "dim"))
    ]
    for entry in review.reviews:
        parts.append(
            indent(
                Content.assemble(
                    literal(entry.reviewer, "bold"), f" {entry.verdict}: ", literal(entry.rationale, multiline=True)
                )
            )
        )
        for finding in entry.findings:
            parts.append(
                indent(
                    Content.assemble(
                        (f"[{finding.severity}] ", "bold" if finding.severity == "blocking" else "dim"),
                        literal(finding.code),
                        ": ",
                        literal(finding.summary, multiline=True),
                        *((" → ", literal(finding.recommendation, multiline=True)) if finding.recommendation else ()),
                    ),
                    "      ",
                )
            )
    return parts


def rounds_content(plan: PlanView) -> list[Content]:
    """Every review round of a revised plan: why it was opened, what the planner changed, its candidate's
    rationale and steps, its review."""
    rounds = review_rounds(plan)
    if not rounds:
        return []
    revisions = len(rounds) - 1
    parts = [
        Content.assemble(
            ("Review rounds", "bold underline"),
            (f"  {counted(len(rounds), 'round')}, {counted(revisions, 'revision')}", "dim"),
        )
    ]
    for entry in rounds:
        parts.append(Content.styled(f"Round {entry.number}", "bold"))
        if entry.reason:
            parts.append(indent(Content.assemble(("revision asked: ", "dim"), literal(entry.reason, multiline=True))))
        if entry.changes:
            parts.append(indent(Content.assemble(("changed: ", "dim"), literal("; ".join(entry.changes)))))
        if entry.candidate is not None:
            parts.append(
                indent(Content.assemble(("candidate: ", "dim"), literal(entry.candidate.rationale, multiline=True)))
            )
            parts += [indent(line) for line in _steps(entry.candidate, full=False)[1:]]
        else:
            parts.append(indent(Content.styled("no candidate was produced", "dim")))
        if entry.review is not None:
            parts += [indent(line) for line in review_content(entry.review, heading="Review")]
    return parts


def diff_content(diff: PlanDiff, goal: GoalView) -> list[Content]:
    """The generation change approving makes: replaced items with their states now, kept, added."""
    after = diff.after
    if after is None:
        return []
    parts = [
        Content.assemble(
            ("If approved", "bold underline"), (f"  generation {diff.before.generation} → {after.generation}", "dim")
        )
    ]

    def item(work_id: str) -> Content:
        view = goal.work_item(work_id)
        if view is None:
            return literal(work_id)
        status = Content.styled(f"{glyph(view.state)} {view.state}", state_style(view.state))
        return Content.assemble(status, " ", literal(work_id), ("  ", ""), literal(view.title, "dim"))

    plan = goal.plan(diff.plan_id)
    steps = (
        {plan_work_id(diff.plan_id, step.key): step.title for step in plan.proposal.work}
        if plan is not None and plan.proposal is not None
        else {}
    )

    def new(work_id: str) -> Content:
        return Content.assemble(("+ new ", "bold"), literal(work_id), "  ", literal(steps.get(work_id, ""), "dim"))

    for name, ids in (("replaces", diff.replaced), ("keeps", diff.kept), ("adds", diff.added)):
        parts.append(indent(Content.assemble((f"{name} {len(ids)}", "bold"), ":" if ids else ": nothing")))
        parts += [indent(item(work_id) if name != "adds" else new(work_id), "    ") for work_id in ids]
    return parts


def plan_content(plan: PlanView, pending: bool, diff: PlanDiff | None = None, goal: GoalView | None = None) -> Content:
    parts = [_heading(plan, pending)]
    if pending and diff is not None and goal is not None and diff.plan_id == plan.id:
        parts += diff_content(diff, goal)
    if plan.rationale:
        parts += [Content.styled("Rationale", "bold underline"), literal(plan.rationale, multiline=True)]
    elif plan.status in ("planning", "interrupted", "failed"):
        parts.append(Content.styled("no proposal was produced", "dim"))
    shown = plan.proposal or plan.latest_candidate
    if shown is not None and shown.milestone is not None:
        milestone = shown.milestone
        parts.append(label("Milestone", f"#{milestone.sequence} {milestone.title}"))
    if shown is not None:
        parts += _steps(shown, full=pending)
    rounds = rounds_content(plan)
    if rounds:
        parts += rounds
    elif plan.review is not None:
        parts += review_content(plan.review)
    reasons = plan.operator_reasons()
    if reasons:
        parts.append(Content.styled("Reasons", "bold underline"))
        parts += [
            indent(
                Content.assemble(
                    f"{event} ", ("by ", "dim"), literal(actor, "bold"), ": ", literal(reason, multiline=True)
                )
            )
            for event, actor, reason in reasons
        ]
    if plan.root_work_id:
        parts.append(label("Applied", f"root {plan.root_work_id}; work {', '.join(plan.work_ids) or 'none new'}"))
    parts.append(
        Content.styled(
            "requested " + plan.request.created_at + f" · prior root {plan.request.prior_root_work_id or 'none'}", "dim"
        )
    )
    return lines(parts)


def history_content(goal: GoalView | None, diff: PlanDiff | None = None) -> Content:
    """Every plan of the goal, newest first, a blank line between them; the pending proposal is marked."""
    if is_standalone(goal):
        return literal("standalone work belongs to no goal and has no plans")
    if goal is None or not goal.plans:
        return literal("no readable plans" if goal is None or goal.state == "corrupt" else "no plans yet")
    proposal = pending_proposal(goal)
    pending_id = proposal.id if proposal is not None else None
    return Content("\n\n").join(plan_content(plan, plan.id == pending_id, diff, goal) for plan in reversed(goal.plans))


class PlanHistory(Vertical):
    """The plans as one scrollable text (only the lines on screen are rendered) and, while the latest plan is a
    proposal, its Approve and Reject buttons below it, always on screen."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.goal_id: str | None = None
        self.pending_id: str | None = None
        self._prepared: tuple[GoalView, PlanDiff | None, Content] | None = None
        set_border(self, title="Plan history")

    def compose(self) -> ComposeResult:
        yield ContentView(literal("no goal selected"), id="plans-body")
        yield Horizontal(
            KeyButton("Approve · a", id="card-approve", variant="success"),
            KeyButton("Reject · x", id="card-reject", variant="error"),
            classes="card-buttons",
            id="plan-buttons",
        )

    @property
    def body(self) -> ContentView:
        return self.query_one("#plans-body", ContentView)

    def _content(self, goal: GoalView | None, diff: PlanDiff | None) -> Content:
        found = self._prepared
        if found is not None and goal is not None and found[0] is goal and found[1] == diff:
            return found[2]
        return history_content(goal, diff)

    def prepare(self, goal: GoalView, diff: PlanDiff | None) -> None:
        """Build (and wrap) the plans of `goal` ahead, as the graph does for the goal `n` goes to next."""
        content = self._content(goal, diff)
        self._prepared = (goal, diff, content)
        self.body.prepare(content)

    def show(self, goal: GoalView | None, diff: PlanDiff | None = None) -> None:
        same = goal is not None and goal.id == self.goal_id
        self.goal_id = goal.id if goal is not None else None
        proposal = pending_proposal(goal) if goal is not None else None
        self.pending_id = proposal.id if proposal is not None else None
        self.body.update(self._content(goal, diff), keep_scroll=same)
        buttons = self.query_one("#plan-buttons")
        if buttons.display != (proposal is not None):
            buttons.display = proposal is not None
        count = len(goal.plans) if goal is not None else 0
        set_border(self, subtitle=f"{counted(count, 'plan')}, newest first" if count else "")
