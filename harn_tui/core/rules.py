"""The rules: the state vocabulary, each transition's legality as named checks, and the goal's thirteen rules.

One rule, one function. A transition raises `Refused` with the `why` of the first failing check; the console
lists the same checks (a failing one shows that same `why`), `harn pending` and the goal projection ask the same
functions. The module reads views through the small protocols below, so it sits under the projection: records
and errors are all it imports.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from harn_tui.core.errors import Refused
from harn_tui.core.records import Disposition, Finding, GoalIntent, PlanEvent, PlanRequest, Proposal
from harn_tui.core.records.plan import Review

WorkState = Literal[
    "succeeded", "cancelled", "waiting", "running", "ready", "awaiting_approval", "in_review", "blocked", "corrupt"
]
WorkAction = Literal["none", "wait", "run", "resolve_approval", "resume", "review", "retry"]
GoalState = Literal["corrupt", "succeeded", "running", "ready", "awaiting_attention", "budget_exhausted", "blocked"]
GoalAction = Literal[
    "none",
    "wait",
    "run",
    "resolve_approval",
    "review",
    "review_plan",
    "retry_plan",
    "retry",
    "plan_initial",
    "plan_milestone",
    "replan",
]
NextAction = WorkAction | GoalAction
PlanStatus = Literal[
    "reopened",
    "completed",
    "applied",
    "rejected",
    "retry_requested",
    "attention",
    "failed",
    "proposed",
    "planning",
    "interrupted",
]
AttemptStatus = Literal["running", "passed", "failed", "parked", "lost"]

REOPENABLE: frozenset[WorkState] = frozenset({"in_review", "succeeded", "blocked", "cancelled"})
CANCELLABLE: frozenset[WorkState] = frozenset({"waiting", "ready", "awaiting_approval", "blocked", "in_review"})


# ----- what the rules read (the projection's views satisfy these)


class WorkFacts(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def state(self) -> WorkState: ...
    @property
    def next_action(self) -> WorkAction: ...
    @property
    def reason(self) -> str: ...
    @property
    def open_findings(self) -> Sequence[Finding]: ...
    @property
    def approval_id(self) -> str | None: ...
    @property
    def approval_decided(self) -> bool: ...


class PlanFacts(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def status(self) -> PlanStatus: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def request(self) -> PlanRequest: ...
    @property
    def proposal(self) -> Proposal | None: ...
    @property
    def proposal_sha256(self) -> str | None: ...
    @property
    def events(self) -> Sequence[PlanEvent]: ...
    def round_candidate(self, round_number: int) -> tuple[Proposal | None, str | None]: ...


class GoalFacts(Protocol):
    """What the plan rules read of a goal: its latest plan, active root and fingerprint, mission, slots and
    milestones."""

    @property
    def id(self) -> str: ...
    @property
    def intent(self) -> GoalIntent | None: ...
    @property
    def active_root(self) -> str | None: ...
    @property
    def graph_fingerprint(self) -> str: ...
    @property
    def mission_complete(self) -> bool: ...
    @property
    def replans_used(self) -> int: ...
    @property
    def replans_remaining(self) -> int: ...
    @property
    def milestones_completed(self) -> int: ...
    @property
    def latest_plan(self) -> PlanFacts | None: ...


class AttemptFacts(Protocol):
    """What the attempt rules read of a work item's latest attempt."""

    @property
    def class_(self) -> str | None: ...


class DispatchFacts(WorkFacts, Protocol):
    """What the attempt rules read of a work item, beyond `WorkFacts`: whether it is in its goal's active graph,
    its charged attempts against its own bound, and its latest attempt."""

    @property
    def active(self) -> bool: ...
    @property
    def charged_attempts(self) -> int: ...
    @property
    def max_attempts(self) -> int: ...
    @property
    def latest_attempt(self) -> AttemptFacts | None: ...


