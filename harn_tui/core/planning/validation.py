"""Host validation of a planner reply: structure, then every rule of SPEC section 7, as JSON-path problems."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from harn_tui.core.records import FrozenTemplate, PlannerReply
from harn_tui.core.records.plan import Problem

MAX_PREVIOUS_REPLY_CHARS = 65_536
MAX_REPLY_DEPTH = 64


@dataclass(frozen=True)
class PlanRules:
    """What a reply is checked against: the request's trigger and the goal's frozen authority and budgets."""

    trigger: str
    is_mission: bool
    catalog: Mapping[str, FrozenTemplate]
    active_ids: frozenset[str]
    max_items_per_plan: int
    items_remaining: int
    milestones_completed: int
    max_milestones: int | None


@dataclass(frozen=True)
class ValidReply:
    reply: PlannerReply
    root: str | None


@dataclass(frozen=True)
class Checked:
    """A reply checked: `valid` when there are no problems; `previous` is what a retry input quotes."""

    valid: ValidReply | None
    problems: tuple[Problem, ...]
    previous: Any


def json_path(location: tuple[int | str, ...]) -> str:
    """`('work', 0, 'key')` -> `$.work[0].key`."""
    path = "$"
    for part in location:
        path += f"[{part}]" if isinstance(part, int) else f".{part}"
    return path


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _storable_text(text: str) -> str:
    """The raw reply as a retry input quotes it: bounded, and encodable as UTF-8 (lone surrogates replaced)."""
    return text[:MAX_PREVIOUS_REPLY_CHARS].encode("utf-8", "replace").decode("utf-8")


def _hostile_shape(value: Any) -> str | None:
    """Why a parsed reply cannot be stored as a record (nested too deep, a lone surrogate), else None.

    Walked without recursion, so a hostile depth costs memory only in proportion to the (bounded) reply."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_REPLY_DEPTH:
                return f"the reply is nested deeper than {MAX_REPLY_DEPTH} levels"
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return "the reply holds a lone surrogate (\\ud800-\\udfff), which is not UTF-8 text"
    return None


def parse_json_object(text: str) -> tuple[Any, list[Problem]]:
    """(the parsed value or the raw text, problems): a reply must be exactly one JSON object.

    Hostile replies are problems, never crashes: nesting past the parser's recursion or `MAX_REPLY_DEPTH`,
    `NaN`/`Infinity` (not JSON) and lone surrogates (not storable as UTF-8) all get the raw text quoted back."""
    try:
        value = json.loads(text, parse_constant=_reject_constant)
    except ValueError as error:
        return _storable_text(text), [Problem(path="$", message=f"the reply is not JSON: {error}")]
    except RecursionError:
        return _storable_text(text), [
            Problem(path="$", message=f"the reply is nested deeper than {MAX_REPLY_DEPTH} levels")
        ]
    hostile = _hostile_shape(value)
    if hostile is not None:
        return _storable_text(text), [Problem(path="$", message=hostile)]
    if not isinstance(value, dict):
        return value, [Problem(path="$", message=f"the reply must be one JSON object, not {type(value).__name__}")]
    return value, []


def structural_problems(value: dict[str, Any], model: type[BaseModel]) -> tuple[BaseModel | None, list[Problem]]:
    try:
        return model.model_validate(value), []
    except ValidationError as error:
        return None, [
            Problem(path=json_path(tuple(e["loc"])), message=e["msg"]) for e in error.errors(include_url=False)
        ]


def check_planner_reply(text: str, rules: PlanRules) -> Checked:
    value, problems = parse_json_object(text)
    if problems:
        return Checked(None, tuple(problems), value)
    model, problems = structural_problems(value, PlannerReply)
    if model is None:
        return Checked(None, tuple(problems), value)
    assert isinstance(model, PlannerReply)
    root, semantic = semantic_problems(model, rules)
    if semantic:
        return Checked(None, tuple(semantic), value)
    return Checked(ValidReply(model, root), (), value)


def semantic_problems(reply: PlannerReply, rules: PlanRules) -> tuple[str | None, list[Problem]]:
    """(the resolved root key, problems) for a structurally valid reply."""
    problems = _decision_problems(reply, rules)
    if reply.decision != "apply":
        return None, problems
    problems += _item_problems(reply, rules)
    root, root_problems = _root_problems(reply, rules)
    problems += root_problems
    problems += _bound_problems(reply, rules)
    problems += _milestone_problems(reply, rules)
    return root, problems


def _decision_problems(reply: PlannerReply, rules: PlanRules) -> list[Problem]:
    problems: list[Problem] = []
    if reply.decision == "complete" and not (rules.is_mission and rules.trigger == "milestone"):
        problems.append(
            Problem(
                path="$.decision",
                message=(
                    "complete is only allowed for a mission at a milestone trigger "
                    f"(this request's trigger is {rules.trigger})"
                ),
            )
        )
    if reply.decision == "apply":
        if not reply.work:
            problems.append(Problem(path="$.work", message="an apply decision needs at least one work item"))
        return problems
    if reply.work:
        problems.append(Problem(path="$.work", message=f"a {reply.decision} decision proposes no work"))
    if reply.root is not None:
        problems.append(Problem(path="$.root", message=f"a {reply.decision} decision has no root"))
    if reply.milestone is not None:
        problems.append(Problem(path="$.milestone", message=f"a {reply.decision} decision has no milestone"))
    return problems


