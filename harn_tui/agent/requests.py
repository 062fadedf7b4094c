"""What the worker and the judge receive: their JSON inputs, and the prompt a model CLI worker is given."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from harn_tui.agent.attempt import AgentAttempt
from harn_tui.core.records import SpecialistProfile

SCHEMA_VERSION = 1
DIFF_CUT_MARKER = "\n[harn: the diff is cut here at {kept} KiB of {total} bytes]\n"

PLAN_REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["steps", "rationale"],
    "properties": {
        "steps": {"type": "array", "minItems": 1, "maxItems": 12, "items": {"type": "string", "maxLength": 250}},
        "rationale": {"type": "string", "maxLength": 800},
    },
}
JUDGE_REPLY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["summary", "criteria"],
    "properties": {
        "summary": {"type": "string", "maxLength": 2000},
        "criteria": {
            "type": "array",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": ["criterion", "status", "evidence"],
                "properties": {
                    "criterion": {"type": "string"},
                    "status": {"enum": ["satisfied", "unsatisfied", "unknown"]},
                    "evidence": {"type": "string", "maxLength": 4000},
                },
            },
        },
    },
}


@dataclass(frozen=True)
class WorkspaceInfo:
    """Where the worker works: `kind` git (a worktree on `branch`, starting at `base`) or none (scratch)."""

    kind: str
    path: str
    branch: str | None = None
    base: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "path": self.path, "branch": self.branch, "base": self.base}


def _work(attempt: AgentAttempt) -> dict[str, Any]:
    return attempt.manifest.work.model_dump(mode="json")


def _attempt(attempt: AgentAttempt) -> dict[str, Any]:
    return attempt.manifest.attempt.model_dump(mode="json", by_alias=True)


def worker_input(
    attempt: AgentAttempt,
    profile: SpecialistProfile,
    plan: dict[str, Any] | None,
    workspace: WorkspaceInfo,
    *,
    planning: bool = False,
) -> dict[str, Any]:
    """`{schema_version, role, instructions, work, attempt, findings, plan, workspace}`; the ask-first call
    (`worker-plan`) also carries the plan's `reply_schema`."""
    document: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "role": "worker-plan" if planning else "worker",
        "instructions": profile.instructions,
        "work": _work(attempt),
        "attempt": _attempt(attempt),
        "findings": [f.model_dump(mode="json") for f in attempt.manifest.attempt.findings],
        "plan": plan,
        "workspace": workspace.to_json(),
    }
    if planning:
        document["reply_schema"] = PLAN_REPLY_SCHEMA
    return document


def render_worker_prompt(request: dict[str, Any]) -> str:
    """The prompt a claude-code or codex worker gets: its instructions, then the work in plain words (title,
    objective, criteria, attempt, prior synopsis, every open finding with its id, the approved plan, where to
    work), then the request itself as JSON."""
    work, attempt, workspace = request["work"], request["attempt"], request["workspace"]
    parts = [
        request["instructions"].strip(),
        "",
        "You are the worker of a Harnery goal supervisor. Do the work item below by editing files in your working "
        f"directory, {workspace['path']}, and nowhere else. Do not commit: the host commits your changes, then runs "
        "the checks and has a judge check every acceptance criterion against the diff.",
        "",
        f"Work item {work['id']}: {work['title']}",
        f"Objective: {work['objective']}",
    ]
    parts += _listed("Acceptance criteria", work["acceptance"]) or ["Acceptance criteria: none listed."]
    parts.append(f"Attempt {attempt['number']} ({attempt['trigger']}).")
    prior = attempt.get("prior")
    if prior:
        parts.append(f"The previous attempt ({prior['run_id']}) failed: {prior['summary']}")
        parts += _listed("Criteria it left unsatisfied", prior["unsatisfied"])
    findings = request["findings"]
    if findings:
        parts.append("Open findings from the operator's review (fix every one):")
        parts += [f"- {f['id']}: {f['statement']}" for f in findings]
    plan = request.get("plan")
    if plan:
        parts.append("The approved plan (follow it):")
        parts += [f"{n}. {step}" for n, step in enumerate(plan["steps"], 1)]
        parts.append(f"Rationale: {plan['rationale']}")
    if workspace.get("branch"):
        parts.append(
            f"Workspace: {workspace['path']} (git branch {workspace['branch']}, starting at "
            f"{str(workspace['base'])[:12]})."
        )
    else:
        parts.append(f"Workspace: {workspace['path']}.")
    parts += ["", "The request as JSON:", json.dumps(request, indent=2, ensure_ascii=False)]
    return "\n".join(parts) + "\n"


def _listed(title: str, items: Sequence[str]) -> list[str]:
    return [f"{title}:", *(f"- {item}" for item in items)] if items else []


def cut_diff(diff: str, max_kb: int) -> str:
    """At most `max_kb` KiB of the diff (by UTF-8 bytes), with a marker saying where and how much was cut."""
    body = diff.encode()
    limit = max_kb * 1024
    if len(body) <= limit:
        return diff
    kept = body[:limit].decode("utf-8", errors="ignore")
    return kept + DIFF_CUT_MARKER.format(kept=max_kb, total=len(body))


def judge_input(
    attempt: AgentAttempt, profile: SpecialistProfile, diff: str, checks: Sequence[dict[str, Any]]
) -> dict[str, Any]:
    """`{schema_version, role, instructions, work, attempt, diff, checks, reply_schema}`."""
    return {
        "schema_version": SCHEMA_VERSION,
        "role": "judge",
        "instructions": profile.instructions,
        "work": _work(attempt),
        "attempt": _attempt(attempt),
        "diff": diff,
        "checks": list(checks),
        "reply_schema": JUDGE_REPLY_SCHEMA,
    }
