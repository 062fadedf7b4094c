"""What the tree holds of each goal, plan, revision round, work item, run and approval: the records and logs
as far as they were read, and the problems found reading them (values only; `core/tree.py` reads them, the
projection derives state from them)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harn_tui.core.addresses import (
    EVENTS,
    GOAL_RECORD,
    RUN_LEASE,
    WORK_INTENT,
)
from harn_tui.core.errors import CorruptJournal
from harn_tui.core.finish_note import read_note
from harn_tui.core.journal import (
    FileIdentity,
    JsonlTail,
    identity_of,
    parse_record,
    read_bytes,
    share_fields_sets,
    validate_record,
)
from harn_tui.core.leases import is_held
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.records import (
    ApprovalDecision,
    ApprovalRequest,
    GoalIntent,
    PlanEvent,
    PlanRequest,
    PlanRevisionRequested,
    Proof,
    Proposal,
    ReviewReceipt,
    WorkEvent,
    WorkIntent,
)
from harn_tui.core.records.events import PLAN_EVENTS_ADAPTER, WORK_EVENTS_ADAPTER


@dataclass(slots=True)
class RevisionFiles:
    """One revision round's candidate (with its digest) and review receipt, as far as they were written."""

    round: int
    directory: Path
    candidate: Proposal | None = None
    candidate_sha256: str | None = None
    review: ReviewReceipt | None = None
    problems: dict[str, str] = field(default_factory=dict)


@dataclass(slots=True)
class PlanFiles:
    id: str
    directory: Path
    request: PlanRequest | None = None
    proposal: Proposal | None = None
    proposal_sha256: str | None = None
    candidate: Proposal | None = None
    candidate_sha256: str | None = None
    review: ReviewReceipt | None = None
    log: JsonlTail[PlanEvent] = field(init=False)
    problems: dict[str, str] = field(default_factory=dict)
    # revision round -> its files, for every round a `plan.revision_requested` event opened
    revisions: dict[int, RevisionFiles] = field(default_factory=dict)
    # a past point's liveness of this plan (`history.past`); None: the goal's `supervisor.lock` tells
    loop_held: bool | None = None

    def __post_init__(self) -> None:
        self.log = JsonlTail(self.directory / EVENTS, PLAN_EVENTS_ADAPTER)

    @property
    def events(self) -> list[PlanEvent]:
        return self.log.events

    @property
    def problem(self) -> str | None:
        found = [
            *self.problems.values(),
            *(p for r in self.revisions.values() for p in r.problems.values()),
            *([self.log.problem] if self.log.problem else []),
        ]
        return found[0] if found else None

    def opened_rounds(self) -> list[int]:
        """The revision rounds the log says were opened, in order."""
        return [e.round for e in self.events if isinstance(e, PlanRevisionRequested)]


@dataclass(slots=True)
class GoalFiles:
    id: str
    directory: Path
    intent: GoalIntent | None = None
    plans: dict[str, PlanFiles] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    loop_held: bool = False

    def ordered_plans(self) -> list[PlanFiles]:
        """Plans with a request, in sequence order; aborted creations (no request.json) are left out."""
        real = [plan for plan in self.plans.values() if plan.request is not None]
        return sorted(real, key=lambda plan: (plan.request.sequence if plan.request else 0, plan.id))

    @property
    def problem(self) -> str | None:
        if self.problems:
            return next(iter(self.problems.values()))
        for plan in self.ordered_plans():
            if plan.problem:
                return plan.problem
        broken = [p.problem for p in self.plans.values() if p.request is None and p.problems]
        return broken[0] if broken else None


@dataclass(slots=True)
class WorkFiles:
    id: str
    directory: Path
    intent: WorkIntent | None = None
    log: JsonlTail[WorkEvent] = field(init=False)
    problems: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.log = JsonlTail(self.directory / EVENTS, WORK_EVENTS_ADAPTER)

    @property
    def events(self) -> list[WorkEvent]:
        return self.log.events

    @property
    def problem(self) -> str | None:
        if self.problems:
            return next(iter(self.problems.values()))
        if self.intent is None:
            return f"{self.directory / 'intent.json'}: missing"
        return self.log.problem