def _item_problems(reply: PlannerReply, rules: PlanRules) -> list[Problem]:
    problems: list[Problem] = []
    index_of: dict[str, int] = {}
    for index, item in enumerate(reply.work):
        if item.key in index_of:
            problems.append(
                Problem(
                    path=f"$.work[{index}].key",
                    message=(f"key {item.key!r} is not unique (also $.work[{index_of[item.key]}].key)"),
                )
            )
        else:
            index_of[item.key] = index
    for index, item in enumerate(reply.work):
        if item.template not in rules.catalog:
            problems.append(
                Problem(
                    path=f"$.work[{index}].template",
                    message=(
                        f"template {item.template!r} is not in the frozen catalog ({', '.join(sorted(rules.catalog))})"
                    ),
                )
            )
        problems += _dependency_problems(reply, index, index_of, rules)
    return problems


def _dependency_problems(
    reply: PlannerReply, index: int, index_of: Mapping[str, int], rules: PlanRules
) -> list[Problem]:
    problems: list[Problem] = []
    item = reply.work[index]
    seen: set[str] = set()
    for position, dependency in enumerate(item.dependencies):
        path = f"$.work[{index}].dependencies[{position}]"
        if dependency in seen:
            problems.append(Problem(path=path, message=f"dependency {dependency!r} is named twice"))
            continue
        seen.add(dependency)
        if dependency in index_of:
            other = index_of[dependency]
            if other == index:
                problems.append(Problem(path=path, message=f"{item.key!r} depends on itself (a cycle)"))
            elif other > index:
                cycle = _cycle_through(reply, item.key, index_of)
                message = (
                    f"dependencies form a cycle: {' -> '.join(cycle)}"
                    if cycle
                    else f"dependency {dependency!r} is a later key; dependencies name active work or earlier keys"
                )
                problems.append(Problem(path=path, message=message))
        elif dependency not in rules.active_ids:
            problems.append(
                Problem(
                    path=path,
                    message=(f"dependency {dependency!r} is neither active work nor an earlier key of this plan"),
                )
            )
    return problems


def _cycle_through(reply: PlannerReply, start: str, index_of: Mapping[str, int]) -> list[str]:
    """A dependency path from `start` back to itself over the plan's keys, or [] if there is none."""
    edges = {item.key: [d for d in item.dependencies if d in index_of] for item in reply.work}
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    visited: set[str] = set()
    while stack:
        key, path = stack.pop()
        for nxt in edges.get(key, []):
            if nxt == start:
                return [*path, start]
            if nxt not in visited:
                visited.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return []


def _root_problems(reply: PlannerReply, rules: PlanRules) -> tuple[str | None, list[Problem]]:
    keys = [item.key for item in reply.work]
    if not keys:
        return None, []
    root = reply.root
    if root is None:
        depended = {d for item in reply.work for d in item.dependencies}
        candidates = [key for key in dict.fromkeys(keys) if key not in depended]
        if len(candidates) != 1:
            which = "no key" if not candidates else f"several keys ({', '.join(candidates)})"
            return None, [
                Problem(
                    path="$.root", message=(f"root is omitted and {which} has no dependents; name the root explicitly")
                )
            ]
        root = candidates[0]
    if root not in keys:
        why = "existing work cannot be the new root" if root in rules.active_ids else "it is not a key of this plan"
        return None, [Problem(path="$.root", message=f"root {root!r} is not new: {why}")]
    problems: list[Problem] = []
    item = reply.work[keys.index(root)]
    template = rules.catalog.get(item.template)
    if template is not None and not template.root:
        problems.append(
            Problem(
                path="$.root", message=(f"root {root!r} uses template {item.template!r}, which is not root-capable")
            )
        )
    unreachable = [key for key in dict.fromkeys(keys) if key not in _reachable(reply, root)]
    if unreachable:
        problems.append(
            Problem(
                path="$.root", message=(f"root {root!r} does not reach {', '.join(unreachable)} through dependencies")
            )
        )
    return root, problems


def _reachable(reply: PlannerReply, root: str) -> set[str]:
    edges: dict[str, list[str]] = {}
    for item in reply.work:
        edges.setdefault(item.key, list(item.dependencies))
    seen = {root}
    stack = [root]
    while stack:
        for dependency in edges.get(stack.pop(), []):
            if dependency in edges and dependency not in seen:
                seen.add(dependency)
                stack.append(dependency)
    return seen


def _bound_problems(reply: PlannerReply, rules: PlanRules) -> list[Problem]:
    count = len(reply.work)
    problems: list[Problem] = []
    if count > rules.max_items_per_plan:
        problems.append(
            Problem(
                path="$.work",
                message=(f"{count} work items exceed max_work_items_per_plan ({rules.max_items_per_plan})"),
            )
        )
    if count > rules.items_remaining:
        problems.append(
            Problem(
                path="$.work",
                message=(f"{count} work items exceed the {rules.items_remaining} left of max_total_work_items"),
            )
        )
    return problems


def _milestone_problems(reply: PlannerReply, rules: PlanRules) -> list[Problem]:
    milestone = reply.milestone
    if not rules.is_mission:
        if milestone is not None:
            return [Problem(path="$.milestone", message="a milestone is only for a goal with a mission")]
        return []
    if milestone is None:
        return [Problem(path="$.milestone", message="a mission's apply decision needs a milestone")]
    expected = rules.milestones_completed + 1
    if milestone.sequence != expected:
        return [
            Problem(
                path="$.milestone.sequence",
                message=(f"milestone sequence must be {expected} (milestones completed + 1), not {milestone.sequence}"),
            )
        ]
    if rules.max_milestones is not None and milestone.sequence > rules.max_milestones:
        return [
            Problem(
                path="$.milestone.sequence",
                message=(f"milestone {milestone.sequence} exceeds max_milestones ({rules.max_milestones})"),
            )
        ]
    return []
