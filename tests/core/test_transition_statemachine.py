"""Random sequences of operator transitions and supervisor-like events over a small goal. After every step:
every log is gapless, a refusal wrote nothing, a repeat wrote nothing, an applied transition wrote exactly its
event, accept never passed an undisposed finding, retry only applied to the latest attention plan, and the
replan budget held."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from harn_tui.core.creation import create_work, init_tree
from harn_tui.core.errors import Refused, UsageError
from harn_tui.core.projection import GoalView, WorkView
from harn_tui.core.transitions import (
    Outcome,
    accept_work,
    approve_plan,
    cancel_work,
    parse_disposition,
    reject_plan,
    reopen_work,
    retry_plan,
)
from harn_tui.core.verify import verify_tree
from tests.conftest import EXAMPLES, tree_bytes
from tests.plan_builders import GOAL, ROOT_WORK, add_plan, goal_view, make_goal, record_attempt

MAX_REPLANS = 3
REASONS = st.sampled_from(["no", "narrow it", "use the new parser"])
DISPOSITIONS = st.lists(st.sampled_from(["f1=fixed", "f2=deferred:later: maybe", "f3=fixed"]), max_size=3)
INDEX = st.one_of(st.just(0), st.integers(0, 5))
FINDINGS: st.SearchStrategy[list[str]] = st.one_of(
    st.just([]), st.lists(st.sampled_from(["wrong", "untested", "slow"]), min_size=1, max_size=2)
)


def event_count(root: Path) -> int:
    return sum(len(log.read_bytes().split(b"\n")) - 1 for log in (root / ".harnery").rglob("events.jsonl"))


class TransitionMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.directory = Path(tempfile.mkdtemp(prefix="harn-machine-"))
        examples = self.directory / "examples"
        shutil.copytree(EXAMPLES, examples)
        (self.directory / "root").mkdir()
        self.layout = init_tree(self.directory / "root")
        create_work(
            self.layout,
            title="Dependency",
            template=examples / "templates" / "implement.py",
            objective="First.",
            acceptance=["first"],
            max_attempts=2,
            work_id="work-dep",
            actor="tester",
        )
        create_work(
            self.layout,
            title="Root",
            template=examples / "templates" / "implement.py",
            objective="Then.",
            acceptance=["then"],
            depends_on=["work-dep"],
            max_attempts=2,
            work_id=ROOT_WORK,
            actor="tester",
        )
        make_goal(self.layout, examples, root_work=ROOT_WORK, create_root=False, max_replans=MAX_REPLANS)
        self._goal: GoalView | None = None

    def teardown(self) -> None:
        shutil.rmtree(self.directory, ignore_errors=True)

    # ----- helpers

    @property
    def goal(self) -> GoalView:
        """The goal's projection, re-read after every change (preconditions and invariants share it)."""
        if self._goal is None:
            self._goal = goal_view(self.layout, GOAL)
        return self._goal

    def changed(self) -> None:
        self._goal = None

    def pick_work(self, index: int) -> str:
        """Index 0 is the first item waiting for an operator (in review, else cancelled); others cycle through
        every governed item, superseded ones included."""
        work = self.goal.work
        for state in ("in_review", "cancelled"):
            waiting = [w for w in work if w.active and w.state == state]
            if index == 0 and waiting:
                return waiting[0].id
        return work[index % len(work)].id

    def pick_plan(self, index: int) -> str | None:
        """Index 0 is the latest plan (the one most rules can act on); others cycle through history."""
        plans = self.goal.plans
        return plans[-1 - index % len(plans)].id if plans else None

    def operate(self, call: Callable[[], Outcome], written: int = 1) -> Outcome | None:
        """Run one transition; a refusal or repeat writes nothing, an application exactly `written` events."""
        before, count = tree_bytes(self.layout.root), event_count(self.layout.root)
        self.changed()
        try:
            outcome = call()
        except (Refused, UsageError):
            assert tree_bytes(self.layout.root) == before, "a refusal wrote something"
            return None
        if outcome.outcome == "already_done":
            assert tree_bytes(self.layout.root) == before, "a repeat wrote something"
        else:
            assert event_count(self.layout.root) == count + written
        return outcome

    @initialize(stuck=st.booleans())
    def start(self, stuck: bool) -> None:
        """Half the runs start where the planner is due: the dependency accepted, the root failed on a decision."""
        if stuck:
            record_attempt(self.layout, "work-dep", passed=True)
            accept_work(self.layout, "work-dep", actor="alice")
            record_attempt(self.layout, ROOT_WORK, passed=False, class_="decision")
            self.changed()
            assert self.goal.next_action == "replan"

    # ----- supervisor-like events

    def dispatchable(self) -> list[WorkView]:
        goal = self.goal
        if goal.attempts_remaining <= 0:
            return []
        due = (("ready", "run"), ("blocked", "retry"))
        return [w for w in goal.work if w.active and (w.state, w.next_action) in due]

    @precondition(lambda self: bool(self.dispatchable()))
    @rule(passed=st.booleans(), cls=st.sampled_from([None, "upstream", "decision"]))
    def attempt(self, passed: bool, cls: str | None) -> None:
        """The supervisor runs the first dispatchable item of the active graph."""
        item = self.dispatchable()[0]
        trigger = "retry" if item.state == "blocked" else ("reopen" if item.attempts_used else "initial")
        record_attempt(self.layout, item.id, passed=passed, class_=None if passed else cls, trigger=trigger)
        self.changed()

    @precondition(lambda self: self.goal.next_action in ("replan", "plan_initial", "plan_milestone"))
    @rule(decision=st.sampled_from(["apply", "attention"]), via_reviewers=st.booleans())
    def propose(self, decision: str, via_reviewers: bool) -> None:
        add_plan(self.layout, GOAL, decision=decision, via_reviewers=via_reviewers and decision == "attention")
        self.changed()

    # ----- operator transitions

    @precondition(lambda self: bool(self.goal.plans))
    @rule(index=INDEX)
    def approve(self, index: int) -> None:
        plan_id = self.pick_plan(index)
        if plan_id is None:
            return
        before = self.goal.plan(plan_id)
        assert before is not None
        items = len(before.proposal.work) if before.proposal is not None else 0
        outcome = self.operate(lambda: approve_plan(self.layout, GOAL, plan_id, actor="alice"), 1 + items)
        if outcome is not None and outcome.applied:
            assert before.status == "proposed" and self.goal.latest_plan is not None
            assert self.goal.active_root == outcome.to_json()["event"]["root_work_id"]

    @precondition(lambda self: bool(self.goal.plans))
    @rule(index=INDEX, reason=REASONS)
    def reject(self, index: int, reason: str) -> None:
        plan_id = self.pick_plan(index)
        if plan_id is not None:
            self.operate(lambda: reject_plan(self.layout, GOAL, plan_id, actor="alice", reason=reason))

    @precondition(lambda self: bool(self.goal.plans))
    @rule(index=INDEX, reason=REASONS)
    def retry(self, index: int, reason: str) -> None:
        plan_id = self.pick_plan(index)
        if plan_id is None:
            return
        goal = self.goal
        outcome = self.operate(lambda: retry_plan(self.layout, GOAL, plan_id, actor="alice", reason=reason))
        if outcome is not None and outcome.applied:
            latest = goal.latest_plan
            assert latest is not None and latest.id == plan_id and latest.status == "attention"
            assert goal.attention_plan_id == plan_id and goal.next_action == "retry_plan"

    @rule(index=INDEX, texts=DISPOSITIONS, arbitrary=st.integers(0, 3))
    def accept(self, index: int, texts: list[str], arbitrary: int) -> None:
        """Mostly the dispositions an attentive operator gives (one per open finding), else arbitrary ones. Work
        in review with open findings is first offered every finding but one, which must be refused."""
        work_id = self.pick_work(index)
        item = self.goal.work_item(work_id)
        assert item is not None
        attentive = [
            f"{f.id}=fixed" if n % 2 else f"{f.id}=deferred:out of scope" for n, f in enumerate(item.open_findings)
        ]
        if item.state == "in_review" and attentive:
            partial = [parse_disposition(text) for text in attentive[:-1]]
            slipped = self.operate(lambda: accept_work(self.layout, work_id, actor="alice", dispositions=partial))
            assert slipped is None, "accept passed with an open finding left undisposed"
        dispositions = [parse_disposition(text) for text in (attentive if arbitrary else texts)]
        outcome = self.operate(lambda: accept_work(self.layout, work_id, actor="alice", dispositions=dispositions))
        if outcome is not None and outcome.applied:
            assert item.state == "in_review"
            assert {f.id for f in item.open_findings} == {d.id for d in dispositions}, "an open finding slipped by"
            after = self.goal.work_item(work_id)
            assert after is not None and after.state == "succeeded" and after.open_findings == ()

    @rule(index=INDEX, findings=FINDINGS)
    def reopen(self, index: int, findings: list[str]) -> None:
        work_id = self.pick_work(index)
        outcome = self.operate(lambda: reopen_work(self.layout, work_id, actor="alice", findings=findings))
        if outcome is not None and outcome.applied and findings:
            after = self.goal.work_item(work_id)
            assert after is not None and [f.statement for f in after.open_findings] == findings

    @rule(index=INDEX, reason=st.sampled_from([None, "stop"]), rarely=st.integers(0, 3))
    def cancel(self, index: int, reason: str | None, rarely: int) -> None:
        """Operators cancel rarely (a cancelled item stops the goal until a reopen)."""
        if rarely:
            return
        work_id = self.pick_work(index)
        self.operate(lambda: cancel_work(self.layout, work_id, actor="alice", reason=reason))

    # ----- invariants

    @invariant()
    def logs_are_gapless_and_the_tree_verifies(self) -> None:
        assert verify_tree(self.layout) == []

    @invariant()
    def replans_stay_within_the_frozen_bound(self) -> None:
        goal = self.goal
        assert goal.state != "corrupt", goal.reason
        assert goal.replans_used <= MAX_REPLANS
        assert goal.replans_remaining == MAX_REPLANS - goal.replans_used


TransitionMachine.TestCase.settings = settings(
    max_examples=30,
    stateful_step_count=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_transitions_keep_their_invariants = TransitionMachine.TestCase