class GoalBudgetFacts(Protocol):
    """What the attempt rules read of the goal governing the work."""

    @property
    def id(self) -> str: ...
    @property
    def state(self) -> GoalState: ...
    @property
    def intent(self) -> GoalIntent | None: ...
    @property
    def attempts_remaining(self) -> int: ...


P = TypeVar("P", bound=PlanFacts)


# ----- checks


@dataclass(frozen=True)
class Check:
    """One named condition of a rule. `why` says what is so: the refusal's text when it does not hold."""

    name: str
    holds: bool
    why: str


@dataclass(frozen=True)
class Checks:
    """A rule's checks in the order the transition applies them."""

    checks: tuple[Check, ...]

    @property
    def holds(self) -> bool:
        return all(check.holds for check in self.checks)

    @property
    def failing(self) -> list[Check]:
        return [check for check in self.checks if not check.holds]

    def named(self, name: str) -> Check:
        return next(check for check in self.checks if check.name == name)

    def require(self) -> None:
        """Raise `Refused` with the first failing check's `why`."""
        failing = self.failing
        if failing:
            raise Refused(failing[0].why)


# ----- plan transitions


def plan_is_proposed(plan: PlanFacts) -> Check:
    return Check("proposed", plan.status == "proposed", f"plan {plan.id} is {plan.status}, not proposed")


def plan_is_latest(goal: GoalFacts, plan: PlanFacts) -> Check:
    latest = goal.latest_plan
    if latest is None or latest.id == plan.id:
        return Check("latest plan", True, f"{plan.id} is the latest plan")
    return Check(
        "latest plan", False, f"plan {plan.id} is not the latest plan of goal {goal.id} (the latest is {latest.id})"
    )


def plan_root_unchanged(goal: GoalFacts, plan: PlanFacts) -> Check:
    requested = plan.request.prior_root_work_id
    if requested == goal.active_root:
        return Check("root unchanged", True, f"the active root is still {goal.active_root}")
    return Check(
        "root unchanged",
        False,
        f"stale root: plan {plan.id} was requested for root {requested}, but the active root is {goal.active_root}",
    )


def _reviewed_candidate(goal: GoalFacts, plan: PlanFacts) -> Check:
    """With reviewers, the approved proposal must be exactly the reviewed candidate."""
    replanning = goal.intent.replanning if goal.intent is not None else None
    if replanning is None or not replanning.reviewers:
        return Check("reviewed candidate", True, f"goal {goal.id} has no reviewers")
    reviewed = next((e for e in plan.events if e.event == "plan.reviewed"), None)
    if reviewed is None or reviewed.event != "plan.reviewed":
        return Check(
            "reviewed candidate",
            False,
            f"plan {plan.id} has no plan.reviewed event; this goal's reviewers must approve it first",
        )
    if reviewed.candidate_sha256 != plan.proposal_sha256:
        return Check(
            "reviewed candidate",
            False,
            f"proposal digest changed: proposal.json of plan {plan.id} has sha256 {plan.proposal_sha256}, "
            f"the reviewers approved {reviewed.candidate_sha256}",
        )
    _, round_sha256 = plan.round_candidate(reviewed.round)
    if round_sha256 != reviewed.candidate_sha256:
        where = "candidate.json" if reviewed.round == 0 else f"revision-{reviewed.round}/candidate.json"
        return Check(
            "reviewed candidate",
            False,
            f"candidate digest changed: {where} of plan {plan.id} has sha256 {round_sha256}, "
            f"the reviewers approved {reviewed.candidate_sha256} in round {reviewed.round}",
        )
    return Check("reviewed candidate", True, f"plan {plan.id} is the candidate its reviewers approved")


