"""The shapes of paths under `.harnery/`: the one module that spells their names and parses a path into what it
addresses (a goal's record, a plan's log, a run's proof ...). The tree's refresh, the console's model, the
console's watcher filter and the serve loop's wake filter all ask `address_of`, so they agree on what a changed
path is; the layout (`core/layout.py`) builds the directories, the names below complete the paths.

Anything `address_of` does not name is nothing a reader reads: temporary files, `scratch/` of a run, `cache/`,
leases of work and goals, manifests and notes, files of unknown names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from harn_tui.core.fsio import is_temp_name
from harn_tui.core.ids import is_valid_id

GOALS_DIR = "supervisors"
WORK_DIR = "work"
RUNS_DIR = "runs"
APPROVALS_DIR = "approvals"
PRESENCE_DIR = "presence"
SERVICE_DIR = "service"
PLANS_DIR = "plans"
SCRATCH_DIR = "scratch"

EVENTS = "events.jsonl"  # a plan's or a work item's log
GOAL_RECORD = "goal.json"
LOOP_LOCK = "supervisor.lock"
WORK_INTENT = "intent.json"
PLAN_RECORDS = ("request.json", "proposal.json", "candidate.json", "review.json")
REVISION_RECORDS = ("candidate.json", "review.json")
PROOF_RECORD = "proof.json"
RUN_LEASE = "lease"
TRANSCRIPT = "transcript.jsonl"
APPROVAL_REQUEST_RECORD = "request.json"
APPROVAL_DECISION_RECORD = "decision.json"

REVISION_PREFIX = "revision-"

Kind = Literal["goal", "plan", "revision", "work", "run", "approval", "presence", "service"]

_GOAL_FILES = frozenset({GOAL_RECORD, LOOP_LOCK, PLANS_DIR})
_PLAN_FILES = frozenset({EVENTS, *PLAN_RECORDS})
_WORK_FILES = frozenset({WORK_INTENT, EVENTS})
_RUN_FILES = frozenset({PROOF_RECORD, RUN_LEASE, TRANSCRIPT})
_APPROVAL_FILES = frozenset({APPROVAL_REQUEST_RECORD, APPROVAL_DECISION_RECORD})
_RECORD_DIRS: dict[str, tuple[Kind, frozenset[str]]] = {
    WORK_DIR: ("work", _WORK_FILES),
    RUNS_DIR: ("run", _RUN_FILES),
    APPROVALS_DIR: ("approval", _APPROVAL_FILES),
}


def revision_dir_name(round_number: int) -> str:
    """Revision round r (from 1) keeps its files in `plans/<plan-id>/revision-<r>/`; round 0 is the plan's own."""
    return f"{REVISION_PREFIX}{round_number}"


def _revision_round(name: str) -> int | None:
    number = name.removeprefix(REVISION_PREFIX)
    return int(number) if name.startswith(REVISION_PREFIX) and number.isdigit() and number[0] != "0" else None


@dataclass(frozen=True, slots=True)
class Address:
    """What a path under `.harnery/` is. `id` is the goal, work, run or approval id (for presence and service,
    the file's name); `name` is the file, None for the directory itself (a goal's `plans/` directory is its
    `name` too). A plan's and a revision's `id` is their goal's."""

    kind: Kind
    id: str
    name: str | None = None
    plan: str | None = None
    round: int | None = None


def address_of(parts: tuple[str, ...]) -> Address | None:
    """The address of a path given as its parts relative to `.harnery/`, or None for anything no reader reads."""
    if len(parts) < 2 or any(is_temp_name(part) for part in parts):
        return None
    top, name, rest = parts[0], parts[1], parts[2:]
    if top in (PRESENCE_DIR, SERVICE_DIR):
        if rest or not name.endswith(".json"):
            return None
        return Address("presence" if top == PRESENCE_DIR else "service", name)
    if not is_valid_id(name):
        return None
    if top == GOALS_DIR:
        return _goal_address(name, rest)
    files = _RECORD_DIRS.get(top)
    if files is None:
        return None
    kind, names = files
    if not rest:
        return Address(kind, name)
    return Address(kind, name, rest[0]) if len(rest) == 1 and rest[0] in names else None


def _goal_address(goal_id: str, rest: tuple[str, ...]) -> Address | None:
    if not rest:
        return Address("goal", goal_id)
    if len(rest) == 1:
        return Address("goal", goal_id, rest[0]) if rest[0] in _GOAL_FILES else None
    if rest[0] != PLANS_DIR or not is_valid_id(rest[1]):
        return None
    plan_id, below = rest[1], rest[2:]
    if not below:
        return Address("plan", goal_id, plan=plan_id)
    if len(below) == 1:
        return Address("plan", goal_id, below[0], plan=plan_id) if below[0] in _PLAN_FILES else None
    round_number = _revision_round(below[0])
    if len(below) == 2 and round_number is not None and below[1] in REVISION_RECORDS:
        return Address("revision", goal_id, below[1], plan=plan_id, round=round_number)
    return None
