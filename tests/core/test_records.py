"""Every record refuses unknown keys and enforces the SPEC's text bounds (trimmed, blank invalid)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from harn_tui.core import records as r

TS = "2026-11-30T12:00:00.000Z"
SHA = "a" * 64


def work_intent(**over: Any) -> dict[str, Any]:
    base = {
        "schema_version": 1,
        "id": "w1",
        "title": "T",
        "objective": "O",
        "acceptance": ["a"],
        "dependencies": [],
        "template": {"path": "/t.py", "sha256": SHA},
        "max_attempts": 3,
        "source": {"kind": "human", "ref": None},
        "created_at": TS,
    }
    return {**base, **over}


def test_title_bound_is_200_characters_after_trimming() -> None:
    assert r.WorkIntent.model_validate(work_intent(title="  " + "x" * 200 + "  ")).title == "x" * 200
    with pytest.raises(ValidationError, match="at most 200"):
        r.WorkIntent.model_validate(work_intent(title="x" * 201))


@pytest.mark.parametrize("blank", ["", "   ", "\n\t"])
def test_blank_text_is_invalid(blank: str) -> None:
    with pytest.raises(ValidationError):
        r.WorkIntent.model_validate(work_intent(objective=blank))


def test_objective_and_acceptance_bounds() -> None:
    r.WorkIntent.model_validate(work_intent(objective="o" * 4000, acceptance=["c" * 500] * 50))
    with pytest.raises(ValidationError):
        r.WorkIntent.model_validate(work_intent(objective="o" * 4001))
    with pytest.raises(ValidationError):
        r.WorkIntent.model_validate(work_intent(acceptance=["c" * 501]))
    with pytest.raises(ValidationError):
        r.WorkIntent.model_validate(work_intent(acceptance=["c"] * 51))


def event(kind: str, **payload: Any) -> dict[str, Any]:
    return {"schema_version": 1, "seq": 1, "ts": TS, "event": kind, "actor": "alice", **payload}


def test_reason_bound_is_2000_on_plan_events() -> None:
    r.PLAN_EVENT_ADAPTER.validate_python(event("plan.rejected", reason="r" * 2000))
    with pytest.raises(ValidationError):
        r.PLAN_EVENT_ADAPTER.validate_python(event("plan.rejected", reason="r" * 2001))
    with pytest.raises(ValidationError):
        r.PLAN_EVENT_ADAPTER.validate_python(event("plan.retry_requested", reason="   "))


def test_findings_bound_1000_chars_and_20_per_reopen() -> None:
    finding = {"id": "f1", "statement": "s" * 1000, "actor": "alice"}
    r.WORK_EVENT_ADAPTER.validate_python(event("work.reopened", findings=[finding]))
    with pytest.raises(ValidationError):
        r.WORK_EVENT_ADAPTER.validate_python(event("work.reopened", findings=[{**finding, "statement": "s" * 1001}]))
    many = [{"id": f"f{i}", "statement": "s", "actor": "a"} for i in range(1, 22)]
    with pytest.raises(ValidationError):
        r.WORK_EVENT_ADAPTER.validate_python(event("work.reopened", findings=many))


def test_rationale_bound_is_2000() -> None:
    reply = {"decision": "attention", "rationale": "x" * 2000, "work": []}
    r.PlannerReply.model_validate(reply)
    with pytest.raises(ValidationError):
        r.PlannerReply.model_validate({**reply, "rationale": "x" * 2001})


SAMPLES: dict[str, tuple[type[Any] | Any, dict[str, Any]]] = {
    "work": (r.WorkIntent, work_intent()),
    "plan-request": (
        r.PlanRequest,
        {
            "schema_version": 1,
            "id": "plan-0001-abcdef01",
            "goal_id": "g",
            "sequence": 1,
            "trigger": "recovery",
            "graph_fingerprint": "sha256:x",
            "prior_root_work_id": None,
            "created_at": TS,
        },
    ),
    "proof": (
        r.Proof,
        {
            "schema_version": 1,
            "run_id": "r",
            "status": "succeeded",
            "summary": "ok",
            "acceptance": [],
            "class": None,
            "finished_at": "2026-11-30T12:00:00+00:00",
        },
    ),
    "approval-decision": (
        r.ApprovalDecision,
        {
            "schema_version": 1,
            "approval_id": "apr-r-1",
            "verdict": "approve",
            "actor": "alice",
            "reason": None,
            "decided_at": TS,
        },
    ),
    "work-event": (r.WORK_EVENT_ADAPTER, event("work.cancelled", reason=None)),
    "plan-event": (r.PLAN_EVENT_ADAPTER, event("plan.proposed")),
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_unknown_keys_are_refused(name: str) -> None:
    model, sample = SAMPLES[name]
    validate = model.validate_python if isinstance(model, TypeAdapter) else model.model_validate
    validate(sample)
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        validate({**sample, "surprise": 1})


def test_unknown_schema_version_is_refused() -> None:
    with pytest.raises(ValidationError):
        r.WorkIntent.model_validate(work_intent(schema_version=2))


def test_unknown_event_is_refused() -> None:
    with pytest.raises(ValidationError):
        r.WORK_EVENT_ADAPTER.validate_python(event("work.teleported"))


def test_event_timestamps_must_be_utc_z() -> None:
    with pytest.raises(ValidationError):
        r.WORK_EVENT_ADAPTER.validate_python({**event("work.created"), "ts": "2026-11-30T12:00:00+02:00"})


def test_proof_accepts_both_offset_spellings_but_not_naive() -> None:
    base = SAMPLES["proof"][1]
    r.Proof.model_validate({**base, "finished_at": "2026-11-30T12:00:00Z"})
    with pytest.raises(ValidationError):
        r.Proof.model_validate({**base, "finished_at": "2026-11-30T12:00:00"})


def test_every_record_exports_a_json_schema() -> None:
    for name in r.RECORD_SCHEMAS:
        schema = r.json_schema(name)
        assert schema.get("type") == "object" or "oneOf" in schema or "anyOf" in schema, name
