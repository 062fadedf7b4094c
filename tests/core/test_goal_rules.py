"""The goal's thirteen rules, one minimal real tree each: the projection names the rule that decided it."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

import pytest

from harn_tui.core import rules
from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease
from harn_tui.core.projection import GoalView, project_goal
from harn_tui.core.records import AttemptStarted
from harn_tui.core.tree import Tree
from tests.core import journal_builders as b
from tests.tui.builders import approval_request


def project(layout: Layout) -> GoalView:
    return project_goal(Tree.load(layout), "g")


def blocked_root(layout: Layout, **goal: object) -> None:
    """A root whose one attempt failed and used its only charged attempt (blocked/none)."""
    b.work(layout, "root", max_attempts=1)
    b.goal(layout, "g", root="root", **goal)  # type: ignore[arg-type]
    b.attempt(layout, "root", "a1", status="failed", number=1)


def plan_after(layout: Layout, plan_id: str, *events: tuple[str, dict[str, object]], decision: str = "apply") -> None:
    view = project(layout)
    b.plan(
        layout,
        "g",
        plan_id,
        sequence=1,
        fingerprint=view.graph_fingerprint,
        prior_root=view.active_root,
        decision=decision,
        events=events,
        work=({"key": "fix", "title": "Fix", "objective": "Fix it", "template": "implement"},),
        root_key="fix",
    )


def rule_1(layout: Layout) -> Iterator[None]:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    with (layout.work("root") / "events.jsonl").open("ab") as handle:
        handle.write(b'{"schema_version": 1, "seq": 2,,}\n')
    yield


def rule_2(layout: Layout) -> Iterator[None]:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    b.attempt(layout, "root", "a1", status="passed", number=1)
    b.accept(layout, "root", "a1")
    yield


def rule_3(layout: Layout) -> Iterator[None]:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    lease = HeldLease(layout.run("run-live") / "lease", "run")
    b.event(layout, "root", AttemptStarted, run_id="run-live", attempt=1, trigger="initial")
    yield
    lease.release()


def rule_4(layout: Layout) -> Iterator[None]:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    yield


def rule_5(layout: Layout) -> Iterator[None]:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    b.attempt(layout, "root", "a1", status="parked", number=1)
    approval_request(layout, "root", "a1", "g", "may I?")
    yield


def rule_6(layout: Layout) -> Iterator[None]:
    b.work(layout, "root")
    b.goal(layout, "g", root="root")
    b.attempt(layout, "root", "a1", status="passed", number=1)
    yield


def rule_7(layout: Layout) -> Iterator[None]:
    blocked_root(layout)
    plan_after(layout, "plan-0001-aaaaaaaa", ("plan.proposed", {}))
    yield


def rule_8(layout: Layout) -> Iterator[None]:
    blocked_root(layout)
    plan_after(
        layout,
        "plan-0001-aaaaaaaa",
        ("plan.proposed", {}),
        ("plan.attention", {"reason": "unclear"}),
        decision="attention",
    )
    yield


def rule_9(layout: Layout) -> Iterator[None]:
    b.work(layout, "root", max_attempts=5)
    b.goal(layout, "g", root="root", max_total_attempts=1)
    b.attempt(layout, "root", "a1", status="failed", number=1)
    yield


def rule_10(layout: Layout) -> Iterator[None]:
    b.work(layout, "root", max_attempts=3)
    b.goal(layout, "g", root="root")
    b.attempt(layout, "root", "a1", status="failed", number=1)
    yield


def rule_11(layout: Layout) -> Iterator[None]:
    blocked_root(layout)
    yield


def rule_12(layout: Layout) -> Iterator[None]:
    blocked_root(layout, max_replans=1)
    plan_after(layout, "plan-0001-aaaaaaaa", ("plan.proposed", {}), ("plan.rejected", {"reason": "no"}))
    yield


def rule_13(layout: Layout) -> Iterator[None]:
    blocked_root(layout, replanning=False)
    yield


TABLE: dict[int, tuple[Callable[[Layout], Iterator[None]], str, str]] = {
    1: (rule_1, "corrupt", "none"),
    2: (rule_2, "succeeded", "none"),
    3: (rule_3, "running", "wait"),
    4: (rule_4, "ready", "run"),
    5: (rule_5, "awaiting_attention", "resolve_approval"),
    6: (rule_6, "awaiting_attention", "review"),
    7: (rule_7, "awaiting_attention", "review_plan"),
    8: (rule_8, "awaiting_attention", "retry_plan"),
    9: (rule_9, "budget_exhausted", "none"),
    10: (rule_10, "blocked", "retry"),
    11: (rule_11, "ready", "replan"),
    12: (rule_12, "budget_exhausted", "none"),
    13: (rule_13, "blocked", "none"),
}


@pytest.mark.parametrize("number", sorted(TABLE))
def test_each_goal_rule_decides_its_own_minimal_tree(layout: Layout, number: int) -> None:
    build, state, action = TABLE[number]
    scenario = build(layout)
    next(scenario)
    view = project(layout)
    assert (view.rule, view.state, view.next_action) == (number, state, action), view.reason
    assert (view.pending_plan_id is not None) == (number == 7)
    assert (view.attention_plan_id is not None) == (number == 8)
    next(scenario, None)


def test_the_rules_are_walked_in_their_numbered_order() -> None:
    steps = [rules.goal_rule_1_corrupt, *rules.GOAL_RULES, rules.goal_rule_13_blocked]
    names = [re.fullmatch(r"goal_rule_(\d+)_\w+", step.__name__) for step in steps]
    numbers = [int(name.group(1)) if name else 0 for name in names]
    assert numbers == list(range(1, 14))
    assert all((step.__doc__ or "").startswith(f"{n}. ") for n, step in zip(numbers, steps, strict=True))