@dataclass(slots=True)
class RunFiles:
    """One run's proof and liveness. `runs_dir` is the shared `runs/` directory (a large tree has 100k runs).

    A whole-tree load keeps of a proof only its summary (the one field every attempt's view reads) and its
    digest (`keep_proof_digest`); the record is read again when something asks for it, and kept from then on.
    The bytes read again are the bytes validated at load when their SHA-256 is the digest; a proof that changed
    or vanished since is not that record: `proof` is None then, and `problem` says why, as a fresh read reports
    a damaged proof. On the L tree a proof's record is about 1,050 bytes and its bytes about 600 (80,000 proofs).

    The proof of an attempt that is no longer its item's latest is history: no decision reads it, and a
    whole-tree load leaves it unread (`defer_proof`, three in four of L's proofs). The first thing that asks for
    anything of the proof (its record, summary, digest, problem) reads it then, as the load would have.
    """

    id: str
    runs_dir: Path
    live: bool = False
    unrecorded: str | None = None
    _proof: Proof | None = None
    _proof_kept: bool = False
    _proof_summary: str | None = None
    _proof_sha256: str | None = None
    _problem: str | None = None
    _deferred: bool = False

    @property
    def proof(self) -> Proof | None:
        self._read_deferred()
        if self._proof is None and self._proof_kept:
            self._proof_kept = False
            self._proof = self._read_kept_proof()
        return self._proof

    @proof.setter
    def proof(self, proof: Proof | None) -> None:
        self._proof, self._proof_kept, self._deferred = proof, False, False
        self._proof_summary = proof.summary if proof is not None else None

    @property
    def proof_sha256(self) -> str | None:
        self._read_deferred()
        return self._proof_sha256

    @proof_sha256.setter
    def proof_sha256(self, digest: str | None) -> None:
        self._proof_sha256 = digest

    @property
    def problem(self) -> str | None:
        self._read_deferred()
        return self._problem

    @problem.setter
    def problem(self, problem: str | None) -> None:
        self._problem = problem

    def keep_proof_digest(self, proof: Proof, sha256: str) -> None:
        """Hold `proof` (whose bytes have `sha256`) as its summary and digest until it is asked for."""
        self._proof, self._proof_kept, self._proof_summary = None, True, proof.summary
        self._proof_sha256, self._deferred = sha256, False

    def read_proof(self, path: str, linked: str | None, by_digest: bool) -> None:
        """Read the proof at `path` (`linked`: why its directory may not be entered): held whole, or as its
        summary and digest (`by_digest`); a missing proof is none yet, a bad one the run's `problem`."""
        try:
            if linked:
                raise CorruptJournal(linked)
            body = read_bytes(path)
            digest = hashlib.sha256(body).hexdigest()
            if by_digest:  # the record itself is dropped: nothing to share or remember
                self.keep_proof_digest(validate_record(path, body, Proof), digest)
            else:
                self.proof, self._proof_sha256 = parse_record(path, body, Proof), digest
            self._problem = None
        except FileNotFoundError:
            pass
        except CorruptJournal as error:
            self._problem = error.message

    def defer_proof(self) -> None:
        """Leave the proof unread until something asks for it (a run that is history, at a whole-tree load)."""
        self._deferred = True

    @property
    def proof_deferred(self) -> bool:
        """True while the proof is left unread (`defer_proof`)."""
        return self._deferred

    def _read_deferred(self) -> None:
        if self._deferred:
            directory = self.directory
            linked = directory_problem(self.runs_dir) or directory_problem(directory)
            self.read_proof(proof_path(self.runs_dir, self.id), linked, by_digest=True)
            self._deferred = False

    def _read_kept_proof(self) -> Proof | None:
        path = proof_path(self.runs_dir, self.id)
        try:
            body = read_bytes(path)
        except (FileNotFoundError, CorruptJournal):
            body = b""
        if hashlib.sha256(body).hexdigest() != self._proof_sha256:
            self._problem = f"{path}: changed since it was read"
            self._proof_summary = None
            return None
        proof = Proof.model_validate_json(body)
        share_fields_sets(proof)
        return proof

    @property
    def has_proof(self) -> bool:
        self._read_deferred()
        return self._proof is not None or self._proof_kept

    @property
    def proof_summary(self) -> str | None:
        """The proof's summary, without building the record."""
        self._read_deferred()
        return self._proof_summary

    @property
    def directory(self) -> Path:
        return self.runs_dir / self.id

    def probe(self) -> bool:
        """Re-probe whether the runner lives; a run whose runner is gone may have left its finish note (why its
        result could not be recorded). True if the liveness changed."""
        live = is_held(self.directory / RUN_LEASE)
        self.unrecorded = None if live else read_note(self.directory, self.id)
        changed = live != self.live
        self.live = live
        return changed


