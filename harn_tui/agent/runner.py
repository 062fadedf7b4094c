"""One attempt of the agent template, in order: workspace, ask first, work, commit, checks, judge, proof.

`run_agent_template(parameters)` is the entry point a generated script calls; it reads the attempt from the
`HARN_*` variables, prints what happens as readable lines (the host streams them into the transcript), writes the
proof to `$HARN_PROOF` and returns the exit code (0 with a proof, 75 parked on the approval gate). Every failure
it can name becomes a failed proof with the reason in its summary; only a template started outside harn, or one
whose runner died, ends without one.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from harn_tui.agent.attempt import AgentAttempt, AttemptSetupError, Clock, dump_json
from harn_tui.agent.checks import CheckResult, run_checks
from harn_tui.agent.git import GitFailure
from harn_tui.agent.parameters import AgentParameters
from harn_tui.agent.replies import JudgeReply, PlanReply, ask_member, criteria_problems
from harn_tui.agent.requests import WorkspaceInfo, cut_diff, judge_input, worker_input
from harn_tui.agent.worker import WorkerOutcome, run_worker
from harn_tui.agent.workspace import (
    Workspace,
    WorkspaceFailure,
    branch_name,
    commit_workspace,
    create_workspace,
    discard_worktree,
    repository_of,
    workspace_record,
)
from harn_tui.core.addresses import EVENTS
from harn_tui.core.clock import now_iso
from harn_tui.core.creation import ensure_tree_gitignore
from harn_tui.core.errors import NotFound
from harn_tui.core.journal import JsonlTail
from harn_tui.core.records import ApprovalRequest, GitWorkspace, Proof, SpecialistProfile
from harn_tui.core.records.common import REASON_MAX
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER
from harn_tui.core.records.run import CriterionResult
from harn_tui.core.specialists import SpecialistCall, child_environment
from harn_tui.core.workspace_diff import committed_diff
from harn_tui.core.workspaces import WORKSPACE_DIR, leftover_workspaces

PARK_EXIT_CODE = 75
LOST_EXIT_CODE = 1
PLAN_FILE = "agent-plan.json"
APPROVAL_REQUEST_FILE = "approval-request.json"
DETAILS_MAX = 4000
JUDGE_TIMEOUT_FLOOR_S = 1.0
FailureClass = Literal["environment", "upstream", "decision"]


class Stop(Exception):
    """The attempt ends early with a failed proof: `reason` becomes its summary, `class_` its class."""

    def __init__(self, reason: str, class_: FailureClass | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.class_: FailureClass | None = class_


class Lost(Exception):
    """The runner that started this template is gone: nothing is recorded, the workspace stays for the next
    attempt (or `verify`) to find."""


def run_agent_template(parameters: AgentParameters, env: Mapping[str, str] | None = None) -> int:
    """Run one attempt of the agent template with `parameters`; returns the process exit code."""
    try:
        attempt = AgentAttempt.from_environment(env)
    except AttemptSetupError as error:
        print(f"harn agent: {error}", file=sys.stderr)
        return 2
    return AgentRun(parameters, attempt).run()


def emit(line: str) -> None:
    """One readable line for the transcript, at once (the host copies it as it comes)."""
    print(line, flush=True)


@dataclass(frozen=True)
class Members:
    worker: SpecialistProfile
    judge: SpecialistProfile | None


class AgentRun:
    """The seven steps of one attempt; see the module docstring."""

    def __init__(self, parameters: AgentParameters, attempt: AgentAttempt) -> None:
        self.parameters = parameters
        self.attempt = attempt
        self.clock = Clock(attempt)
        self.parent = os.getppid()
        self.workspace: Workspace | None = None
        self.commit: str | None = None

    def keep_going(self) -> bool:
        """False once the runner that started this template has died (this process was re-parented)."""
        return os.getppid() == self.parent

    # ----- the whole attempt

    def run(self) -> int:
        try:
            members = self._members()
            plan = self._resumed_plan() if self.attempt.resumed else None
            cwd = self._prepare_workspace()
            if self.parameters.ask_first and plan is None:
                return self._park(members.worker, cwd)
            outcome = self._work(members.worker, cwd, plan)
            self._commit()
            return self._finish(members, cwd, outcome)
        except Stop as stop:
            self._remove_worktree()
            self._write_proof(
                "failed", stop.reason, self._unknown(f"not judged: {stop.reason}"), stop.class_, self._record()
            )
            return 0
        except Lost:
            emit("harn: the runner of this attempt is gone; stopping (the workspace is left for the next attempt)")
            return LOST_EXIT_CODE

    def _members(self) -> Members:
        worker = self._member(self.parameters.worker, "worker")
        judge = self._member(self.parameters.judge, "judge") if self.parameters.judge else None
        return Members(worker, judge)

    def _member(self, member_id: str, what: str) -> SpecialistProfile:
        profile = self.attempt.manifest.team.get(member_id) or self.parameters.team.get(member_id)
        if profile is None:
            raise Stop(
                f"the {what} {member_id!r} is a member neither of the goal's team nor of the template's", "environment"
            )
        if profile.adapter == "scripted":
            raise Stop(
                f"the {what} {member_id!r} is a scripted profile, which cannot do an agent's work", "environment"
            )
        return profile

    # ----- 1. workspace

    def _prepare_workspace(self) -> Path:
        try:
            return self._build_workspace()
        except GitFailure as error:  # git itself missing or failing outside the steps that name their failure
            raise Stop(f"the workspace cannot be built: {error.message}", "environment") from None

    def _build_workspace(self) -> Path:
        mode = self.parameters.workspace
        layout = self.attempt.layout
        root = layout.root if layout is not None else self.attempt.scratch
        repository = repository_of(root)
        if mode is None:
            mode = "git" if repository is not None else "none"
        if mode == "none":
            emit(f"harn: no git workspace; the worker works in {self.attempt.scratch}")
            return self.attempt.scratch
        if repository is None:
            raise Stop(
                f"no git repository holds the tree's root {root} (the template asks for a git workspace)", "environment"
            )
        if layout is not None:
            ensure_tree_gitignore(layout)
            self._remove_leftovers(repository)
        workspaces = self.attempt.manifest.attempt.workspaces
        branch = branch_name(self.attempt.work_id, self.attempt.run_id)
        try:
            self.workspace = create_workspace(
                repository,
                self.attempt.scratch / WORKSPACE_DIR,
                branch,
                prior=workspaces.prior,
                base=self.parameters.base,
                dependencies=workspaces.dependencies,
            )
        except WorkspaceFailure as failure:
            raise Stop(failure.reason, failure.class_) from None
        origin = (
            f"the work's last passing commit {workspaces.prior.commit[:12]}"
            if workspaces.prior
            else (f"{self.parameters.base or 'HEAD'}")
        )
        merged = f", with {len(workspaces.dependencies)} dependency commit(s)" if workspaces.dependencies else ""
        emit(
            f"harn: workspace {self.workspace.path} on branch {branch} at {self.workspace.base[:12]} (from "
            f"{origin}{merged})"
        )
        return self.workspace.path

    def _remove_leftovers(self, repository: Path) -> None:
        """Workspaces earlier runs of this work left behind (their runner died): removed, their branches kept."""
        layout = self.attempt.layout
        assert layout is not None
        try:
            log = JsonlTail(layout.work(self.attempt.work_id) / EVENTS, WORK_EVENTS_ADAPTER)
            log.refresh()
        except (OSError, ValueError):
            return
        runs = [e.run_id for e in log.events if e.event == "attempt.started" and e.run_id != self.attempt.run_id]
        for leftover in leftover_workspaces(layout.runs, runs, [(self.attempt.work_id, log.events)]):
            emit(f"harn: removing the workspace run {leftover.run_id} left behind ({leftover.path})")
            discard_worktree(repository, leftover.path)

    def _remove_worktree(self) -> None:
        if self.workspace is not None:
            discard_worktree(self.workspace.repository, self.workspace.path)

    # ----- 2. ask first

    def _context(self) -> dict[str, str]:
        return {"HARN_WORK_ID": self.attempt.work_id}

    def _park(self, worker: SpecialistProfile, cwd: Path) -> int:
        member = self.parameters.worker
        request = worker_input(self.attempt, worker, None, self._workspace_info(cwd), planning=True)
        emit(f"harn: asking the worker {member} for a plan before it edits anything")
        asked = ask_member(
            role="worker-plan",
            member_id=member,
            profile=worker,
            request=request,
            model=PlanReply,
            sequence=self.attempt.manifest.attempt.number,
            cwd=str(cwd),
            timeout_s=lambda: self.clock.for_worker(float(worker.timeout_s)),
            context=self._context(),
        )
        if asked.reply is None:
            raise Stop(f"the worker's plan: {asked.failure}")
        assert isinstance(asked.reply, PlanReply)
        plan = asked.reply.model_dump()
        dump_json(self.attempt.scratch / PLAN_FILE, plan)
        details = render_plan(plan)
        dump_json(
            self.attempt.scratch / APPROVAL_REQUEST_FILE,
            {
                "question": bounded(f"Approve the agent's plan for {self.attempt.manifest.work.title}?"),
                "details": details,
            },
        )
        for line in details.splitlines():
            emit(f"plan: {line}")
        self._remove_worktree()  # nothing was edited; the branch stays and the resume checks it out again
        emit("harn: parked until the plan is approved or denied")
        return PARK_EXIT_CODE

    def _resumed_plan(self) -> dict[str, Any] | None:
        """On a resume: the approved plan, or Stop with class `decision` when it was denied."""
        decision = self.attempt.decision()
        if decision.verdict == "deny":
            why = decision.reason or "no reason given"
            raise Stop(f"the operator ({decision.actor}) denied the agent's plan: {why}", "decision")
        emit(f"harn: the plan was approved by {decision.actor}; implementing it")
        try:
            return PlanReply.model_validate_json((self.attempt.scratch / PLAN_FILE).read_bytes()).model_dump()
        except (OSError, ValidationError):  # the plan as the approval request rendered it
            details = self._request_details()
            return {"steps": [bounded(details, 250)], "rationale": bounded(details, 800)}

    def _request_details(self) -> str:
        path = self.attempt.approval_request
        try:
            details = ApprovalRequest.model_validate_json(path.read_bytes()).details if path is not None else None
        except (OSError, ValidationError):
            details = None
        return details or "(the approved plan could not be read)"

    # ----- 3. work

    def _workspace_info(self, cwd: Path) -> WorkspaceInfo:
        if self.workspace is None:
            return WorkspaceInfo("none", str(cwd))
        return WorkspaceInfo("git", str(cwd), self.workspace.branch, self.workspace.base)

    def _work(self, worker: SpecialistProfile, cwd: Path, plan: dict[str, Any] | None) -> WorkerOutcome:
        member = self.parameters.worker
        request = worker_input(self.attempt, worker, plan, self._workspace_info(cwd))
        call = SpecialistCall(
            role="worker",
            member_id=member,
            profile=worker,
            request=request,
            sequence=self.attempt.manifest.attempt.number,
            call_index=1,
            context=self._context(),
        )
        timeout = self.clock.for_worker(float(worker.timeout_s))
        emit(f"harn: worker {member} ({worker.adapter}) starts in {cwd} (at most {timeout:.0f} s)")
        outcome = run_worker(
            member,
            worker,
            request,
            cwd=cwd,
            env=child_environment(call),
            timeout_s=timeout,
            agent_args=self.parameters.agent_args,
            emit=emit,
            keep_going=self.keep_going,
        )
        if outcome.abandoned:
            raise Lost()
        if outcome.class_ == "environment":
            raise Stop(outcome.reason or "the worker cannot run", "environment")
        emit(f"harn: worker {member} " + ("finished" if outcome.ok else f"failed: {outcome.reason}"))
        return outcome

    # ----- 4. commit

    def _commit(self) -> None:
        if self.workspace is None:
            return
        message = f"{self.attempt.work_id}: attempt {self.attempt.manifest.attempt.number}"
        try:
            self.commit = commit_workspace(self.workspace, message)
        except GitFailure as error:
            raise Stop(f"the host could not commit the workspace: {error.message}", "environment") from None
        changed = "no change" if self.commit == self.workspace.base else f"commit {self.commit[:12]}"
        emit(f"harn: {changed} on {self.workspace.branch}")

    def _record(self) -> GitWorkspace | None:
        if self.workspace is None or self.commit is None:
            return None
        try:
            return workspace_record(self.workspace, self.commit)
        except GitFailure:
            return None

    # ----- 5, 6, 7. checks, judge, proof

    def _finish(self, members: Members, cwd: Path, outcome: WorkerOutcome) -> int:
        record = self._record()
        if not outcome.ok:
            reason = outcome.reason or "the worker failed"
            self._remove_worktree()
            self._write_proof(
                "failed", self._summary(record, reason), self._unknown(f"not checked or judged: {reason}"), None, record
            )
            return 0
        checks = run_checks(
            self.parameters.check_argvs(),
            cwd=cwd,
            env=dict(os.environ),
            seconds_left=lambda: self.clock.left(float("inf")),
            keep_going=self.keep_going,
            emit=emit,
        )
        if not self.keep_going():
            raise Lost()
        passed = sum(1 for c in checks if c.passed)
        judged, verdict = self._judge(members, cwd, record, checks)
        status: Literal["succeeded", "failed"] = "succeeded" if passed == len(checks) else "failed"
        parts = [f"checks {passed}/{len(checks)} passed" if checks else "no checks", verdict]
        self._remove_worktree()
        self._write_proof(status, self._summary(record, "; ".join(p for p in parts if p)), judged, None, record)
        return 0

    def _judge(
        self, members: Members, cwd: Path, record: GitWorkspace | None, checks: Sequence[CheckResult]
    ) -> tuple[list[CriterionResult], str]:
        criteria = list(self.attempt.manifest.work.acceptance)
        if members.judge is None:
            if not checks:
                return self._unknown("no judge and no checks"), ""
            ok = all(c.passed for c in checks)
            evidence = bounded("; ".join(c.evidence() for c in checks), 4000)
            return [
                CriterionResult(criterion=c, status="satisfied" if ok else "unsatisfied", evidence=evidence)
                for c in criteria
            ], ""
        member = self.parameters.judge
        assert member is not None
        diff = self._diff(record)
        request = judge_input(self.attempt, members.judge, diff, [c.to_json() for c in checks])
        emit(f"harn: judge {member} ({members.judge.adapter}) reads the diff and the checks")
        judge_profile = members.judge
        asked = ask_member(
            role="judge",
            member_id=member,
            profile=judge_profile,
            request=request,
            model=JudgeReply,
            sequence=self.attempt.manifest.attempt.number,
            cwd=str(cwd),
            timeout_s=lambda: max(JUDGE_TIMEOUT_FLOOR_S, self.clock.left(float(judge_profile.timeout_s))),
            context=self._context(),
            semantic=criteria_problems(criteria),
        )
        if asked.reply is None:
            emit(f"harn: judge: {asked.failure}")
            return self._unknown(f"not judged: {asked.failure}"), f"judge: {asked.failure}"
        assert isinstance(asked.reply, JudgeReply)
        emit(f"harn: judge {member}: {asked.reply.summary}")
        by_name = {c.criterion: c for c in asked.reply.criteria}
        return [by_name[c] for c in criteria], f"judge: {asked.reply.summary}"

    def _diff(self, record: GitWorkspace | None) -> str:
        if record is None:
            return "(no git workspace: there is no diff)"
        try:
            return cut_diff(committed_diff(record), self.parameters.max_diff_kb)
        except NotFound as error:
            return f"(the diff cannot be read: {error.message})"

    def _unknown(self, evidence: str) -> list[CriterionResult]:
        return [
            CriterionResult(criterion=c, status="unknown", evidence=bounded(evidence, 4000))
            for c in self.attempt.manifest.work.acceptance
        ]

    def _summary(self, record: GitWorkspace | None, rest: str) -> str:
        if record is None:
            return bounded(rest)
        where = (
            f"{record.branch} at {record.commit[:12]}: +{record.insertions} -{record.deletions} in "
            f"{record.files_changed} files"
        )
        return bounded(f"{where}; {rest}")

    def _write_proof(
        self,
        status: Literal["succeeded", "failed"],
        summary: str,
        acceptance: list[CriterionResult],
        class_: FailureClass | None,
        record: GitWorkspace | None,
    ) -> None:
        proof = Proof.model_validate(
            {
                "run_id": self.attempt.run_id,
                "status": status,
                "summary": summary or status,
                "acceptance": acceptance,
                "class": class_,
                "finished_at": now_iso(),
                "workspace": record,
            }
        )
        dump_json(self.attempt.proof_path, proof.model_dump(mode="json", by_alias=True))
        emit(f"harn: proof: {status}: {summary}")


def render_plan(plan: Mapping[str, Any]) -> str:
    """The approval's details: the numbered steps, then the rationale (at most 4,000 characters)."""
    lines = [f"{n}. {step}" for n, step in enumerate(plan["steps"], 1)]
    lines += ["", f"Rationale: {plan['rationale']}"]
    return bounded("\n".join(lines), DETAILS_MAX)


def bounded(text: str, limit: int = REASON_MAX) -> str:
    text = text.strip()
    return text if len(text) <= limit else text[: limit - 3] + "..."
