"""The loaded `.harnery/` tree: every record and log, re-readable one changed file at a time.

A `Tree` holds values only; state is derived from it by `harn_tui.core.projection`. Loading never raises
for damage: a broken file is kept as a `problem` on the goal, plan, work, run or approval it belongs to.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from harn_tui.core.addresses import (
    APPROVAL_DECISION_RECORD,
    APPROVAL_REQUEST_RECORD,
    EVENTS,
    GOAL_RECORD,
    LOOP_LOCK,
    PLAN_RECORDS,
    REVISION_RECORDS,
    TRANSCRIPT,
    WORK_INTENT,
    Address,
    address_of,
    revision_dir_name,
)
from harn_tui.core.errors import CorruptJournal
from harn_tui.core.fsio import is_temp_name
from harn_tui.core.ids import check_id, is_valid_id
from harn_tui.core.journal import (
    FileIdentity,
    JsonlTail,
    not_kept,
    parse_record,
    read_bytes,
    share_parts,
)
from harn_tui.core.layout import Layout
from harn_tui.core.leases import is_held
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.records import (
    ApprovalDecision,
    ApprovalRequest,
    GoalIntent,
    PlanRequest,
    Proposal,
    ReviewReceipt,
    WorkIntent,
)
from harn_tui.core.tree_files import (
    ApprovalFiles,
    GoalFiles,
    PlanFiles,
    RevisionFiles,
    RunFiles,
    RunsOfWork,
    WorkFiles,
    aborted_goal,
    aborted_work,
    file_identity,
    proof_path,
)


class Tree:
    """Everything loaded from one `.harnery/`, keyed by ID; `refresh_path` re-reads one changed file."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.goals: dict[str, GoalFiles] = {}
        self.work: dict[str, WorkFiles] = {}
        self.runs: dict[str, RunFiles] = {}
        self.approvals: dict[str, ApprovalFiles] = {}
        self.version = 0
        # work id -> `version` when it, or a run or approval its events name, was last re-read here
        self.work_stamps: dict[str, int] = {}
        # bumped whenever a work intent is (re)read: dependency graphs may have changed
        self.intent_version = 0
        self._run_owner: dict[str, str] = {}
        self._approval_owner: dict[str, str] = {}
        self._work_dir = layout.work_dir
        self._runs_dir = layout.runs
        self._runs_prefix = f"{self._runs_dir}{os.sep}"
        # a top-level directory that is a symbolic link (or no directory): nothing under it is entered
        self._top_problems = {
            top: problem
            for top in ("supervisors", "work", "runs", "approvals")
            if (problem := directory_problem(layout.base / top))
        }
        # while `load` runs: the names listed as plain directories under each top-level directory (one scandir
        # each instead of an lstat per goal, work item, run and approval)
        self._plain: dict[str, set[str]] = {}
        # path -> file identity when last read, and every log with the work it belongs to: kept by scoped
        # trees only, for `refresh_scoped`
        self._identities: dict[str, FileIdentity | None] | None = None
        self._logs: dict[str, tuple[JsonlTail[Any], str | None]] = {}
        # work id -> what its log says about its runs, kept until the log changes
        self._runs_told: dict[str, RunsOfWork] = {}
        # proofs held as their summary and digest until asked for (`RunFiles.keep_proof_digest`): a whole-tree
        # load's
        self._proofs_by_digest = False
        # while `load` runs: the proofs of runs that are history are left unread (`RunFiles.defer_proof`)
        self._deferring = False

    # ----- whole-tree and goal-scoped loading

    @classmethod
    def load(cls, layout: Layout) -> Tree:
        """Load every goal, work item, run proof and approval."""
        tree = cls(layout)
        tree._proofs_by_digest = True
        tree._plain = {top: _plain_dirs(layout.base / top) for top in ("supervisors", "work", "runs", "approvals")}
        tree._deferring = True
        with bulk_allocation(freeze=True), not_kept():
            for goal_id in ids_in(layout.supervisors):
                if aborted_goal(tree.load_goal(goal_id)):
                    del tree.goals[goal_id]
            for work_id in ids_in(layout.work_dir):
                if aborted_work(tree.load_work(work_id)):
                    del tree.work[work_id]
            for approval_id in ids_in(layout.approvals):
                tree.load_approval(approval_id)
            for work in tree.work.values():
                tree.load_runs_of(work)
        tree._plain, tree._deferring = {}, False
        return tree

    @classmethod
    def load_scoped(cls, layout: Layout, goal_id: str) -> Tree:
        """Load one goal, the work it governs (with dependencies) and their runs and approvals only.

        No collector pause here: a scoped tree usually lives for one transition or tick, and pausing would
        promote all of it to the older generations, whose full collections then cost more than they saved.
        """
        tree = cls(layout)
        tree._identities = {}
        goal = tree.load_goal(goal_id)
        tree.load_work_closure(tree.governed_candidates(goal))
        return tree

    @classmethod
    def load_standalone(cls, layout: Layout, work_id: str) -> Tree:
        """Load one work item, its transitive dependencies, their runs and approvals."""
        tree = cls(layout)
        tree.load_work_closure([work_id])
        return tree

    def load_work_closure(self, work_ids: list[str]) -> None:
        """Load `work_ids` and their transitive dependencies (existing directories only), then their runs and
        approvals."""
        pending = list(work_ids)
        loaded: list[WorkFiles] = []
        while pending:
            work_id = pending.pop()
            if work_id in self.work or not is_valid_id(work_id):
                continue
            work = self.load_work(work_id)
            loaded.append(work)
            if work.intent is not None:
                pending.extend(work.intent.dependencies)
        for work in loaded:
            self.load_named_by(work)

    def governed_candidates(self, goal: GoalFiles) -> list[str]:
        ids: list[str] = []
        if goal.intent is not None and goal.intent.root_work_id:
            ids.append(goal.intent.root_work_id)
        for plan in goal.plans.values():
            for event in plan.events:
                if event.event == "plan.applied":
                    ids.extend(event.work_ids)
        return ids

    def load_goal(self, goal_id: str) -> GoalFiles:
        directory = self.layout.goal(goal_id)
        goal = GoalFiles(goal_id, directory)
        self.goals[goal_id] = goal
        linked = self._linked("supervisors", directory, goal_id) or directory_problem(directory / "plans")
        if linked:
            goal.problems["directory"] = linked
        else:
            self._read_goal_intent(goal)
            for plan_id in ids_in(directory / "plans"):
                self._load_plan(goal, plan_id)
        goal.loop_held = is_held(directory / LOOP_LOCK)
        self.version += 1
        return goal

    def _read_goal_intent(self, goal: GoalFiles) -> None:
        path = goal.directory / GOAL_RECORD
        goal.problems.pop(GOAL_RECORD, None)
        try:
            self._note(path)
            goal.intent = parse_record(path, read_bytes(path), GoalIntent)
            if goal.intent.id != goal.id:
                goal.problems[GOAL_RECORD] = f"{path}: id {goal.intent.id!r} does not match its directory"
        except FileNotFoundError:
            goal.problems[GOAL_RECORD] = f"{path}: missing"
        except CorruptJournal as error:
            goal.problems[GOAL_RECORD] = error.message

    def _load_plan(self, goal: GoalFiles, plan_id: str) -> PlanFiles:
        plan = PlanFiles(plan_id, goal.directory / "plans" / plan_id)
        goal.plans[plan_id] = plan
        linked = directory_problem(plan.directory)
        if linked:
            plan.problems["directory"] = linked
            return plan
        for name in PLAN_RECORDS:
            self._read_plan_file(plan, name)
        self._refresh_log(plan.log, None)
        self._read_revisions(plan)
        return plan

    def _read_revisions(self, plan: PlanFiles) -> None:
        """The files of every round the log opened that were not read yet, or were missing when last read (a
        plan without revisions costs nothing here: no directory is listed)."""
        read = self._identities
        for round_number in plan.opened_rounds():
            revision = plan.revisions.get(round_number)
            if revision is None:
                revision = RevisionFiles(round_number, plan.directory / revision_dir_name(round_number))
                plan.revisions[round_number] = revision
            for name in REVISION_RECORDS:
                path = f"{revision.directory}{os.sep}{name}"
                if name in revision.problems or (read is not None and path in read):
                    continue
                if getattr(revision, "candidate" if name == "candidate.json" else "review") is None:
                    self._read_revision_file(revision, name)

    def _read_revision_file(self, revision: RevisionFiles, name: str) -> None:
        path = revision.directory / name
        revision.problems.pop(name, None)
        try:
            self._note(path)
            body = read_bytes(path)
        except FileNotFoundError:
            return
        except CorruptJournal as error:
            revision.problems[name] = error.message
            return
        try:
            if name == "candidate.json":
                revision.candidate = parse_record(path, body, Proposal)
                revision.candidate_sha256 = hashlib.sha256(body).hexdigest()
            else:
                revision.review = parse_record(path, body, ReviewReceipt)
        except CorruptJournal as error:
            revision.problems[name] = error.message

    def _read_plan_file(self, plan: PlanFiles, name: str) -> None:
        path = plan.directory / name
        plan.problems.pop(name, None)
        try:
            self._note(path)
            body = read_bytes(path)
        except FileNotFoundError:
            return
        except CorruptJournal as error:
            plan.problems[name] = error.message
            return
        try:
            if name == "request.json":
                plan.request = parse_record(path, body, PlanRequest)
            elif name == "proposal.json":
                plan.proposal = parse_record(path, body, Proposal)
                plan.proposal_sha256 = hashlib.sha256(body).hexdigest()
            elif name == "candidate.json":
                plan.candidate = parse_record(path, body, Proposal)
                plan.candidate_sha256 = hashlib.sha256(body).hexdigest()
            elif name == "review.json":
                plan.review = parse_record(path, body, ReviewReceipt)
        except CorruptJournal as error:
            plan.problems[name] = error.message

    def load_work(self, work_id: str) -> WorkFiles:
        work = WorkFiles(work_id, self._work_dir / check_id(work_id, "work id"))
        self.work[work_id] = work
        linked = self._linked("work", work.directory, work_id)
        if linked:
            work.problems["directory"] = linked
            self.version += 1
            self.work_stamps[work_id] = self.version
            return work
        self._read_work_intent(work)
        self._refresh_log(work.log, work_id)
        self.version += 1
        self.work_stamps[work_id] = self.version
        return work

    def _touch(self, work_id: str | None) -> None:
        """Note that a work item's view may have changed (see `projection.cache`)."""
        if work_id is not None:
            self.version += 1
            self.work_stamps[work_id] = self.version

    def _read_work_intent(self, work: WorkFiles) -> None:
        self.intent_version += 1
        path = f"{work.directory}{os.sep}intent.json"
        work.problems.pop(WORK_INTENT, None)
        try:
            self._note(path)
            body = read_bytes(path)
        except FileNotFoundError:
            work.intent = None
            return
        except CorruptJournal as error:
            work.intent = None
            work.problems[WORK_INTENT] = error.message
            return
        try:
            work.intent = parse_record(path, body, WorkIntent)
            share_parts(work.intent, ("template", "source"))
            if work.intent.id != work.id:
                work.problems[WORK_INTENT] = f"{path}: id {work.intent.id!r} does not match its directory"
        except CorruptJournal as error:
            work.problems[WORK_INTENT] = error.message

    def load_runs_of(self, work: WorkFiles) -> None:
        """Read the proof and liveness of every run the work's events name; during a whole-tree load, the proofs
        of all but the latest are left unread until asked for (`RunFiles.defer_proof`)."""
        told = self.runs_told(work)
        history = len(told.started) - 1 if self._deferring else 0
        for position, run_id in enumerate(told.started):
            self._run_owner[run_id] = work.id
            self.load_run(run_id, probe_live=run_id in told.unfinished, defer=position < history)

    def load_run(self, run_id: str, probe_live: bool = True, defer: bool = False) -> RunFiles:
        run = self.runs.get(run_id)
        if run is None:
            run = self.runs[run_id] = RunFiles(check_id(run_id, "run id"), self._runs_dir)
        if not (run.proof_deferred or run.has_proof):
            directory = f"{self._runs_prefix}{run_id}"  # strings, no Path: a large tree has 100k runs
            path = f"{directory}{os.sep}proof.json"  # as `proof_path` spells it
            self._note(path)
            linked = self._linked("runs", directory, run_id)
            if defer and not linked:
                run.defer_proof()
            else:
                run.read_proof(path, linked, by_digest=self._proofs_by_digest)
        if probe_live:
            run.probe()
        else:
            run.live, run.unrecorded = False, None
        self.version += 1
        self._touch(self._run_owner.get(run_id))
        return run

    def load_named_by(self, work: WorkFiles) -> None:
        """Read the runs and approvals the work's events name."""
        self.load_runs_of(work)
        self.load_approvals_of(work)

    def load_approvals_of(self, work: WorkFiles) -> None:
        for event in work.events:
            if event.event == "attempt.finished" and event.approval_id:
                self._approval_owner[event.approval_id] = work.id
                self.load_approval(event.approval_id)

    def load_approval(self, approval_id: str) -> ApprovalFiles:
        approval = ApprovalFiles(approval_id, self.layout.approval(approval_id))
        self.approvals[approval_id] = approval
        approval.problem = self._linked("approvals", approval.directory, approval_id)
        names = (
            ()
            if approval.problem
            else ((APPROVAL_REQUEST_RECORD, ApprovalRequest), (APPROVAL_DECISION_RECORD, ApprovalDecision))
        )
        for name, model in names:
            path = approval.directory / name
            try:
                self._note(path)
                body = read_bytes(path)
            except FileNotFoundError:
                continue
            except CorruptJournal as error:
                approval.problem = error.message
                continue
            try:
                if model is ApprovalRequest:
                    approval.request = parse_record(path, body, ApprovalRequest)
                else:
                    approval.decision = parse_record(path, body, ApprovalDecision)
            except CorruptJournal as error:
                approval.problem = error.message
        self.version += 1
        self._touch(self._approval_owner.get(approval_id))
        if approval.request is not None:
            self._touch(approval.request.work_id)
        return approval

    # ----- a scoped tree kept between transitions and ticks (`harn_tui.core.held`)

    def _note(self, path: Path | str) -> None:
        """Remember the identity of a file about to be read (scoped trees only); taken before the read, so a
        file that changes in between looks changed next time, never the other way round."""
        if self._identities is not None:
            key = os.fspath(path)
            identity = file_identity(key)
            if identity is not None:
                self._identities[key] = identity

    def _refresh_log(self, log: JsonlTail[Any], work_id: str | None) -> bool:
        """Refresh a log; a scoped tree keeps it (with the work it belongs to) for `refresh_scoped`, even when it
        does not exist yet (it may appear later)."""
        if self._identities is not None:
            self._logs[os.fspath(log.path)] = (log, work_id)
        return log.refresh()

    def refresh_scoped(self, goal_id: str, records: bool = True) -> bool:
        """Bring a tree from `load_scoped(goal_id)` up to date with the disk, in place; False when it cannot be
        reused (a record it read has changed, or the goal or an item is unreadable): load the goal again then.

        Every log the tree read is checked by identity (device, inode, size, modification and change times)
        against the identity its tail last read (`JsonlTail.seen`), so what this process appended itself under
        the lease is no change. An unchanged identity is unchanged bytes. A log whose identity changed is read
        again whole (the parsed prefix with the same bytes is reused, see `journal.ParsedMemo`). Then every
        record a decision can read is checked the same way, against its identity when it was read. Records are
        written once, so one that changed is damage or a replacement, and the tree is not reused. Records that
        were missing are tried again, leases re-probed, and anything new the goal now names (plans, work, runs,
        approvals) is loaded. The result is the tree `load_scoped` would read now, at the cost of a `stat` per
        file, with one exception, the history below.

        History: the proofs of attempts that are no longer their item's latest (`RunsOfWork.started` but the
        last) are trusted once read. No decision reads them: a retry's manifest (`manifest.prior_synopsis`), the
        planner's input (`proof_summary`) and an acceptance (`proof_sha256`) read the latest attempt's proof
        only, and a damaged proof does not make its goal corrupt. They are most of an old goal's files (about
        300 of 620 on the benchmark's large goals). A fresh read (any new process, `harn verify`) still reads
        them.

        With `records` false (a read that decides nothing, such as the goal document a tick reports) only the
        logs are checked: records read before are trusted until the next deciding read checks them.
        """
        identities = self._identities
        goal = self.goals.get(goal_id)
        if identities is None or goal is None or goal.intent is None or goal.problems:
            return False
        for path, (log, work_id) in list(self._logs.items()):
            self._catch_up(path, log, work_id)
        if records:  # after the logs: they tell which proofs are history
            runs_dir = self._runs_dir
            history = {
                proof_path(runs_dir, run_id)
                for work in self.work.values()
                for run_id in self.runs_told(work).started[:-1]
            }
            for path, identity in identities.items():
                if path not in history and file_identity(path) != identity:
                    return False
        if any(work.intent is None or work.problems for work in self.work.values()):
            return False
        self._refresh_plans(goal)
        self._refresh_pending_records()
        self.refresh_liveness()
        self.load_work_closure(self.governed_candidates(goal))
        self.version += 1
        return True

    def _catch_up(self, path: str, log: JsonlTail[Any], work_id: str | None) -> None:
        """A log whose identity is not the one its tail read: read it again whole, and what it now names."""
        if file_identity(path) == log.seen:
            return
        log.identity = None
        self._refresh_log(log, work_id)
        if work_id is not None:
            self._touch(work_id)
            self.load_named_by(self.work[work_id])

    def refresh_logs_of(self, work_ids: Iterable[str]) -> None:
        """Bring the logs of these loaded items up to date the way `refresh_scoped` does every log: for a writer
        under the lease that reads these items only (an attempt's finish, see `runner`)."""
        for work_id in work_ids:
            work = self.work.get(work_id)
            if work is not None:
                self._catch_up(os.fspath(work.log.path), work.log, work_id)

    def _refresh_plans(self, goal: GoalFiles) -> None:
        """New plans, and the records of known plans that had not been written when last read."""
        for plan_id in ids_in(goal.directory / "plans"):
            if plan_id not in goal.plans:
                self._load_plan(goal, plan_id)
        read = self._identities or {}
        for plan in goal.plans.values():
            for name in PLAN_RECORDS:
                if name not in plan.problems and f"{plan.directory}{os.sep}{name}" not in read:
                    self._read_plan_file(plan, name)
            self._read_revisions(plan)

    def _refresh_pending_records(self) -> None:
        """Proofs of runs and decisions of approvals that had not been written when last read."""
        for run in list(self.runs.values()):
            if not run.has_proof and run.problem is None and file_identity(proof_path(self._runs_dir, run.id)):
                self.load_run(run.id)
        for approval in list(self.approvals.values()):
            if approval.decision is None and file_identity(approval.directory / APPROVAL_DECISION_RECORD):
                self.load_approval(approval.id)

    def _linked(self, top: str, directory: Path | str, name: str) -> str | None:
        """Why a goal, work, run or approval directory may not be entered (it, or the top-level directory holding
        it, is a symbolic link or no directory), or None. One `lstat`, unless `load` listed it as a plain
        directory: links are never followed (SPEC 1)."""
        problem = self._top_problems.get(top)
        if problem is not None:
            return problem
        plain = self._plain.get(top)
        return None if plain is not None and name in plain else directory_problem(directory)

    # ----- incremental refresh

    def refresh_path(self, path: Path) -> bool:
        """Re-read the one record or log at `path` (anything under `.harnery/`); True if state changed."""
        try:
            parts = path.resolve().relative_to(self.layout.base.resolve()).parts
        except ValueError:
            return False
        address = address_of(parts)
        return address is not None and self.refresh_address(address)

    def refresh_address(self, address: Address) -> bool:
        """Re-read the record or log `address` names; True if state changed."""
        changed = self._refresh_address(address)
        if changed:
            self.version += 1
        return changed

    def _refresh_address(self, address: Address) -> bool:
        if address.kind in ("goal", "plan", "revision"):
            return self._refresh_goal_part(address)
        if address.kind == "work":
            return self._refresh_work_part(address.id, address.name)
        if address.kind == "run":
            if address.name != TRANSCRIPT and address.id in self.runs:
                self.load_run(address.id)
                return True
            return False
        if address.kind == "approval":
            self.load_approval(address.id)
            return True
        return False

    def _refresh_goal_part(self, address: Address) -> bool:
        goal_id = address.id
        goal = self.goals.get(goal_id)
        if goal is None or (address.kind == "goal" and address.name is None):
            if (self.layout.goal(goal_id) / GOAL_RECORD).exists() or goal is not None:
                self.load_goal(goal_id)
                return True
            return False
        if address.kind == "goal":
            if address.name == GOAL_RECORD:
                self._read_goal_intent(goal)
                return True
            if address.name == LOOP_LOCK:
                held = is_held(goal.directory / LOOP_LOCK)
                changed = held != goal.loop_held
                goal.loop_held = held
                return changed
            return False  # the plans/ directory itself
        assert address.plan is not None
        plan = goal.plans.get(address.plan)
        if plan is None or (address.kind == "plan" and address.name is None):
            self._load_plan(goal, address.plan)
            return True
        if address.kind == "plan":
            if address.name == EVENTS:
                changed = plan.log.refresh()
                if changed:
                    self._read_revisions(plan)
                return changed
            assert address.name is not None
            self._read_plan_file(plan, address.name)
            return True
        revision = plan.revisions.get(address.round) if address.round is not None else None
        if revision is None or address.name is None:
            return False
        self._read_revision_file(revision, address.name)
        return True

    def _refresh_work_part(self, work_id: str, name: str | None) -> bool:
        work = self.work.get(work_id)
        if work is None or name is None:
            self.load_named_by(self.load_work(work_id))
            return True
        if name == WORK_INTENT:
            self._read_work_intent(work)
            self._touch(work_id)
            return True
        changed = work.log.refresh()  # its events.jsonl
        if changed:
            self._touch(work_id)
            self.load_named_by(work)
        return changed

    def run_owner(self, run_id: str) -> str | None:
        """The work whose events started `run_id`, among the loaded work."""
        return self._run_owner.get(run_id)

    def runs_told(self, work: WorkFiles) -> RunsOfWork:
        """What the work's log says about its runs, kept until the log changes."""
        key = (work.log.changes, len(work.events))
        known = self._runs_told.get(work.id)
        if known is not None and known.log is work.log and known.key == key:
            return known
        told = RunsOfWork.of(work, key)
        self._runs_told[work.id] = told
        return told

    def refresh_liveness(self) -> bool:
        """Re-probe the leases of runs not known to be finished and of every goal's loop (no file event
        marks a process's death). True if any changed."""
        changed = False
        for work in self.work.values():
            for run_id in self.runs_told(work).unfinished:
                run = self.runs.get(run_id)
                if run is None:
                    continue
                if run.probe():
                    self._touch(work.id)
                    changed = True
        for goal in self.goals.values():
            held = is_held(goal.directory / LOOP_LOCK)
            if held != goal.loop_held:
                goal.loop_held = held
                changed = True
        if changed:
            self.version += 1
        return changed


