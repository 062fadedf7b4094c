"""The specialist interface: one call of a planner, reviewer or judge (or the agent worker's plan), its child
environment and typed failures."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from harn_tui.core.records import SpecialistProfile

Role = Literal["planner", "reviewer", "judge", "worker", "worker-plan"]
PLANNING_ROLES = ("planner", "reviewer")
FailureKind = Literal["timeout", "crash", "invalid"]


class SpecialistFailure(Exception):
    """A specialist call that produced no reply: `kind` is timeout, crash or invalid (the plan.failed class)."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message


@dataclass(frozen=True)
class SpecialistCall:
    """Everything an adapter needs for one call.

    `sequence` is the plan request's sequence (1-based, per goal; an agent's calls give the attempt number) and
    `call_index` the k-th call of this specialist within that request (1 = first reply, 2 = the one retry).
    `context` holds the extra `HARN_*` variables of the call (goal, plan, root); see `child_environment`.
    `cwd` and `timeout_s` override the profile's (the agent's calls run in the workspace, within the attempt's
    deadline).
    """

    role: Role
    member_id: str
    profile: SpecialistProfile
    request: Mapping[str, Any]
    sequence: int
    call_index: int
    context: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    timeout_s: float | None = None

    def request_json(self) -> str:
        return json.dumps(self.request, ensure_ascii=False)

    @property
    def what(self) -> str:
        return f"{self.role} {self.member_id}"

    @property
    def working_directory(self) -> str | None:
        return self.cwd or self.profile.cwd or None

    @property
    def timeout(self) -> float:
        return self.timeout_s if self.timeout_s is not None else float(self.profile.timeout_s)


def child_environment(call: SpecialistCall) -> dict[str, str]:
    """The child's environment: the caller's (without `HARN_FAULT`, which is for the harn process itself),
    plus `HARN_ROLE`, `HARN_SPECIALIST`, `HARN_CALL`, `HARN_PLAN_SEQUENCE` (planners and reviewers) and the
    call's context (`HARN_GOAL_ID`, `HARN_PLAN_ID`, `HARN_ROOT`; an agent's `HARN_DEADLINE`)."""
    env = {key: value for key, value in os.environ.items() if key != "HARN_FAULT"}
    env.update({"HARN_ROLE": call.role, "HARN_SPECIALIST": call.member_id, "HARN_CALL": str(call.call_index)})
    if call.role in PLANNING_ROLES:
        env["HARN_PLAN_SEQUENCE"] = str(call.sequence)
    env.update(call.context)
    return env


def render_prompt(call: SpecialistCall) -> str:
    """The one prompt a model CLI receives: the frozen instructions, the reply contract and the request."""
    return (
        f"{call.profile.instructions}\n\n"
        f"You are the {call.role} ({call.member_id}) of a Harnery goal supervisor. The request below is JSON. "
        "Reply with exactly one JSON object that matches the request's `reply_schema`, and nothing else: "
        "no prose and no code fences.\n\n"
        f"Request:\n{json.dumps(call.request, indent=2, ensure_ascii=False)}\n"
    )


def unwrap_reply(text: str) -> str:
    """A model's reply text without a surrounding Markdown code fence (```json ... ```), if it has one."""
    stripped = text.strip()
    if stripped.startswith("```") and stripped.endswith("```") and "\n" in stripped:
        body = stripped[3:-3]
        first_newline = body.index("\n")
        return body[first_newline + 1 :].strip()
    return stripped
