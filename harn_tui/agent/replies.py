"""Asking a team member for one JSON reply (the judge's verdict, the ask-first plan): the host validates it, an
invalid reply gets exactly one more try carrying `problems` and `previous_reply`, as a planner's does."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from harn_tui.core.planning.validation import parse_json_object, structural_problems
from harn_tui.core.records import SpecialistProfile
from harn_tui.core.records.plan import Problem
from harn_tui.core.records.run import CriterionResult
from harn_tui.core.specialists import Role, SpecialistCall, SpecialistFailure, call_specialist


class PlanReply(BaseModel):
    """The ask-first reply: 1 to 12 steps of at most 250 characters, and a rationale of at most 800."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: Annotated[
        list[Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=250)]],
        Field(min_length=1, max_length=12),
    ]
    rationale: Annotated[str, StringConstraints(strip_whitespace=True, max_length=800)]


class JudgeReply(BaseModel):
    """The judge's verdict: a summary and every criterion exactly once."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    summary: Annotated[str, StringConstraints(strip_whitespace=True, max_length=2000)]
    criteria: list[CriterionResult]


@dataclass(frozen=True)
class Asked:
    """A member asked: the valid reply, or why there is none (`failure`)."""

    reply: BaseModel | None
    failure: str | None


def ask_member(
    *,
    role: Role,
    member_id: str,
    profile: SpecialistProfile,
    request: Mapping[str, Any],
    model: type[BaseModel],
    sequence: int,
    cwd: str,
    timeout_s: Callable[[], float],
    context: Mapping[str, str],
    semantic: Callable[[Any], list[Problem]] = lambda _: [],
) -> Asked:
    """Call the member; a reply that does not parse, fit `model` or pass `semantic` is asked again once with
    `problems` and `previous_reply`. A crash or a timeout is a failure at once (a retry would not answer it)."""
    current: Mapping[str, Any] = request
    problems: list[Problem] = []
    for call_index in (1, 2):
        call = SpecialistCall(
            role=role,
            member_id=member_id,
            profile=profile,
            request=current,
            sequence=sequence,
            call_index=call_index,
            context=context,
            cwd=cwd,
            timeout_s=timeout_s(),
        )
        try:
            text = call_specialist(call)
        except SpecialistFailure as failure:
            return Asked(None, f"{role} {member_id} failed ({failure.kind}): {failure.message}")
        value, problems = parse_json_object(text)
        if not problems:
            parsed, problems = structural_problems(value, model)
            if parsed is not None:
                problems = semantic(parsed)
                if not problems:
                    return Asked(parsed, None)
        current = {**request, "problems": [p.model_dump() for p in problems], "previous_reply": value}
    listed = "; ".join(f"{p.path}: {p.message}" for p in problems)
    return Asked(None, f"{role} {member_id} replied invalid twice: {listed}")


def criteria_problems(criteria: Sequence[str]) -> Callable[[Any], list[Problem]]:
    """The judge's reply must name each of the work's criteria exactly once."""

    def check(reply: Any) -> list[Problem]:
        assert isinstance(reply, JudgeReply)
        listed = Counter(c.criterion for c in reply.criteria)
        expected = Counter(criteria)
        problems = [
            Problem(path="$.criteria", message=f"criterion {c!r} is missing")
            for c in sorted((expected - listed).elements())
        ]
        problems += [
            Problem(path="$.criteria", message=f"criterion {c!r} is not the work's or is named twice")
            for c in sorted((listed - expected).elements())
        ]
        return problems

    return check