def plan_approve(goal: GoalFacts, plan: PlanFacts) -> Checks:
    """`plan approve`: the latest plan, proposed, deciding apply or complete, for the active root, and with
    reviewers exactly the reviewed candidate; then `plan_templates_frozen`."""
    proposal = plan.proposal
    decides = proposal is not None and proposal.decision in ("apply", "complete")
    decision = proposal.decision if proposal is not None else "nothing"
    return Checks(
        (
            plan_is_proposed(plan),
            plan_is_latest(goal, plan),
            Check(
                "apply or complete",
                decides,
                f"plan {plan.id} decided {decision}" + ("" if decides else "; only apply or complete can be approved"),
            ),
            plan_root_unchanged(goal, plan),
            _reviewed_candidate(goal, plan),
        )
    )


def frozen_template(path: str, sha256: str, what: str) -> Check:
    """The file at `path` still has its frozen `sha256` (re-hashed now); `what` names it in the message."""
    return frozen_template_body(path, sha256, what)[0]


def frozen_template_body(path: str, sha256: str, what: str) -> tuple[Check, bytes | None]:
    """`frozen_template`, with the bytes it hashed (None when the file cannot be read)."""
    try:
        body = Path(path).read_bytes()
    except OSError as error:
        return Check(
            "template unchanged",
            False,
            f"{what} ({path}) cannot be read ({error.strerror}); its frozen sha256 is {sha256}",
        ), None
    digest = hashlib.sha256(body).hexdigest()
    if digest != sha256:
        return Check(
            "template unchanged", False, f"{what} ({path}) changed: its sha256 is now {digest}, frozen {sha256}"
        ), body
    if not os.access(path, os.X_OK):
        return Check(
            "template executable",
            False,
            f"{what} ({path}) is no longer executable: a template is run directly (chmod +x {path})",
        ), body
    return Check("template unchanged", True, f"{what} ({path}) has its frozen sha256"), body


def plan_templates_frozen(goal: GoalFacts, plan: PlanFacts) -> Checks:
    """`plan approve`, last: every template the proposal names is in the frozen catalog and still matches its
    digest. It reads the files, so only the transition asks it."""
    replanning = goal.intent.replanning if goal.intent is not None else None
    catalog = replanning.templates if replanning is not None else {}
    checks: list[Check] = []
    for template_id in dict.fromkeys(item.template for item in plan.proposal.work) if plan.proposal else ():
        frozen = catalog.get(template_id)
        if frozen is None:
            checks.append(
                Check(
                    "template in catalog",
                    False,
                    f"plan {plan.id} names template {template_id!r}, which is not in the frozen catalog",
                )
            )
            break
        checks.append(frozen_template(frozen.path, frozen.sha256, f"template {template_id}"))
        if not checks[-1].holds:
            break
    return Checks(tuple(checks))


def plan_reject(plan: PlanFacts) -> Checks:
    """`plan reject`: the plan is proposed."""
    return Checks((plan_is_proposed(plan),))


REPLAN_SLOT = "replan slot left"


def plan_retry(goal: GoalFacts, plan: PlanFacts) -> Checks:
    """`plan retry`: the latest plan, in attention, requested for the current root and graph fingerprint, the
    mission not complete, and a replan slot left."""
    fingerprint_same = plan.request.graph_fingerprint == goal.graph_fingerprint
    slots = goal.replans_used + goal.replans_remaining
    return Checks(
        (
            plan_is_latest(goal, plan),
            Check(
                "in attention",
                plan.status == "attention",
                f"plan {plan.id} is {plan.status}, not attention"
                if plan.status != "attention"
                else f"plan {plan.id} is in attention",
            ),
            plan_root_unchanged(goal, plan),
            Check(
                "fingerprint unchanged",
                fingerprint_same,
                "the active graph is unchanged since the plan was requested"
                if fingerprint_same
                else f"stale graph: plan {plan.id} was requested at fingerprint {plan.request.graph_fingerprint}, "
                f"the graph is now {goal.graph_fingerprint}",
            ),
            Check(
                "mission not complete",
                not goal.mission_complete,
                f"goal {goal.id}'s mission is complete; there is nothing to plan"
                if goal.mission_complete
                else "the mission is not complete",
            ),
            Check(
                REPLAN_SLOT,
                goal.replans_remaining > 0,
                f"{goal.replans_remaining} of {slots} replan slots left"
                if goal.replans_remaining > 0
                else f"no replan slot left: goal {goal.id} has used all {goal.replans_used} of its replans",
            ),
        )
    )


