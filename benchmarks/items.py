"""Writing one synthetic work item: intent, ten events, and the runs and approvals its events name."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from benchmarks import records as r
from benchmarks.patterns import Step
from benchmarks.sink import Sink


class Clock:
    """A goal's synthetic time: every call is seven seconds later, with varying milliseconds."""

    def __init__(self, start: int) -> None:
        self.seconds = start
        self.ticks = 0

    def next(self) -> str:
        self.seconds += 7
        self.ticks += 1
        return r.iso_at(self.seconds, self.ticks * 37)

    def stamp(self) -> str:
        return r.stamp_at(self.seconds)


@dataclass
class GoalContext:
    """What every item of one goal shares."""

    base: str
    goal_id: str
    team: dict[str, Any]
    template: dict[str, str]
    clock: Clock
    sink: Sink
    serials: list[int] = field(default_factory=lambda: [0])
    approvals: int = 0
    team_json: str = ""

    def __post_init__(self) -> None:
        self.team_json = r.nested_json(self.team, depth=1)

    def serial_hex(self, width: int) -> str:
        self.serials[0] += 1
        return f"{self.serials[0]:0{width}x}"


@dataclass
class ItemState:
    work_id: str
    intent: dict[str, Any]
    lines: list[bytes] = field(default_factory=list)
    attempt: int = 0
    run_id: str | None = None
    open_findings: list[dict[str, Any]] = field(default_factory=list)
    prior: dict[str, Any] | None = None
    parks: int = 0
    approval_id: str | None = None
    proof_sha256: str | None = None


def write_item(ctx: GoalContext, work_id: str, intent: dict[str, Any], pattern: tuple[Step, ...]) -> None:
    """Write `work/<id>/` with intent.json and events.jsonl, plus runs/ and approvals/ the events name."""
    directory = f"{ctx.base}/work/{work_id}"
    ctx.sink.write(directory, "intent.json", r.record_bytes(intent))
    item = ItemState(work_id, intent)
    for step in pattern:
        _apply(ctx, item, step)
    ctx.sink.write(directory, "events.jsonl", b"".join(item.lines))


def _emit(ctx: GoalContext, item: ItemState, name: str, actor: str, ts: str | None = None, **payload: Any) -> None:
    item.lines.append(r.event_line(r.event(len(item.lines) + 1, ts or ctx.clock.next(), name, actor, **payload)))


def _apply(ctx: GoalContext, item: ItemState, step: Step) -> None:
    kind = step[0]
    if kind == "created":
        _emit(ctx, item, "work.created", "operator", reason=None)
    elif kind == "start":
        _start(ctx, item, str(step[1]))
    elif kind == "finish":
        _finish(ctx, item, str(step[1]), step[2] if isinstance(step[2], str) else None)
    elif kind == "park":
        _park(ctx, item)
    elif kind == "resume":
        _resume(ctx, item)
    elif kind == "reopen":
        _reopen(ctx, item, int(str(step[1])))
    elif kind == "accept":
        dispositions = [{"id": f["id"], "outcome": "fixed", "reason": None} for f in item.open_findings]
        _emit(
            ctx,
            item,
            "work.accepted",
            "operator",
            run_id=item.run_id,
            proof_sha256=item.proof_sha256,
            dispositions=dispositions,
            reason=None,
        )
        item.open_findings = []
    else:
        raise ValueError(f"unknown step {step!r}")


def _start(ctx: GoalContext, item: ItemState, trigger: str) -> None:
    ts = ctx.clock.next()
    item.attempt += 1
    item.run_id = f"run-{ctx.clock.stamp()}-{ctx.serial_hex(6)}"
    item.parks = 0
    intent = item.intent
    work = {
        "schema_version": 1,
        "id": item.work_id,
        "title": intent["title"],
        "objective": intent["objective"],
        "acceptance": intent["acceptance"],
    }
    attempt = {
        "number": item.attempt,
        "trigger": trigger,
        "prior": item.prior if trigger == "retry" else None,
        "findings": list(item.open_findings),
        "workspaces": {"prior": None, "dependencies": []},
    }
    body = r.manifest(item.run_id, ctx.goal_id, work, attempt, ctx.template, r.TEAM_PLACEHOLDER, ts)
    ctx.sink.write(f"{ctx.base}/runs/{item.run_id}", "manifest.json", r.record_bytes_with_team(body, ctx.team_json))
    _emit(ctx, item, "attempt.started", "supervisor", ts, run_id=item.run_id, attempt=item.attempt, trigger=trigger)


def _finish(ctx: GoalContext, item: ItemState, status: str, klass: str | None) -> None:
    assert item.run_id is not None
    ts = ctx.clock.next()
    passed = status == "passed"
    acceptance = item.intent["acceptance"]
    summary = "every criterion checked" if passed else f"{len(acceptance)} criteria unsatisfied"
    body = r.record_bytes(r.proof(item.run_id, passed, summary, acceptance, klass, ts))
    ctx.sink.write(f"{ctx.base}/runs/{item.run_id}", "proof.json", body)
    item.proof_sha256 = hashlib.sha256(body).hexdigest()
    reason = None if passed else ("the sandbox lost its network" if klass else "tests failed")
    _emit(
        ctx,
        item,
        "attempt.finished",
        "supervisor",
        ts,
        run_id=item.run_id,
        status=status,
        **{"class": klass},
        reason=reason,
        approval_id=None,
    )
    item.prior = (
        None if passed else {"run_id": item.run_id, "summary": summary, "unsatisfied": acceptance, "class": klass}
    )


def _park(ctx: GoalContext, item: ItemState) -> None:
    assert item.run_id is not None
    ts = ctx.clock.next()
    item.parks += 1
    item.approval_id = f"apr-{item.run_id}-{item.parks}"
    body = r.approval_request(item.approval_id, item.run_id, item.work_id, ctx.goal_id, ts)
    ctx.sink.write(f"{ctx.base}/approvals/{item.approval_id}", "request.json", r.record_bytes(body))
    ctx.approvals += 1
    _emit(
        ctx,
        item,
        "attempt.finished",
        "supervisor",
        ts,
        run_id=item.run_id,
        status="parked",
        **{"class": None},
        reason=None,
        approval_id=item.approval_id,
    )


def _resume(ctx: GoalContext, item: ItemState) -> None:
    assert item.approval_id is not None
    ts = ctx.clock.next()
    decision = r.record_bytes(r.approval_decision(item.approval_id, ts))
    ctx.sink.write(f"{ctx.base}/approvals/{item.approval_id}", "decision.json", decision)
    _emit(ctx, item, "attempt.resumed", "supervisor", run_id=item.run_id, approval_id=item.approval_id)


def _reopen(ctx: GoalContext, item: ItemState, count: int) -> None:
    findings = [
        {"id": f"f{n}", "statement": f"Finding {n}: the error path of {item.work_id} is untested.", "actor": "operator"}
        for n in range(1, count + 1)
    ]
    _emit(ctx, item, "work.reopened", "operator", findings=findings, reason=None)
    if findings:
        item.open_findings = findings
