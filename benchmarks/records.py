"""Record and event bodies as plain dicts, in the field order and serialization the core writes.

The generator writes these directly (no model construction) so an L tree is produced in seconds; the smoke
test checks that the core's models accept them and re-serialize them to the same bytes.
"""

from __future__ import annotations

import json
import time
from typing import Any

BASE_EPOCH = 1_767_225_600  # 2026-01-01T00:00:00Z


def iso_at(seconds: int, millis: int = 0) -> str:
    """UTC ISO 8601 with milliseconds and a `Z`, as the core's clock writes it."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds)) + f".{millis % 1000:03d}Z"


def stamp_at(seconds: int) -> str:
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(seconds))


def record_bytes(data: dict[str, Any]) -> bytes:
    """The core's record serialization: two-space indented JSON and a final newline."""
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


TEAM_PLACEHOLDER: dict[str, object] = {"\u0000team": 0}


def nested_json(data: object, depth: int) -> str:
    """`data` as `record_bytes` would lay it out `depth` levels deep (for splicing a pre-encoded value)."""
    return json.dumps(data, indent=2, ensure_ascii=False).replace("\n", "\n" + "  " * depth)


def record_bytes_with_team(data: dict[str, Any], team_json: str) -> bytes:
    """`record_bytes` of a manifest whose `team` is `TEAM_PLACEHOLDER`, with the goal's team spliced in.

    Every manifest of a goal repeats the same team; encoding it once per goal halves generation time.
    """
    text = json.dumps(data, indent=2, ensure_ascii=False)
    placeholder = nested_json(TEAM_PLACEHOLDER, depth=1)
    return (text.replace(placeholder, team_json, 1) + "\n").encode()


def event_line(data: dict[str, Any]) -> bytes:
    """The core's JSONL line: compact JSON, base fields first, one newline."""
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def event(seq: int, ts: str, name: str, actor: str, **payload: Any) -> dict[str, Any]:
    return {"schema_version": 1, "seq": seq, "ts": ts, "event": name, "actor": actor, **payload}


def profile(argv: list[str], instructions: str, cwd: str) -> dict[str, Any]:
    return {
        "adapter": "command",
        "instructions": instructions,
        "timeout_s": 300,
        "argv": argv,
        "replies": None,
        "model": None,
        "cwd": cwd,
    }


def template_entry(path: str, sha256: str, max_attempts: int, root: bool) -> dict[str, Any]:
    return {"path": path, "sha256": sha256, "max_attempts": max_attempts, "root": root}


def goal_intent(
    goal_id: str,
    title: str,
    created_at: str,
    root_work_id: str,
    team: dict[str, Any],
    replanning: dict[str, Any],
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "id": goal_id,
        "title": title,
        "created_at": created_at,
        "root_work_id": root_work_id,
        "mission": None,
        "team": team,
        "limits": {"max_cycles": 50, "max_runtime_s": 14400, "max_parallel_work": 1, "max_total_attempts": 1000},
        "automation": {"accept_passing_proof": False, "retry_blocked": False, "resume_approved": True},
        "replanning": replanning,
    }


def replanning(planner: str, reviewers: list[str], per_plan: int, templates: dict[str, Any]) -> dict[str, Any]:
    return {
        "planner": planner,
        "reviewers": reviewers,
        "auto_apply": False,
        "max_replans": 10,
        "max_work_items_per_plan": max(per_plan, 1),
        "max_total_work_items": 1000,
        "max_revision_rounds": 0,
        "templates": templates,
    }


def work_intent(
    work_id: str,
    title: str,
    objective: str,
    acceptance: list[str],
    dependencies: list[str],
    template: dict[str, str],
    source: dict[str, Any],
    created_at: str,
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "id": work_id,
        "title": title,
        "objective": objective,
        "acceptance": acceptance,
        "dependencies": dependencies,
        "template": template,
        "max_attempts": 5,
        "source": source,
        "created_at": created_at,
    }


def plan_request(
    plan_id: str, goal_id: str, sequence: int, fingerprint: str, prior_root: str | None, created_at: str
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "id": plan_id,
        "goal_id": goal_id,
        "sequence": sequence,
        "trigger": "recovery",
        "graph_fingerprint": fingerprint,
        "prior_root_work_id": prior_root,
        "created_at": created_at,
    }


def proposal(
    plan_id: str, decision: str, rationale: str, root: str | None, work: list[dict[str, Any]], proposed_at: str
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "plan_id": plan_id,
        "decision": decision,
        "rationale": rationale,
        "root": root,
        "work": work,
        "milestone": None,
        "proposed_at": proposed_at,
    }


def proposed_work(
    key: str, title: str, objective: str, acceptance: list[str], dependencies: list[str], template: str
) -> dict[str, Any]:
    return {
        "key": key,
        "title": title,
        "objective": objective,
        "acceptance": acceptance,
        "dependencies": dependencies,
        "template": template,
    }


def review_receipt(plan_id: str, candidate_sha256: str, reviewer: str, created_at: str) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "plan_id": plan_id,
        "candidate_sha256": candidate_sha256,
        "reviews": [
            {
                "reviewer": reviewer,
                "verdict": "approve",
                "rationale": "The steps are bounded and each names a frozen template.",
                "findings": [],
            }
        ],
        "outcome": "approved",
        "created_at": created_at,
    }


def manifest(
    run_id: str,
    goal_id: str,
    work: dict[str, Any],
    attempt: dict[str, Any],
    template: dict[str, str],
    team: dict[str, Any],
    created_at: str,
) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "run_id": run_id,
        "goal_id": goal_id,
        "work": work,
        "attempt": attempt,
        "template": template,
        "team": team,
        "created_at": created_at,
    }


def proof(run_id: str, passed: bool, summary: str, acceptance: list[str], klass: str | None, at: str) -> dict[str, Any]:
    status = "satisfied" if passed else "unsatisfied"
    return {
        "schema_version": 1,
        "run_id": run_id,
        "status": "succeeded" if passed else "failed",
        "summary": summary,
        "acceptance": [{"criterion": c, "status": status, "evidence": f"checked: {c}"} for c in acceptance],
        "class": klass,
        "finished_at": at,
        "workspace": None,
    }


def approval_request(approval_id: str, run_id: str, work_id: str, goal_id: str, at: str) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "id": approval_id,
        "run_id": run_id,
        "work_id": work_id,
        "goal_id": goal_id,
        "question": "Deploy the migration to the staging database?",
        "details": "The migration rewrites one table; it is reversible.",
        "requested_at": at,
    }


def approval_decision(approval_id: str, at: str) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "approval_id": approval_id,
        "verdict": "approve",
        "actor": "operator",
        "reason": "staging only",
        "decided_at": at,
    }
