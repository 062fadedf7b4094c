"""The Attention panel: why the goal stopped, the review receipt, failing proofs, and retry eligibility.

Retry eligibility is listed rule by rule (latest plan? root and fingerprint unchanged? mission open? a
replan slot left?) before the operator types anything; the Retry button opens the same form as `r`.
"""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Button

from harn_tui.console.model import ConsoleModel
from harn_tui.console.views import (
    FailingProof,
    RetryEligibility,
    failing_proofs,
    is_standalone,
    retry_eligibility,
    review_queue,
)
from harn_tui.core.projection import GoalView
from harn_tui.core.rules import latest_attention_plan, pending_approval
from harn_tui.tui.states import check_mark, state_content
from harn_tui.tui.text import indent, label, lines, literal, under_root
from harn_tui.tui.widgets.buttons import KeyButton
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.plans import review_content
from harn_tui.tui.widgets.titles import set_border


def _heading(text: str) -> Content:
    return Content.styled(text, "bold underline")


def eligibility_content(eligibility: RetryEligibility) -> Content:
    if eligibility.plan_id is None:
        return Content.styled("no plan of this goal is in attention: nothing to retry", "dim")
    verdict = (
        Content.styled("✔ eligible", "bold green")
        if eligibility.eligible
        else Content.styled("✖ not eligible", "bold red")
    )
    parts = [Content.assemble(("Retry plan ", "bold"), literal(eligibility.plan_id, "bold"), ": ", verdict)]
    for check in eligibility.checks.checks:
        parts.append(
            indent(Content.assemble(check_mark(check.holds), " ", (f"{check.name}: ", "bold"), literal(check.why)))
        )
    return lines(parts)


def _failing(model: ConsoleModel, failing: FailingProof) -> list[Content]:
    attempt = failing.attempt
    parts = [
        Content.assemble(
            ("Failing proof ", "bold"),
            literal(failing.work.id),
            f" attempt {attempt.number} ",
            literal(attempt.run_id),
            (f" class {attempt.class_}" if attempt.class_ else "", "dim"),
        )
    ]
    parts.append(indent(label("why", failing.work.reason, "dim")))
    proof = failing.proof
    if proof is None:
        parts.append(indent(Content.styled("no proof was written (the host recorded the failure reason above)", "dim")))
        return parts
    parts.append(indent(label("summary", proof.summary or "(empty)", "dim")))
    for criterion in proof.acceptance:
        if criterion.status != "satisfied":
            parts.append(
                indent(
                    Content.assemble(
                        (f"✖ {criterion.status} ", "bold red"),
                        literal(criterion.criterion),
                        (" — ", "dim"),
                        literal(criterion.evidence, multiline=True),
                    ),
                    "    ",
                )
            )
    return parts


def attention_content(model: ConsoleModel, goal: GoalView) -> Content:
    parts: list[Content] = [
        Content.assemble(
            literal(goal.title, "bold"), "  ", state_content(goal.state), (" / ", "dim"), goal.next_action
        ),
        label("Why", under_root(goal.reason, model.layout.root)),
    ]
    if goal.state == "corrupt":
        parts.append(
            Content.styled(
                "This goal's records are unreadable; no transition will be accepted for it. "
                "Run `harn verify` for every problem.",
                "bold",
            )
        )
        return lines(parts)
    if is_standalone(goal):
        parts.append(
            Content.styled(
                "Work created on its own (`harn work create`), not by a goal: only the items "
                "waiting for a human are listed here; `harn work list` lists them all.",
                "dim",
            )
        )
    target = latest_attention_plan(goal.plans)
    if target is not None:
        parts.append(eligibility_content(retry_eligibility(goal)))
        parts.append(_heading(f"Attention plan {target.id}"))
        if target.reason:
            parts.append(indent(label("attention", target.reason)))
        if target.rationale:
            parts.append(indent(label("planner rationale", target.rationale)))
        if target.latest_review is not None:
            parts += [indent(c) for c in review_content(target.latest_review)]
    for failing in failing_proofs(goal, model.proof):
        parts += _failing(model, failing)
    for work in goal.work:
        approval_id = pending_approval(work) if work.active else None
        if approval_id:
            approval = model.approval(approval_id)
            question = approval.request.question if approval and approval.request else "(unreadable request)"
            parts.append(
                Content.assemble(
                    ("Approval ", "bold"),
                    literal(approval_id),
                    " waits: ",
                    literal(question),
                    (" — select the item in the graph (2), then y or n", "dim"),
                )
            )
    for work in review_queue(goal):
        if work.state == "in_review":
            parts.append(
                Content.assemble(
                    ("In review ", "bold"),
                    literal(work.id),
                    ": ",
                    literal(work.reason),
                    (" — see Findings (5): accept (a) or reopen (o)", "dim"),
                )
            )
    if len(parts) == 2 and not goal.needs_human:
        parts.append(Content.styled("Nothing waits for a human on this goal.", "dim"))
    return lines(parts)


class AttentionPanel(Vertical):
    """The attention text (scrollable, focusable) above the Retry button, which stays on screen."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        set_border(self, title="Attention")
        self.goal_id: str | None = None
        self._prepared: tuple[GoalView, Content] | None = None

    def compose(self) -> ComposeResult:
        yield ContentView(literal("no goal selected"), id="attention-body")
        yield KeyButton("Retry plan… · r", id="attention-retry")

    @property
    def body(self) -> ContentView:
        return self.query_one("#attention-body", ContentView)

    def _content(self, model: ConsoleModel, goal: GoalView) -> Content:
        found = self._prepared
        if found is not None and found[0] is goal:
            return found[1]
        return attention_content(model, goal)

    def prepare(self, model: ConsoleModel, goal: GoalView) -> None:
        """Build (and wrap) the attention text of `goal` ahead (the goal `n` goes to next); kept while that goal's
        view is the one shown (a live update replaces the view)."""
        content = self._content(model, goal)
        self._prepared = (goal, content)
        self.body.prepare(content)

    def show(self, model: ConsoleModel, goal: GoalView | None) -> None:
        button = self.query_one("#attention-retry", Button)
        same = goal is not None and goal.id == self.goal_id
        self.goal_id = goal.id if goal is not None else None
        if goal is None:
            self.body.update(literal("no goal selected"))
            button.display = False
            return
        self.body.update(self._content(model, goal), keep_scroll=same)
        shown = goal.state != "corrupt" and latest_attention_plan(goal.plans) is not None
        if button.display != shown:
            button.display = shown
        disabled = not retry_eligibility(goal).eligible
        if button.disabled != disabled:
            button.disabled = disabled
