"""Host validation of planner replies: one invalid proposal per invariant, each named by its JSON path."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harn_tui.core.planning import PlanRules, check_planner_reply
from harn_tui.core.records import FrozenTemplate

SHA = "0" * 64
CATALOG = {
    "implement": FrozenTemplate(path="/t/implement.py", sha256=SHA, root=True),
    "investigate": FrozenTemplate(path="/t/investigate.py", sha256=SHA, root=False),
}


def rules(**overrides: Any) -> PlanRules:
    values: dict[str, Any] = {
        "trigger": "recovery",
        "is_mission": False,
        "catalog": CATALOG,
        "active_ids": frozenset({"root-work"}),
        "max_items_per_plan": 4,
        "items_remaining": 10,
        "milestones_completed": 0,
        "max_milestones": None,
    }
    return PlanRules(**(values | overrides))


def work(key: str, template: str = "implement", deps: tuple[str, ...] = ()) -> dict[str, Any]:
    return {
        "key": key,
        "title": f"Do {key}",
        "objective": "Do it.",
        "acceptance": ["done"],
        "dependencies": list(deps),
        "template": template,
    }


def apply(*items: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"decision": "apply", "rationale": "Because.", "work": list(items), **extra}


def problems_of(reply: Any, plan_rules: PlanRules | None = None) -> list[tuple[str, str]]:
    text = reply if isinstance(reply, str) else json.dumps(reply)
    checked = check_planner_reply(text, plan_rules or rules())
    return [(p.path, p.message) for p in checked.problems]


def test_a_valid_reply_defaults_the_root_to_the_one_key_nobody_depends_on() -> None:
    checked = check_planner_reply(
        json.dumps(apply(work("look", "investigate", deps=("root-work",)), work("fix", deps=("look",)))), rules()
    )
    assert checked.problems == () and checked.valid is not None and checked.valid.root == "fix"


MILESTONE = {"sequence": 1, "title": "First", "objective": "Start.", "acceptance": []}

INVALID: list[tuple[str, Any, PlanRules, str, str]] = [
    ("not JSON", "{decision: apply", rules(), "$", "not JSON"),
    ("not an object", "[1, 2]", rules(), "$", "one JSON object"),
    ("unknown decision", {"decision": "maybe", "rationale": "x"}, rules(), "$.decision", "Input should be"),
    ("missing rationale", {"decision": "attention"}, rules(), "$.rationale", "Field required"),
    ("unknown field", {"decision": "attention", "rationale": "x", "mood": 1}, rules(), "$.mood", "Extra inputs"),
    ("malformed key", apply(work("Fix_It")), rules(), "$.work[0].key", "String should match pattern"),
    ("key too long", apply(work("k" + "x" * 32)), rules(), "$.work[0].key", "pattern"),
    ("duplicate key", apply(work("fix"), work("fix", deps=("fix",))), rules(), "$.work[1].key", "not unique"),
    (
        "template outside the catalog",
        apply(work("fix", "rm-rf")),
        rules(),
        "$.work[0].template",
        "not in the frozen catalog",
    ),
    (
        "dependency on unknown work",
        apply(work("fix", deps=("work-elsewhere",))),
        rules(),
        "$.work[0].dependencies[0]",
        "neither active work nor an earlier key",
    ),
    (
        "dependency on a later key",
        apply(work("a", deps=("b",)), work("b", "investigate"), root="a"),
        rules(),
        "$.work[0].dependencies[0]",
        "later key",
    ),
    (
        "dependency cycle",
        apply(work("a", "investigate", deps=("b",)), work("b", deps=("a",))),
        rules(),
        "$.work[0].dependencies[0]",
        "cycle: a -> b -> a",
    ),
    ("self dependency", apply(work("a", deps=("a",))), rules(), "$.work[0].dependencies[0]", "depends on itself"),
    ("several roots", apply(work("a"), work("b")), rules(), "$.root", "several keys (a, b)"),
    ("root not root-capable", apply(work("look", "investigate")), rules(), "$.root", "not root-capable"),
    (
        "root does not reach every item",
        apply(work("look", "investigate"), work("fix"), root="fix"),
        rules(),
        "$.root",
        "does not reach look",
    ),
    (
        "root is existing work",
        apply(work("fix"), root="root-work"),
        rules(),
        "$.root",
        "existing work cannot be the new root",
    ),
    ("root names no key", apply(work("fix"), root="other"), rules(), "$.root", "not a key of this plan"),
    (
        "per-plan bound",
        apply(*(work(f"s{n}", deps=(f"s{n - 1}",) if n else ()) for n in range(5))),
        rules(),
        "$.work",
        "exceed max_work_items_per_plan (4)",
    ),
    (
        "cumulative bound",
        apply(work("a", "investigate"), work("b", deps=("a",))),
        rules(items_remaining=1),
        "$.work",
        "exceed the 1 left of max_total_work_items",
    ),
    ("apply without work", apply(), rules(), "$.work", "at least one work item"),
    (
        "attention with work",
        {"decision": "attention", "rationale": "x", "work": [work("a")]},
        rules(),
        "$.work",
        "proposes no work",
    ),
    (
        "complete outside a mission",
        {"decision": "complete", "rationale": "done"},
        rules(),
        "$.decision",
        "only allowed for a mission at a milestone trigger",
    ),
    (
        "complete at a recovery trigger",
        {"decision": "complete", "rationale": "done"},
        rules(is_mission=True, max_milestones=3),
        "$.decision",
        "trigger is recovery",
    ),
    (
        "mission apply without milestone",
        apply(work("fix")),
        rules(is_mission=True, max_milestones=3),
        "$.milestone",
        "needs a milestone",
    ),
    (
        "milestone out of sequence",
        apply(work("fix"), milestone=MILESTONE | {"sequence": 3}),
        rules(is_mission=True, max_milestones=4, milestones_completed=1),
        "$.milestone.sequence",
        "must be 2",
    ),
    (
        "milestone beyond max_milestones",
        apply(work("fix"), milestone=MILESTONE | {"sequence": 3}),
        rules(is_mission=True, max_milestones=2, milestones_completed=2),
        "$.milestone.sequence",
        "exceeds max_milestones (2)",
    ),
    (
        "milestone without a mission",
        apply(work("fix"), milestone=MILESTONE),
        rules(),
        "$.milestone",
        "only for a goal with a mission",
    ),
    ("blank title", apply(work("fix") | {"title": "   "}), rules(), "$.work[0].title", "at least 1 character"),
]


@pytest.mark.parametrize(
    ("reply", "plan_rules", "path", "message"), [case[1:] for case in INVALID], ids=[case[0] for case in INVALID]
)
def test_each_invariant_rejects_its_invalid_proposal(
    reply: Any, plan_rules: PlanRules, path: str, message: str
) -> None:
    found = problems_of(reply, plan_rules)
    assert any(p == path and message in m for p, m in found), found


def test_complete_is_valid_for_a_mission_at_a_milestone_trigger() -> None:
    reply = {"decision": "complete", "rationale": "Every acceptance criterion holds."}
    assert problems_of(reply, rules(trigger="milestone", is_mission=True, max_milestones=3)) == []


def test_a_retry_input_quotes_the_raw_text_when_the_reply_was_not_json() -> None:
    checked = check_planner_reply("I think we should...", rules())
    assert checked.previous == "I think we should..."
