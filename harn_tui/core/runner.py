"""One attempt of one work item: `harn work run|retry`, and the API the supervisor loop starts attempts with.

API (thread-safe: no shared mutable state; each attempt owns its run directory, lease and transcript):

- `run_work(layout, work_id, *, actor, retry, timeout_s=None) -> AttemptResult`: the CLI verbs. `run` starts a
  ready item (or resumes standalone work whose approval is decided); `retry` retries a blocked one. Blocks until
  the attempt finishes or parks, whatever its outcome.
- `start_attempt(layout, work_id, *, actor, retry=False, goal_id=None, timeout_s=None, fault_prefix="run")` and
  `resume_attempt(layout, work_id, *, actor, goal_id=None, timeout_s=None, fault_prefix="run")`: the same for
  the supervisor (actor "supervisor", its goal id, `fault_prefix="tick"`). Call them from worker threads to run
  attempts concurrently.
- `begin_attempt(...)` / `begin_resume(...)` -> `PreparedAttempt`, then `.run()`: the two halves, for a caller
  that wants every `attempt.started` recorded before any template runs. Until `.run()` (or `.abandon()`) the
  run lease is held and the attempt projects as running. `begin_attempt_in(scope, ...)` /
  `begin_resume_in(scope, ...)` do the same on a `WorkScope` the caller re-read under the lease it holds (a
  tick decides and starts on one read).

Order of one attempt: under the goal lease (standalone work: the work lease) re-read state, re-hash the template
(a change refuses and records nothing), check the rules, create `runs/<id>/` (0700) and take its run lease,
write `manifest.json`, record lost attempts, append `attempt.started` (or `attempt.resumed`); release the goal
lease; run the template (see `template_process`; env = inherited + `HARN_MANIFEST`, `HARN_RUN_DIR`,
`HARN_PROOF`, `HARN_RUN_ID`, `HARN_DEADLINE` (when the timeout ends it, UTC `Z`), and on a resume
`HARN_APPROVAL` (the decision) and `HARN_APPROVAL_REQUEST` (its request); `HARN_FAULT` and `HARN_FAULT_TRACE`
are not passed on); judge its exit (see `proof_intake`), write `proof.json` or the approval request; under the goal
lease append `attempt.finished`; release the run lease. Fault points: `<prefix>.attempt_started`,
`<prefix>.attempt_process_started`, `<prefix>.attempt_finished`. The timeout defaults to
`$HARN_ATTEMPT_TIMEOUT_S`, else 3,600 s.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harn_tui.core.attempt_rules import Trigger, check_can_resume, check_can_start, next_trigger
from harn_tui.core.clock import iso, now, now_iso
from harn_tui.core.errors import CorruptJournal, SystemRefused, refusals_as_system_refused
from harn_tui.core.executors import LOCAL, Executor, TemplateRun
from harn_tui.core.faults import fault_point
from harn_tui.core.finish_note import reserve_note, write_note
from harn_tui.core.fsio import ensure_dir, fsync_dir, write_record
from harn_tui.core.ids import approval_id as make_approval_id
from harn_tui.core.ids import check_id, new_run_id
from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease
from harn_tui.core.manifest import build_manifest
from harn_tui.core.projection import WorkResolver
from harn_tui.core.proof_intake import APPROVAL_REQUEST, PROOF, Verdict, host_failure, judge
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.records import ApprovalRequest, AttemptFinished, AttemptResumed, AttemptStarted, WorkIntent
from harn_tui.core.sharing import make_dir
from harn_tui.core.template_digest import read_template
from harn_tui.core.transcript import TranscriptWriter
from harn_tui.core.transitions.lost import repair_lost_attempts
from harn_tui.core.transitions.scope import (
    WorkScope,
    governed_by_lease,
    require_work,
    work_lease,
    work_scope,
)
from harn_tui.core.tree import Tree
from harn_tui.core.writer import append_event

DEFAULT_TIMEOUT_S = 3600.0
RUN_ID_TRIES = 8


def default_timeout() -> float:
    """`$HARN_ATTEMPT_TIMEOUT_S`, else one hour."""
    return float(os.environ.get("HARN_ATTEMPT_TIMEOUT_S", DEFAULT_TIMEOUT_S))


@dataclass(frozen=True)
class AttemptResult:
    """How one attempt (or resume) ended and the work's state right after."""

    run_id: str
    work_id: str
    goal_id: str | None
    attempt: int
    trigger: str
    resumed: bool
    status: str
    class_: str | None
    reason: str | None
    approval_id: str | None
    work_state: str
    next_action: str

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "work_id": self.work_id,
            "goal_id": self.goal_id,
            "attempt": self.attempt,
            "trigger": self.trigger,
            "resumed": self.resumed,
            "status": self.status,
            "class": self.class_,
            "reason": self.reason,
            "approval_id": self.approval_id,
            "work": {"state": self.work_state, "next_action": self.next_action},
        }