def plan_reopen(goal: GoalFacts, plan: PlanFacts) -> Checks:
    """`plan reopen`: the latest plan, completed, and a milestone of the mission left to plan."""
    mission = goal.intent.mission if goal.intent is not None else None
    limit = mission.max_milestones if mission is not None else 0
    done = goal.milestones_completed
    return Checks(
        (
            plan_is_latest(goal, plan),
            Check(
                "completed",
                plan.status == "completed",
                f"plan {plan.id} is completed"
                if plan.status == "completed"
                else f"plan {plan.id} is {plan.status}, not completed; only a completed mission can be reopened",
            ),
            Check(
                "milestone left",
                mission is not None and done < limit,
                f"no milestone left: goal {goal.id} has completed {done} of its {limit} milestones"
                if mission is None or done >= limit
                else f"{done} of {limit} milestones completed",
            ),
        )
    )


REVISION_ROUND_LEFT = "revision round left"


def review_revision(reviews: Sequence[Review], revisions_made: int, max_revision_rounds: int) -> Checks:
    """A review sends its candidate back to the planner, in the same plan request, when every verdict is approve
    or revise, at least one is revise or carries a blocking finding (the reviewers want a better candidate, not
    a human: an `attention` verdict never revises), and fewer than `max_revision_rounds` revisions were made."""
    only = all(review.verdict in ("approve", "revise") for review in reviews)
    objecting = [
        review.reviewer
        for review in reviews
        if review.verdict == "revise" or any(f.severity == "blocking" for f in review.findings)
    ]
    return Checks(
        (
            Check(
                "approve or revise only",
                only,
                "every verdict is approve or revise" if only else "a reviewer asked for attention: a human decides",
            ),
            Check(
                "a revision asked",
                bool(objecting),
                f"revision asked by {', '.join(objecting)}"
                if objecting
                else "every reviewer approved with no blocking finding",
            ),
            Check(
                REVISION_ROUND_LEFT,
                revisions_made < max_revision_rounds,
                f"{revisions_made} of {max_revision_rounds} revision rounds made"
                if revisions_made < max_revision_rounds
                else f"revision rounds exhausted ({max_revision_rounds})",
            ),
        )
    )


def latest_attention_plan(plans: Sequence[P]) -> P | None:
    """The most recent plan in `attention`, latest or not: what the console offers to retry."""
    return next((p for p in reversed(plans) if p.status == "attention"), None)


# ----- work transitions


def work_accept(work: WorkFacts, dispositions: Sequence[Disposition] | None = None) -> Checks:
    """`work accept`: in review; with `dispositions` given, every open finding disposed, no unknown ids, and
    none when nothing is open (without them, only the state: the console asks for them next)."""
    checks = [
        Check(
            "in review",
            work.state == "in_review",
            f"work {work.id} is {work.state}, not in_review"
            if work.state != "in_review"
            else f"work {work.id} is in review",
        )
    ]
    if dispositions is None:
        return Checks(tuple(checks))
    open_ids = [f.id for f in work.open_findings]
    given_ids = {d.id for d in dispositions}
    unknown = [d.id for d in dispositions if d.id not in open_ids]
    missing = [finding_id for finding_id in open_ids if finding_id not in given_ids]
    checks += [
        Check(
            "dispositions allowed",
            not (dispositions and not open_ids),
            f"work {work.id} has no open finding; --dispose is not allowed",
        ),
        Check(
            "known finding ids",
            not unknown,
            f"unknown finding id {', '.join(unknown)} (open findings: {', '.join(open_ids)})",
        ),
        Check(
            "every open finding disposed",
            not missing,
            f"findings not disposed: {', '.join(missing)}; every open finding needs "
            "--dispose ID=fixed or --dispose ID=deferred:REASON",
        ),
    ]
    return Checks(tuple(checks))


