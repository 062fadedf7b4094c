"""The Plan history panel: every plan newest first; a pending proposal is an approval card with its steps.

Rationale and reasons are wrapped, never truncated. The card's Approve and Reject buttons run the same
screen actions as the `a` and `x` keys and the palette entries.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Static

from harn_tui.core.console_views import pending_proposal
from harn_tui.core.projection import GoalView, PlanView
from harn_tui.core.records import Proposal, ReviewReceipt
from harn_tui.tui.states import glyph, state_style
from harn_tui.tui.text import indent, label, lines, literal


def _heading(plan: PlanView, pending: bool) -> Content:
    status = Content.styled(f"{glyph(plan.status)} {plan.status}", state_style(plan.status))
    head = Content.assemble(status, "  ", literal(plan.id, "bold"), (f"  #{plan.sequence}", "dim"),
                            ("  trigger ", "dim"), plan.trigger)
    if plan.decision:
        head = head + Content.assemble(("  decision ", "dim"), plan.decision)
    if pending:
        head = Content("\n").join([
            Content.styled("APPROVAL NEEDED: approve (a) or reject with a reason (x)", "bold reverse"), head])
    return head


def _steps(proposal: Proposal, full: bool) -> list[Content]:
    if not proposal.work:
        return []
    root = proposal.root or "(the one item nothing depends on)"
    parts = [Content.assemble(("Steps", "bold underline"), (f"  {len(proposal.work)} work items, root ", "dim"),
                              literal(root))]
    for number, step in enumerate(proposal.work, start=1):
        after = f"  after {', '.join(step.dependencies)}" if step.dependencies else ""
        parts.append(indent(Content.assemble(
            (f"{number}. ", "bold"), literal(step.key, "bold"), " — ", literal(step.title),
            (f"  [{step.template}]", "dim"), (after, "dim"),
        )))
        if full:
            parts.append(indent(literal(step.objective, multiline=True), "      "))
            parts += [indent(Content.assemble("• ", literal(c, multiline=True)), "      ") for c in step.acceptance]
    return parts


def review_content(review: ReviewReceipt) -> list[Content]:
    parts = [Content.assemble(("Review", "bold underline"), f"  outcome {review.outcome}",
                              (f"  {review.created_at}", "dim"))]
    for entry in review.reviews:
        parts.append(indent(Content.assemble(literal(entry.reviewer, "bold"), f" {entry.verdict}: ",
                                             literal(entry.rationale, multiline=True))))
        for finding in entry.findings:
            parts.append(indent(Content.assemble(
                (f"[{finding.severity}] ", "bold" if finding.severity == "blocking" else "dim"),
                literal(finding.code), ": ", literal(finding.summary, multiline=True),
                *((" → ", literal(finding.recommendation, multiline=True)) if finding.recommendation else ()),
            ), "      "))
    return parts


def plan_content(plan: PlanView, pending: bool) -> Content:
    parts = [_heading(plan, pending)]
    if plan.rationale:
        parts += [Content.styled("Rationale", "bold underline"), literal(plan.rationale, multiline=True)]
    elif plan.status in ("planning", "interrupted", "failed"):
        parts.append(Content.styled("no proposal was produced", "dim"))
    shown = plan.proposal or plan.candidate
    if shown is not None and shown.milestone is not None:
        milestone = shown.milestone
        parts.append(label("Milestone", f"#{milestone.sequence} {milestone.title}"))
    if shown is not None:
        parts += _steps(shown, full=pending)
    if plan.review is not None:
        parts += review_content(plan.review)
    reasons = plan.operator_reasons()
    if reasons:
        parts.append(Content.styled("Reasons", "bold underline"))
        parts += [indent(Content.assemble(f"{event} ", ("by ", "dim"), literal(actor, "bold"), ": ",
                                          literal(reason, multiline=True))) for event, actor, reason in reasons]
    if plan.root_work_id:
        parts.append(label("Applied", f"root {plan.root_work_id}; work {', '.join(plan.work_ids) or 'none new'}"))
    parts.append(Content.styled(
        "requested " + plan.request.created_at + f" · prior root {plan.request.prior_root_work_id or 'none'}", "dim"))
    return lines(parts)


def _signature(plan: PlanView, pending: bool) -> tuple[object, ...]:
    return (plan.status, len(plan.events), plan.proposal_sha256, plan.review is not None, pending)


class PlanCard(Vertical):
    """One plan; the pending proposal carries Approve/Reject buttons. Updated in place on a refresh."""

    def __init__(self, plan: PlanView, pending: bool) -> None:
        super().__init__(classes="plan-card")
        self.plan = plan
        self.pending = pending
        self.signature = _signature(plan, pending)
        self.set_class(pending, "-pending")

    def compose(self) -> ComposeResult:
        yield Static(plan_content(self.plan, self.pending), classes="plan-body")
        if self.pending:
            yield _buttons()

    async def refresh_plan(self, plan: PlanView, pending: bool) -> None:
        signature = _signature(plan, pending)
        if signature == self.signature:
            return
        was_pending = self.pending
        self.plan, self.pending, self.signature = plan, pending, signature
        self.set_class(pending, "-pending")
        self.query_one(".plan-body", Static).update(plan_content(plan, pending))
        if pending and not was_pending:
            await self.mount(_buttons())
        elif was_pending and not pending:
            await self.query(".card-buttons").remove()


def _buttons() -> Horizontal:
    """Approve/Reject, only on the pending card (buttons are costly to style; history cards need none)."""
    return Horizontal(
        Button("Approve · a", id="card-approve", variant="success", compact=True),
        Button("Reject · x", id="card-reject", variant="error", compact=True),
        classes="card-buttons",
    )


class PlanHistory(VerticalScroll):
    """Cards keyed by plan id, newest first; unchanged cards are kept, so scrolling survives live refreshes."""

    can_focus = True

    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.goal_id: str | None = None
        self.empty_text: str | None = None
        self.border_title = "Plan history"

    async def show(self, goal: GoalView | None) -> None:
        plans = list(reversed(goal.plans)) if goal is not None else []
        proposal = pending_proposal(goal) if goal is not None else None
        pending_id = proposal.id if proposal is not None else None
        cards = list(self.query(PlanCard))
        same_goal = goal is not None and goal.id == self.goal_id
        self.goal_id = goal.id if goal is not None else None
        if same_goal and [c.plan.id for c in cards] == [p.id for p in plans] and plans:
            for card, plan in zip(cards, plans, strict=True):
                await card.refresh_plan(plan, plan.id == pending_id)
        elif same_goal and plans and [c.plan.id for c in cards] == [p.id for p in plans[len(plans) - len(cards):]]:
            new = [PlanCard(p, p.id == pending_id) for p in plans[: len(plans) - len(cards)]]
            if cards:
                await self.mount_all(new, before=cards[0])
            else:
                await self.remove_children()
                self.empty_text = None
                await self.mount_all(new)
            for card, plan in zip(cards, plans[len(new):], strict=True):
                await card.refresh_plan(plan, plan.id == pending_id)
        else:
            await self._replace(goal, plans, pending_id)
        self.border_subtitle = f"{len(plans)} plans, newest first" if plans else ""

    async def _replace(self, goal: GoalView | None, plans: list[PlanView], pending_id: str | None) -> None:
        empty = None if plans else ("no readable plans" if goal is None or goal.state == "corrupt" else "no plans yet")
        if not plans and empty == self.empty_text and not list(self.query(PlanCard)):
            return
        await self.remove_children()
        self.empty_text = empty
        if plans:
            await self.mount_all([PlanCard(p, p.id == pending_id) for p in plans])
        else:
            await self.mount(Static(literal(empty or ""), classes="plan-empty"))
        self.scroll_home(animate=False)
