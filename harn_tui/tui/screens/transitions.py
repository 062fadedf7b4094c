"""The main screen's transition actions and the one legality gate (`check_action`) for keys and palette.

Plan verbs act on the selected goal's latest plan when the focus is on the goals, attention or plan panel;
work verbs act on the focused work item (graph, item detail or findings). Each action captures the exact
address when it is invoked; the core re-checks everything under the lease and its refusal is shown verbatim.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from textual.content import Content
from textual.widget import Widget

from harn_tui.console.views import is_standalone, pending_proposal, retry_eligibility
from harn_tui.console.workspaces import diffable_attempts
from harn_tui.core.addresses import EVENTS
from harn_tui.core.projection import GoalView, WorkView
from harn_tui.core.rules import approval_decide, pending_approval, plan_reopen, work_accept, work_cancel, work_reopen
from harn_tui.tui import dispatch as requests
from harn_tui.tui.forms.accept import AcceptAnswer, AcceptForm
from harn_tui.tui.forms.reason import ReasonAnswer, ReasonForm
from harn_tui.tui.forms.reopen import ReopenAnswer, ReopenForm
from harn_tui.tui.messages import (
    ConsoleHost,
    FormRequested,
    SupervisorToggleRequested,
    TickRequested,
    TransitionRequested,
)
from harn_tui.tui.text import label, lines
from harn_tui.tui.widgets.attention import eligibility_content

if TYPE_CHECKING:
    from pathlib import Path

    from textual.message import Message

    from harn_tui.console.history import PastView
    from harn_tui.console.model import ConsoleModel
    from harn_tui.tui.forms.base import TransitionForm

PANELS = ("goals", "graph", "attention", "plans", "findings", "item", "history")
PLAN_CONTEXTS = frozenset({"goals", "attention", "plans"})
WORK_CONTEXTS = frozenset({"graph", "item", "findings"})
PLAN_ACTIONS = frozenset({"approve_plan", "reject_plan", "retry_plan", "reopen_plan"})
WORK_ACTIONS = frozenset({"accept_work", "reopen_work", "cancel_work", "approve_request", "deny_request"})
PAST_DISABLED = PLAN_ACTIONS | WORK_ACTIONS | {"show_diff", "tick_goal"}


class TransitionActions:
    """Mixed into the main screen; relies on its `model`, `goal`, `console` and widget queries."""

    model: ConsoleModel
    goal_id: str | None
    past: PastView | None
    filter_text: str
    filter_open: bool

    if TYPE_CHECKING:

        @property
        def goal(self) -> GoalView | None: ...
        @property
        def console(self) -> ConsoleHost: ...

        focused: Widget | None

        def query_one(self, selector: Any, expect_type: Any = None) -> Any: ...
        def post_message(self, message: Message) -> bool: ...

    # ----- asking the app (messages: the screen never imports it)

    def _dispatch(self, request: requests.Request, refresh: Sequence[Path] = ()) -> None:
        self.post_message(TransitionRequested(request, refresh))

    def _open_form(self, form: TransitionForm[Any], done: Callable[[Any], None]) -> None:
        self.post_message(FormRequested(form, done))

    # ----- what the focus addresses

    def context(self) -> str | None:
        """The panel holding the focus."""
        node: Any = self.focused
        while node is not None:
            if getattr(node, "id", None) in PANELS:
                return str(node.id)
            node = node.parent
        return None

    def focused_work(self) -> WorkView | None:
        goal = self.goal
        context = self.context()
        if goal is None or goal.state == "corrupt" or context not in WORK_CONTEXTS:
            return None
        if context == "findings":
            selected = self.query_one("#findings").selected
            return goal.work_item(selected.id) if selected is not None else None
        work_id = self.query_one("#graph").work_id_at_cursor
        return goal.work_item(work_id) if work_id else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        goal = self.goal
        if action == "back_to_now":
            return self.past is not None
        if action == "clear_filter":
            return bool(self.filter_text) or self.filter_open
        if action == "next_decision":
            return bool(self.console.decisions)
        if self.past is not None and action in PAST_DISABLED:
            return False
        if action in PLAN_ACTIONS:
            if goal is None or goal.state == "corrupt" or self.context() not in PLAN_CONTEXTS:
                return False
            if action == "retry_plan":
                return retry_eligibility(goal).eligible
            if action == "reopen_plan":
                latest = goal.latest_plan
                return latest is not None and plan_reopen(goal, latest).holds
            return pending_proposal(goal) is not None
        if action in WORK_ACTIONS:
            work = self.focused_work()
            if work is None:
                return False
            if action == "accept_work":
                return work_accept(work).holds
            if action == "reopen_work":
                return work_reopen(work).holds
            if action == "cancel_work":
                return work_cancel(work).holds
            approval_id = pending_approval(work)
            return approval_id is not None and approval_decide(work, approval_id).holds
        if action == "show_diff":
            work = self.focused_work()
            return work is not None and bool(diffable_attempts(work, self.model.proof))
        if action == "tick_goal":
            return goal is not None and goal.state != "corrupt" and not is_standalone(goal)
        return True

    # ----- plan verbs

    def _plan_events(self, goal_id: str, plan_id: str) -> list[Path]:
        return [self.model.layout.plan(goal_id, plan_id) / EVENTS]

    def action_approve_plan(self) -> None:
        goal = self.goal
        plan = pending_proposal(goal) if goal is not None else None
        if goal is None or plan is None:
            return
        self._dispatch(requests.approve_plan(goal.id, plan.id), self._plan_events(goal.id, plan.id))

    def action_reject_plan(self) -> None:
        goal = self.goal
        plan = pending_proposal(goal) if goal is not None else None
        if goal is None or plan is None:
            return
        goal_id, plan_id = goal.id, plan.id
        context = lines(
            [
                label("goal", goal_id),
                label("plan", f"{plan_id} (#{plan.sequence}, {plan.trigger})"),
                label("rationale", plan.rationale or "(none)"),
                Content.styled("The reason reaches the next planner request.", "dim"),
            ]
        )

        self._plan_reason_form(f"Reject plan {plan_id}", "Reject", context, requests.reject_plan, goal_id, plan_id)

    def action_retry_plan(self) -> None:
        goal = self.goal
        if goal is None:
            return
        eligibility = retry_eligibility(goal)
        plan_id = eligibility.plan_id
        if plan_id is None:
            return
        goal_id = goal.id
        context = lines(
            [
                eligibility_content(eligibility),
                Content.styled("The reason reaches the planner's next request for this goal.", "dim"),
            ]
        )

        self._plan_reason_form(
            f"Retry plan {plan_id}",
            "Retry",
            context,
            requests.retry_plan,
            goal_id,
            plan_id,
            allowed=eligibility.eligible,
        )

    def action_reopen_plan(self) -> None:
        goal = self.goal
        plan = goal.latest_plan if goal is not None else None
        if goal is None or plan is None or not plan_reopen(goal, plan).holds:
            return
        goal_id, plan_id = goal.id, plan.id
        mission = goal.intent.mission if goal.intent is not None else None
        done_count = f"{goal.milestones_completed} of {mission.max_milestones}" if mission is not None else "?"
        context = lines(
            [
                label("goal", goal_id),
                label("plan", f"{plan_id} (#{plan.sequence}, completed)"),
                label("milestones", f"{done_count} completed"),
                label("rationale", plan.rationale or "(none)"),
                Content.styled("The reason reaches the planner's request for the next milestone.", "dim"),
            ]
        )

        self._plan_reason_form(
            f"Reopen mission: plan {plan_id}", "Reopen", context, requests.reopen_plan, goal_id, plan_id
        )

    def _plan_reason_form(
        self,
        title: str,
        submit: str,
        context: Content,
        request: Callable[[str, str, str], requests.Request],
        goal_id: str,
        plan_id: str,
        allowed: bool = True,
    ) -> None:
        """A required-reason form for a plan verb; its answer dispatches `request(goal, plan, reason)`."""

        def done(answer: ReasonAnswer | None) -> None:
            if answer is not None and answer.reason:
                self._dispatch(request(goal_id, plan_id, answer.reason), self._plan_events(goal_id, plan_id))

        form = ReasonForm(title, context, required=True, submit_label=submit, allowed=allowed)
        self._open_form(form, done)

    # ----- work verbs

    def _work_events(self, work_id: str) -> list[Path]:
        return [self.model.layout.work(work_id) / EVENTS]

    def _work_context(self, work: WorkView) -> Content:
        return lines([label("work", f"{work.id} — {work.title}"), label("state", f"{work.state}: {work.reason}")])

    def action_accept_work(self) -> None:
        work = self.focused_work()
        if work is None:
            return
        work_id = work.id

        def done(answer: AcceptAnswer | None) -> None:
            if answer is not None:
                self._dispatch(
                    requests.accept_work(work_id, answer.dispositions, answer.reason), self._work_events(work_id)
                )

        self._open_form(AcceptForm(work_id, self._work_context(work), list(work.open_findings)), done)

    def action_reopen_work(self) -> None:
        work = self.focused_work()
        if work is None:
            return
        work_id = work.id

        def done(answer: ReopenAnswer | None) -> None:
            if answer is not None:
                self._dispatch(
                    requests.reopen_work(work_id, answer.findings, answer.reason), self._work_events(work_id)
                )

        self._open_form(ReopenForm(work_id, self._work_context(work)), done)

    def action_cancel_work(self) -> None:
        work = self.focused_work()
        if work is None:
            return
        work_id = work.id
        context = lines(
            [
                self._work_context(work),
                Content.styled("Cancelling stops this item from being scheduled; a reopen undoes it.", "dim"),
            ]
        )

        def done(answer: ReasonAnswer | None) -> None:
            if answer is not None:
                self._dispatch(requests.cancel_work(work_id, answer.reason), self._work_events(work_id))

        form = ReasonForm(f"Cancel work {work_id}?", context, required=False, submit_label="Cancel work")
        self._open_form(form, done)

    def _approval_paths(self, approval_id: str) -> list[Path]:
        return [self.model.layout.approval(approval_id) / "decision.json"]

    def action_approve_request(self) -> None:
        work = self.focused_work()
        approval_id = pending_approval(work) if work is not None else None
        if approval_id is None:
            return
        self._dispatch(requests.decide_request(approval_id, "approve", None), self._approval_paths(approval_id))

    def action_deny_request(self) -> None:
        work = self.focused_work()
        approval_id = pending_approval(work) if work is not None else None
        if work is None or approval_id is None:
            return
        approval = self.model.approval(approval_id)
        question = approval.request.question if approval is not None and approval.request is not None else "?"
        context = lines([self._work_context(work), label("question", question)])

        def done(answer: ReasonAnswer | None) -> None:
            if answer is not None:
                self._dispatch(
                    requests.decide_request(approval_id, "deny", answer.reason), self._approval_paths(approval_id)
                )

        form = ReasonForm(f"Deny request {approval_id}", context, required=False, submit_label="Deny")
        self._open_form(form, done)

    # ----- goal verbs

    def action_tick_goal(self) -> None:
        goal = self.goal
        if goal is None:
            return
        refresh = [self.model.layout.goal(goal.id)]
        refresh += [self.model.layout.work(w) / EVENTS for w in goal.governed_work_ids]
        self.post_message(TickRequested(goal.id, refresh))

    def action_toggle_supervisor(self) -> None:
        self.post_message(SupervisorToggleRequested())