def work_reopen(work: WorkFacts) -> Checks:
    """`work reopen`: in review, succeeded, blocked or cancelled."""
    return Checks(
        (
            Check(
                "reopenable",
                work.state in REOPENABLE,
                f"work {work.id} is {work.state}; reopen needs in_review, succeeded, blocked or cancelled",
            ),
        )
    )


def work_cancel(work: WorkFacts) -> Checks:
    """`work cancel`: not running; waiting, ready, awaiting an approval, blocked or in review."""
    return Checks(
        (
            Check(
                "not running",
                work.state != "running",
                f"work {work.id} is running; cancel is refused while an attempt runs",
            ),
            Check(
                "cancellable",
                work.state in CANCELLABLE,
                f"work {work.id} is {work.state}; cancel needs waiting, ready, awaiting_approval, blocked or in_review",
            ),
        )
    )


def pending_approval(work: WorkFacts) -> str | None:
    """The approval this item waits on, while it is still undecided."""
    if work.state == "awaiting_approval" and work.next_action == "resolve_approval":
        return work.approval_id
    return None


def awaits_human(work: WorkFacts) -> bool:
    """In review, or parked on an undecided approval: the work `harn pending` lists."""
    return work.state == "in_review" or pending_approval(work) is not None


def approval_decide(work: WorkFacts, approval_id: str) -> Checks:
    """`approval approve / deny`: the approval is pending, i.e. its work is parked on it (else it is moot)."""
    return Checks(
        (
            Check(
                "work not cancelled",
                work.state != "cancelled",
                f"approval {approval_id} is moot: work {work.id} is cancelled",
            ),
            Check(
                "attempt parked on it",
                work.state == "awaiting_approval" and work.approval_id == approval_id,
                f"approval {approval_id} is moot: work {work.id} is {work.state} "
                "and its attempt is no longer parked on it",
            ),
        )
    )


# ----- which goal governs a work item


def provenance_goal(kind: str, ref: str | None) -> str | None:
    """The goal a plan-created item's provenance names (its ref is `<goal-id>/<plan-id>`); None for other items."""
    if kind != "plan":
        return None
    return (ref or "").split("/", 1)[0] or None


def governing_goal(named: str | None, holders: Iterable[str]) -> str | None:
    """The goal governing a work item: the one its plan provenance names (`named`, when that goal exists), else
    the first goal by id whose graph holds it (`holders`, in id order; read lazily), else None: standalone."""
    return named if named is not None else next(iter(holders), None)


# ----- attempts: `work run`, `work retry` and resumes (under the goal's rules, or standalone)


def _dispatchable(goal: GoalBudgetFacts | None, work: DispatchFacts, *, budget: bool = True) -> list[Check]:
    """Goal work must be in the goal's active graph, its goal unfinished and (to start) an attempt left."""
    if goal is None:
        return []
    limit = goal.intent.limits.max_total_attempts if goal.intent is not None else 0
    checks = [
        Check(
            "in the active graph",
            work.active,
            f"work {work.id} is not in the active graph of goal {goal.id}; superseded work is never dispatchable",
        ),
        Check(
            "goal unfinished",
            goal.state != "succeeded",
            f"goal {goal.id} has succeeded; its work is not dispatched any more",
        ),
    ]
    if budget:
        checks.append(
            Check(
                "attempt left",
                goal.attempts_remaining > 0,
                f"budget exhausted: goal {goal.id} has used all {limit} of its attempts",
            )
        )
    return checks


def blocked_by_streak_only(work: DispatchFacts) -> bool:
    """Blocked/none only because of 3 consecutive uncharged failures: charged attempts are left and the last
    failure was not a decision. The operator's retry is the authority the spec names for this case."""
    latest = work.latest_attempt
    return (
        work.state == "blocked"
        and work.next_action == "none"
        and latest is not None
        and latest.class_ != "decision"
        and work.charged_attempts < work.max_attempts
    )