FREEZE_ABOVE_OBJECTS = 200_000


@contextlib.contextmanager
def bulk_allocation(freeze: bool) -> Iterator[None]:
    """Pause the cyclic garbage collector while a load allocates many objects that form no cycles.

    A large tree is millions of small objects; with the collector running, each full collection re-walks
    all of them and a whole-tree load takes about twice as long. With `freeze`, a load that allocated more
    than `FREEZE_ABOVE_OBJECTS` objects moves everything alive to the permanent generation (`gc.freeze`),
    so later collections (a console's every keypress) never walk the loaded tree again. Reference counting
    still frees the objects when the tree is dropped; only cyclic garbage alive at that moment is kept.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
        if freeze and gc.get_count()[0] > FREEZE_ABOVE_OBJECTS:
            gc.freeze()
    finally:
        if enabled:
            gc.enable()


def _plain_dirs(directory: Path) -> set[str]:
    """Names of the entries of `directory` that are directories, not links (from the listing, no stat each)."""
    try:
        with os.scandir(directory) as entries:
            return {entry.name for entry in entries if entry.is_dir(follow_symlinks=False)}
    except OSError:
        return set()


def ids_in(directory: Path) -> list[str]:
    """Entries of `directory` with a legal ID, sorted; temp files and stray names are skipped."""
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return []
    return sorted(name for name in names if is_valid_id(name) and not is_temp_name(name))