@dataclass(frozen=True, slots=True)
class RunsOfWork:
    """What one work log says about its runs (`Tree.runs_told`), with the log and `key` (its `changes` and event
    count) it was read from.

    - `started`: every run, in the order its attempt started;
    - `unfinished`: started and not finished, a park being no finish (their leases are probed for liveness);
    - `running`: started or resumed and not finished or parked since (an attempt whose runner may be lost).

    The proofs of every run but the latest are history: no decision reads them (see `Tree.refresh_scoped`).
    """

    log: JsonlTail[Any]
    key: tuple[int, int]
    started: tuple[str, ...]
    unfinished: tuple[str, ...]
    running: tuple[str, ...]

    @classmethod
    def of(cls, work: WorkFiles, key: tuple[int, int]) -> RunsOfWork:
        started: dict[str, None] = {}
        finished: set[str] = set()
        running: dict[str, None] = {}
        for event in work.events:
            if event.event == "attempt.started":
                started[event.run_id] = None
                running[event.run_id] = None
            elif event.event == "attempt.resumed":
                running[event.run_id] = None
            elif event.event == "attempt.finished":
                running.pop(event.run_id, None)
                if event.status != "parked":
                    finished.add(event.run_id)
        order = tuple(started)
        return cls(work.log, key, order, tuple(run_id for run_id in order if run_id not in finished), tuple(running))


def proof_path(runs_dir: Path, run_id: str) -> str:
    """The path of a run's proof as a scoped tree notes it."""
    return f"{runs_dir}{os.sep}{run_id}{os.sep}proof.json"


@dataclass(slots=True)
class ApprovalFiles:
    id: str
    directory: Path
    request: ApprovalRequest | None = None
    decision: ApprovalDecision | None = None
    problem: str | None = None


def file_identity(path: Path | str) -> FileIdentity | None:
    """What tells one version of a file from another without reading it; None if there is no file."""
    try:
        found = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return identity_of(found)


def aborted_goal(goal: GoalFiles) -> bool:
    """A goal directory whose `supervisor create` died before `goal.json` was linked: no goal.json, no plan.
    Whole-tree readers leave it out, as SPEC 2 does for a plan directory without request.json; the same
    `supervisor create --id` completes it."""
    return (
        goal.intent is None
        and not goal.plans
        and "directory" not in goal.problems
        and not os.path.lexists(goal.directory / GOAL_RECORD)
    )


def aborted_work(work: WorkFiles) -> bool:
    """A work directory whose creation (`work create`, a plan's materialization) died before `intent.json` was
    linked: no intent, no event. Whole-tree readers leave it out; repeating the creation completes it."""
    return (
        work.intent is None
        and not work.problems
        and not work.log.events
        and not work.log.torn
        and work.log.problem is None
        and not (work.directory / WORK_INTENT).exists()
    )