def work_run(goal: GoalBudgetFacts | None, work: DispatchFacts) -> Checks:
    """`work run` (and the supervisor's dispatch): the item is ready, plus the goal's checks."""
    return Checks(
        (
            *_dispatchable(goal, work),
            Check(
                "ready",
                work.state == "ready",
                f"work {work.id} is {work.state}/{work.next_action}, not ready: {work.reason}",
            ),
        )
    )


def work_retry(goal: GoalBudgetFacts | None, work: DispatchFacts, *, operator: bool) -> Checks:
    """`work retry`: blocked with next action retry, or (for an operator, not the supervisor) blocked only by the
    uncharged streak; plus the goal's checks."""
    return Checks(
        (
            *_dispatchable(goal, work),
            Check(
                "blocked",
                work.state == "blocked",
                f"work {work.id} is {work.state}, not blocked; only blocked work is retried",
            ),
            Check(
                "retryable",
                work.next_action == "retry" or (operator and blocked_by_streak_only(work)),
                f"work {work.id} is blocked/none and cannot be retried: {work.reason}",
            ),
        )
    )


def work_resume(goal: GoalBudgetFacts | None, work: DispatchFacts) -> Checks:
    """A resume of a parked attempt: awaiting_approval/resume (parked, its approval decided); the goal's checks
    but the budget (a resume is the same attempt, charged once)."""
    return Checks(
        (
            *_dispatchable(goal, work, budget=False),
            Check(
                "parked and decided",
                work.state == "awaiting_approval" and work.next_action == "resume" and work.latest_attempt is not None,
                f"work {work.id} is {work.state}/{work.next_action}; a resume needs awaiting_approval/resume",
            ),
        )
    )


# ----- the goal's rules, first match


@dataclass(frozen=True)
class GoalSituation:
    """Everything the goal rules 2..13 read, computed once by the goal projection."""

    id: str
    intent: GoalIntent
    plans: tuple[PlanFacts, ...]
    active_root: str | None
    root_state: WorkState | None
    active: tuple[WorkFacts, ...]
    attempts_remaining: int
    replans_used: int
    replans_remaining: int
    milestones_completed: int
    mission_complete: bool
    graph_fingerprint: str

    @property
    def latest_plan(self) -> PlanFacts | None:
        return self.plans[-1] if self.plans else None

    def active_in(self, state: WorkState) -> list[WorkFacts]:
        return [w for w in self.active if w.state == state]


@dataclass(frozen=True)
class GoalDecision:
    rule: int
    state: GoalState
    next_action: GoalAction
    reason: str
    pending_plan_id: str | None = None
    attention_plan_id: str | None = None


def goal_rule_1_corrupt(problem: str | None) -> GoalDecision | None:
    """1. The goal's own records are unreadable (a torn tail alone is not)."""
    return GoalDecision(1, "corrupt", "none", problem) if problem is not None else None


def goal_rule_2_succeeded(goal: GoalSituation) -> GoalDecision | None:
    """2. A mission with a completed plan; otherwise the active root succeeded."""
    if goal.intent.mission is not None:
        return GoalDecision(2, "succeeded", "none", "the mission is complete") if goal.mission_complete else None
    if goal.root_state == "succeeded":
        return GoalDecision(2, "succeeded", "none", f"root {goal.active_root} succeeded")
    return None


def goal_rule_3_running(goal: GoalSituation) -> GoalDecision | None:
    """3. An active item has a live run, or the latest plan is planning."""
    running = goal.active_in("running")
    latest = goal.latest_plan
    if running:
        return GoalDecision(3, "running", "wait", f"work {running[0].id} is running")
    if latest is not None and latest.status == "planning":
        return GoalDecision(3, "running", "wait", f"plan {latest.id} is planning")
    return None