INTERRUPTED = "interrupted by the operator (SIGINT) while the template ran"


class AttemptInterrupted(KeyboardInterrupt):
    """SIGINT while the template ran: the attempt is recorded failed with class `environment` (uncharged), not
    left for a later writer to call lost; `result` is what was recorded. Still a KeyboardInterrupt: the command
    stops (exit 130)."""

    def __init__(self, result: AttemptResult) -> None:
        super().__init__(
            f"interrupted: attempt {result.attempt} of work {result.work_id} ({result.run_id}) is recorded failed, "
            f"uncharged ({INTERRUPTED}); the work is {result.work_state}/{result.next_action}"
        )
        self.result = result


@contextlib.contextmanager
def _sigint_deferred() -> Iterator[None]:
    """In the main thread, hold a SIGINT back until the block ends, then raise it; elsewhere (no signal reaches
    a worker thread) just run the block."""
    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield
        return
    caught: list[int] = []
    signal.signal(signal.SIGINT, lambda signum, _frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


@dataclass
class PreparedAttempt:
    """An attempt recorded as started (or resumed) whose template has not run yet; it holds the run lease."""

    layout: Layout
    work_id: str
    goal_id: str | None
    actor: str
    intent: WorkIntent
    run_id: str
    number: int
    trigger: Trigger
    approval_path: Path | None
    parks_so_far: int
    lease: HeldLease | None
    template_body: bytes = b""

    @property
    def run_dir(self) -> Path:
        return self.layout.run(self.run_id)

    @property
    def scratch(self) -> Path:
        return self.run_dir / "scratch"

    def abandon(self) -> None:
        """Release the run lease without running: the attempt becomes lost and is recorded failed."""
        if self.lease is not None:
            self.lease.release()
            self.lease = None

    def run(
        self, timeout_s: float | None = None, fault_prefix: str = "run", executor: Executor = LOCAL
    ) -> AttemptResult:
        """Run the template on `executor`, judge it, record `attempt.finished`; the run lease is released at
        the end.

        A write the system refuses (the transcript, the proof, the finish) is SystemRefused: the runner first
        says why in the run's finish note, so the next writer records the attempt failed (environment)."""
        try:
            fault_point(f"{fault_prefix}.attempt_started")
            timeout = default_timeout() if timeout_s is None else timeout_s
            verdict = self._execute(timeout, fault_prefix, executor)
            with _sigint_deferred():  # the outcome is recorded whole; a Ctrl-C meanwhile is raised after it
                approval = self._record_outcome(verdict)
                result = self._finish(verdict, approval)
            fault_point(f"{fault_prefix}.attempt_finished")
            if verdict.reason == INTERRUPTED:
                raise AttemptInterrupted(result)
            return result
        except SystemRefused as error:
            write_note(self.run_dir, self.run_id, error)
            raise
        finally:
            self.abandon()

    def _execute(self, timeout: float, fault_prefix: str, executor: Executor) -> Verdict:
        if self.approval_path is not None:
            for stale in (PROOF, APPROVAL_REQUEST):
                with contextlib.suppress(FileNotFoundError):
                    (self.scratch / stale).unlink()
        transcript = TranscriptWriter(self.run_dir / "transcript.jsonl")
        deadline = datetime.now(UTC) + timedelta(seconds=timeout)  # wall time, even with HARN_FIXED_NOW pinned
        job = TemplateRun(
            run_id=self.run_id,
            template_path=self.intent.template.path,
            sha256=self.intent.template.sha256,
            body=self.template_body,
            scratch=self.scratch,
            contract=self._contract(deadline),
            timeout_s=timeout,
            root=self.layout.root,
        )
        criteria = list(self.intent.acceptance)
        try:
            ended = executor.run(job, transcript, lambda: fault_point(f"{fault_prefix}.attempt_process_started"))
        except KeyboardInterrupt:  # the executor has stopped the template; the operator's reason is recorded
            ended = None
        finally:
            transcript.close()
        if transcript.refused is not None:
            raise transcript.refused
        if ended is None:
            return host_failure(self.run_id, criteria, INTERRUPTED, class_="environment")
        if ended.lost is not None:
            return host_failure(self.run_id, criteria, ended.lost, class_="environment")
        return judge(ended.process, scratch=self.scratch, run_id=self.run_id, criteria=criteria, timeout_s=timeout)

    def _contract(self, deadline: datetime) -> dict[str, str]:
        """The run's `HARN_*` variables (the executor adds the environment they join)."""
        env = {
            "HARN_MANIFEST": str(self.run_dir / "manifest.json"),
            "HARN_RUN_DIR": str(self.scratch),
            "HARN_PROOF": str(self.scratch / PROOF),
            "HARN_RUN_ID": self.run_id,
            "HARN_DEADLINE": iso(deadline),
        }
        if self.approval_path is not None:
            env["HARN_APPROVAL"] = str(self.approval_path)
            env["HARN_APPROVAL_REQUEST"] = str(self.approval_path.with_name("request.json"))
        return env

    def _record_outcome(self, verdict: Verdict) -> str | None:
        """Write `proof.json` (0600), or the approval request of a park; returns the approval id."""
        if verdict.proof is not None:
            write_record(self.run_dir / PROOF, verdict.proof)
            return None
        assert verdict.ask is not None
        approval_id = make_approval_id(self.run_id, self.parks_so_far + 1)
        request = ApprovalRequest(
            id=approval_id,
            run_id=self.run_id,
            work_id=self.work_id,
            goal_id=self.goal_id,
            question=verdict.ask.question,
            details=verdict.ask.details,
            requested_at=now_iso(),
        )
        write_record(self.layout.approval(approval_id) / "request.json", request)
        return approval_id

    def _finish(self, verdict: Verdict, approval_id: str | None) -> AttemptResult:
        """Record `attempt.finished` under the governing lease. Recording the outcome decides nothing on the
        goal's records (it is recorded even on a damaged goal), and it reads few logs: its own item's (the
        append re-reads it) and its dependencies' (the state after). Those are brought up to date, not the
        whole goal; the lost-attempt repair brings up to date the log of any run it would call lost (an attempt
        started since this process last read the goal is repaired by the next writer that reads the goal)."""
        with work_lease(self.layout, self.work_id, self.goal_id, check="none") as (tree, owner):
            tree.refresh_logs_of(WorkResolver(tree).closure(self.work_id))
            repair_lost_attempts(tree, governed_by_lease(tree, self.work_id, owner))
            append_event(
                tree.work[self.work_id].log,
                AttemptFinished,
                self.actor,
                run_id=self.run_id,
                status=verdict.status,
                reason=verdict.reason,
                approval_id=approval_id,
                **{"class": verdict.class_},
            )
            state, action = _state_after(tree, self.work_id)
        return AttemptResult(
            run_id=self.run_id,
            work_id=self.work_id,
            goal_id=self.goal_id,
            attempt=self.number,
            trigger=self.trigger,
            resumed=self.approval_path is not None,
            status=verdict.status,
            class_=verdict.class_,
            reason=verdict.reason,
            approval_id=approval_id,
            work_state=state,
            next_action=action,
        )


def _state_after(tree: Tree, work_id: str) -> tuple[str, str]:
    """The work's state and next action right after `attempt.finished`, from the tree the finish re-read under
    its lease: the item alone is projected (with its dependencies' states), not its whole goal. The run and
    approval the new event names are read first (a park's approval exists only from now on)."""
    work = tree.work[work_id]
    tree.load_named_by(work)
    view = WorkResolver(tree).view(work_id)
    if view is None or view.problem is not None:
        return "unknown", f"unreadable: {view.problem if view is not None else 'missing'}"
    return view.state, view.next_action


def _new_run_dir(layout: Layout) -> tuple[str, Path]:
    """A fresh `runs/<id>/` with its `scratch/`; not durable yet: the manifest's write fsyncs the run directory
    and `_prepare_start` then `runs/` (one directory fsync each, before `attempt.started` names the run)."""
    linked = directory_problem(layout.runs)  # a linked runs/ would put the run (and its scratch) outside the tree
    if linked is not None:
        raise CorruptJournal(linked)
    ensure_dir(layout.runs)
    for _ in range(RUN_ID_TRIES):
        run_id = new_run_id(now())
        directory = layout.run(run_id)
        try:
            with refusals_as_system_refused(directory):
                make_dir(directory)
        except FileExistsError:
            continue
        with refusals_as_system_refused(directory / "scratch"):
            make_dir(directory / "scratch")
        return run_id, directory
    raise CorruptJournal(f"could not create a fresh run directory under {layout.runs}")


def _check_template(scope: WorkScope) -> tuple[WorkIntent, bytes]:
    """The work's intent and its template's bytes, hashed now against the frozen digest (a change refuses)."""
    intent = scope.files.intent
    assert intent is not None
    body = read_template(intent.template.path, intent.template.sha256, f"the template of work {scope.work_id}")
    return intent, body


def _prepare_start(scope: WorkScope, *, actor: str, retry: bool) -> PreparedAttempt:
    intent, body = _check_template(scope)
    check_can_start(scope, retry=retry, actor=actor)
    trigger = next_trigger(scope, retry=retry)
    number = len(scope.view.attempts) + 1
    run_id, directory = _new_run_dir(scope.layout)
    lease = HeldLease(directory / "lease", f"run {run_id}")
    try:
        reserve_note(directory)
        goal_intent = scope.goal.intent if scope.goal is not None else None
        manifest = build_manifest(
            run_id=run_id,
            goal_id=scope.goal_id,
            goal=goal_intent,
            intent=intent,
            view=scope.view,
            number=number,
            trigger=trigger,
            runs=scope.tree.runs,
            work=scope.tree.work,
            runs_dir=scope.layout.runs,
        )
        write_record(directory / "manifest.json", manifest)
        fsync_dir(scope.layout.runs)
        scope.repair_lost()
        append_event(scope.files.log, AttemptStarted, actor, run_id=run_id, attempt=number, trigger=trigger)
    except BaseException:
        lease.release()
        raise
    return PreparedAttempt(
        scope.layout, scope.work_id, scope.goal_id, actor, intent, run_id, number, trigger, None, 0, lease, body
    )


def _prepare_resume(scope: WorkScope, *, actor: str) -> PreparedAttempt:
    intent, body = _check_template(scope)
    parked = check_can_resume(scope)
    lease = HeldLease(scope.layout.run(parked.run_id) / "lease", f"run {parked.run_id}")
    try:
        reserve_note(scope.layout.run(parked.run_id))
        scope.repair_lost()
        append_event(scope.files.log, AttemptResumed, actor, run_id=parked.run_id, approval_id=parked.approval_id)
    except BaseException:
        lease.release()
        raise
    parks = sum(
        1
        for e in scope.files.events
        if e.event == "attempt.finished" and e.run_id == parked.run_id and e.status == "parked"
    )
    return PreparedAttempt(
        scope.layout,
        scope.work_id,
        scope.goal_id,
        actor,
        intent,
        parked.run_id,
        parked.number,
        parked.trigger,
        scope.layout.approval(parked.approval_id) / "decision.json",
        parks,
        lease,
        body,
    )


def _check_args(work_id: str, actor: str) -> None:
    check_id(work_id, "work id")
    check_id(actor, "actor")


def begin_attempt(
    layout: Layout, work_id: str, *, actor: str, retry: bool = False, goal_id: str | None = None
) -> PreparedAttempt:
    """Record a new attempt as started (run: `ready`; retry: `blocked/retry`) and hold its run lease."""
    _check_args(work_id, actor)
    require_work(layout, work_id)
    with work_scope(layout, work_id, goal_id) as scope:
        return _prepare_start(scope, actor=actor, retry=retry)


def begin_resume(layout: Layout, work_id: str, *, actor: str, goal_id: str | None = None) -> PreparedAttempt:
    """Record `attempt.resumed` for a parked attempt whose approval is decided and hold its run lease."""
    _check_args(work_id, actor)
    require_work(layout, work_id)
    with work_scope(layout, work_id, goal_id) as scope:
        return _prepare_resume(scope, actor=actor)


def begin_attempt_in(scope: WorkScope, *, actor: str, retry: bool = False) -> PreparedAttempt:
    """`begin_attempt` on a scope the caller already re-read under the governing lease (and still holds)."""
    _check_args(scope.work_id, actor)
    return _prepare_start(scope, actor=actor, retry=retry)


def begin_resume_in(scope: WorkScope, *, actor: str) -> PreparedAttempt:
    """`begin_resume` on a scope the caller already re-read under the governing lease (and still holds)."""
    _check_args(scope.work_id, actor)
    return _prepare_resume(scope, actor=actor)


def start_attempt(
    layout: Layout,
    work_id: str,
    *,
    actor: str,
    retry: bool = False,
    goal_id: str | None = None,
    timeout_s: float | None = None,
    fault_prefix: str = "run",
    executor: Executor = LOCAL,
) -> AttemptResult:
    """Start one attempt on `executor` and block until it finishes or parks."""
    executor.connect()
    prepared = begin_attempt(layout, work_id, actor=actor, retry=retry, goal_id=goal_id)
    return prepared.run(timeout_s, fault_prefix, executor)


def resume_attempt(
    layout: Layout,
    work_id: str,
    *,
    actor: str,
    goal_id: str | None = None,
    timeout_s: float | None = None,
    fault_prefix: str = "run",
    executor: Executor = LOCAL,
) -> AttemptResult:
    """Resume a parked attempt under its run id with `HARN_APPROVAL` set; not a new attempt."""
    executor.connect()
    prepared = begin_resume(layout, work_id, actor=actor, goal_id=goal_id)
    return prepared.run(timeout_s, fault_prefix, executor)


def run_work(
    layout: Layout,
    work_id: str,
    *,
    actor: str,
    retry: bool,
    timeout_s: float | None = None,
    executor: Executor = LOCAL,
) -> AttemptResult:
    """`harn work run|retry`: goal work under its goal's rules; standalone work awaiting a decided approval is
    resumed by `run`. The executor is connected to first: unreachable, it is ExecutorUnavailable (3) and nothing
    is recorded."""
    _check_args(work_id, actor)
    require_work(layout, work_id)
    executor.connect()
    with work_scope(layout, work_id) as scope:
        view = scope.view
        if not retry and scope.goal is None and (view.state, view.next_action) == ("awaiting_approval", "resume"):
            prepared = _prepare_resume(scope, actor=actor)
        else:
            prepared = _prepare_start(scope, actor=actor, retry=retry)
    return prepared.run(timeout_s, executor=executor)


__all__ = [
    "AttemptInterrupted",
    "AttemptResult",
    "PreparedAttempt",
    "begin_attempt",
    "begin_attempt_in",
    "begin_resume",
    "begin_resume_in",
    "default_timeout",
    "resume_attempt",
    "run_work",
    "start_attempt",
]