def goal_rule_4_ready_to_run(goal: GoalSituation) -> GoalDecision | None:
    """4. Ready work with attempts left, or what the goal's automation does on its own."""
    auto = goal.intent.automation
    ready = goal.active_in("ready")
    if ready and goal.attempts_remaining > 0:
        return GoalDecision(4, "ready", "run", f"work {ready[0].id} is ready to run")
    if auto.accept_passing_proof and any(not w.open_findings for w in goal.active_in("in_review")):
        return GoalDecision(4, "ready", "run", "passing work will be accepted (accept_passing_proof)")
    retryable = [w for w in goal.active_in("blocked") if w.next_action == "retry"]
    if auto.retry_blocked and retryable and goal.attempts_remaining > 0:
        return GoalDecision(4, "ready", "run", f"work {retryable[0].id} will be retried (retry_blocked)")
    if auto.resume_approved and any(w.approval_decided for w in goal.active_in("awaiting_approval")):
        return GoalDecision(4, "ready", "run", "an approved attempt will be resumed (resume_approved)")
    return None


def goal_rule_5_resolve_approval(goal: GoalSituation) -> GoalDecision | None:
    """5. An active item is parked on an approval (pending, or decided without resume_approved)."""
    parked = goal.active_in("awaiting_approval")
    if parked:
        return GoalDecision(
            5, "awaiting_attention", "resolve_approval", f"approval {parked[0].approval_id} awaits a decision"
        )
    return None


def goal_rule_6_review(goal: GoalSituation) -> GoalDecision | None:
    """6. An active item is in review."""
    in_review = goal.active_in("in_review")
    if in_review:
        return GoalDecision(6, "awaiting_attention", "review", f"work {in_review[0].id} passed and awaits review")
    return None


def goal_rule_7_review_plan(goal: GoalSituation) -> GoalDecision | None:
    """7. The latest plan is proposed."""
    latest = goal.latest_plan
    if latest is not None and latest.status == "proposed":
        return GoalDecision(
            7, "awaiting_attention", "review_plan", f"plan {latest.id} awaits review", pending_plan_id=latest.id
        )
    return None


def goal_rule_8_attention_plan(goal: GoalSituation) -> GoalDecision | None:
    """8. The latest plan is in attention and `plan retry` would hold but for the replan slot: `retry_plan`
    with a slot left, else `none`."""
    latest = goal.latest_plan
    if latest is None:
        return None
    retry = plan_retry(goal, latest)
    if any(not check.holds for check in retry.checks if check.name != REPLAN_SLOT):
        return None
    why = f"plan {latest.id} needs attention: {latest.reason}"
    if retry.named(REPLAN_SLOT).holds:
        return GoalDecision(8, "awaiting_attention", "retry_plan", why, attention_plan_id=latest.id)
    return GoalDecision(8, "awaiting_attention", "none", why + " (no replan slot left)", attention_plan_id=latest.id)


def goal_rule_9_attempts_exhausted(goal: GoalSituation) -> GoalDecision | None:
    """9. No attempt left in the goal's budget."""
    if goal.attempts_remaining == 0:
        return GoalDecision(
            9,
            "budget_exhausted",
            "none",
            f"attempt budget exhausted: all {goal.intent.limits.max_total_attempts} attempts "
            "of the goal's max_total_attempts are used",
        )
    return None


def goal_rule_10_blocked_retry(goal: GoalSituation) -> GoalDecision | None:
    """10. An active item is blocked/retry: an operator's `work retry` is the authority."""
    retryable = [w for w in goal.active_in("blocked") if w.next_action == "retry"]
    if retryable:
        return GoalDecision(10, "blocked", "retry", f"work {retryable[0].id} is blocked; an operator may retry it")
    return None


def goal_rule_11_planner_eligible(goal: GoalSituation) -> GoalDecision | None:
    """11. Replanning configured, a replan slot left and no active item cancelled: the planner's next request."""
    mission = goal.intent.mission is not None
    if goal.intent.replanning is None or goal.replans_remaining <= 0 or goal.active_in("cancelled"):
        return None
    if mission and goal.active_root is None:
        return GoalDecision(11, "ready", "plan_initial", "the mission needs its first plan")
    latest = goal.latest_plan
    if mission and goal.root_state == "succeeded" and latest is not None and latest.status == "reopened":
        return GoalDecision(11, "ready", "plan_milestone", f"plan {latest.id} reopened the mission: {latest.reason}")
    if mission and goal.root_state == "succeeded":
        return GoalDecision(
            11, "ready", "plan_milestone", f"milestone root {goal.active_root} succeeded; next milestone due"
        )
    return GoalDecision(11, "ready", "replan", stuck_reason(goal))


def goal_rule_12_replans_exhausted(goal: GoalSituation) -> GoalDecision | None:
    """12. Replanning configured and no replan slot left."""
    replanning = goal.intent.replanning
    if replanning is not None and goal.replans_remaining == 0:
        return GoalDecision(12, "budget_exhausted", "none", replans_exhausted_reason(goal, replanning.max_replans))
    return None


def replans_exhausted_reason(goal: GoalSituation, max_replans: int) -> str:
    """Which budget ran out and what consumed it: how the plans ended, and the last failure's reason."""
    counts: dict[str, int] = {}
    for plan in goal.plans:
        counts[plan.status] = counts.get(plan.status, 0) + 1
    spent = ", ".join(f"{count} {status}" for status, count in counts.items())
    reason = f"replan budget exhausted: all {max_replans} replan slots are used ({spent or 'no plan'})"
    failed = [plan for plan in goal.plans if plan.status in ("failed", "interrupted")]
    if failed:
        last = failed[-1]
        plans = "1 plan" if len(failed) == 1 else f"{len(failed)} plans"
        reason += f"; {plans} failed, the last ({last.id}): {last.reason or last.status}"
    return reason


def goal_rule_13_blocked(goal: GoalSituation) -> GoalDecision:
    """13. Anything else: a cancelled item, or nothing legal and no replanning."""
    cancelled = goal.active_in("cancelled")
    if cancelled:
        return GoalDecision(13, "blocked", "none", f"work {cancelled[0].id} was cancelled")
    return GoalDecision(13, "blocked", "none", stuck_reason(goal) + " and no replanning is configured")


# a latest plan in one of these does not hold the goal; its reason reaches the next planner
RELEASING_STATUSES: frozenset[PlanStatus] = frozenset(
    {"rejected", "retry_requested", "failed", "interrupted", "reopened"}
)


def stuck_reason(goal: GoalSituation) -> str:
    blocked = goal.active_in("blocked")
    latest = goal.latest_plan
    if blocked:
        return f"work {blocked[0].id} is blocked: {blocked[0].reason}"
    if latest is not None and latest.status in RELEASING_STATUSES:
        return f"plan {latest.id} {latest.status}" + (f": {latest.reason}" if latest.reason else "")
    return "no scheduling action is legal in the active graph"


GOAL_RULES: tuple[Callable[[GoalSituation], GoalDecision | None], ...] = (
    goal_rule_2_succeeded,
    goal_rule_3_running,
    goal_rule_4_ready_to_run,
    goal_rule_5_resolve_approval,
    goal_rule_6_review,
    goal_rule_7_review_plan,
    goal_rule_8_attention_plan,
    goal_rule_9_attempts_exhausted,
    goal_rule_10_blocked_retry,
    goal_rule_11_planner_eligible,
    goal_rule_12_replans_exhausted,
)


def decide_goal(goal: GoalSituation) -> GoalDecision:
    """The first of rules 2..13 that matches (rule 1, corrupt, is decided before a situation can be built)."""
    for rule in GOAL_RULES:
        decision = rule(goal)
        if decision is not None:
            return decision
    return goal_rule_13_blocked(goal)
