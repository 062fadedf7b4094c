"""The race soak's invariants, checked from the journal alone (raw JSON lines, not the core's readers) and the
command logs.

- every event log and transcript: parseable, no torn tail, `seq` 1..n gapless;
- plans: at most one operator outcome (applied, completed, rejected, retry_requested) and at most one of each
  planner event; an applied/completed plan had a proposal that decided so (and `plan.reviewed` first when the
  goal has reviewers); a rejected plan was proposed, a retried one in attention; every work id a
  `plan.applied` names exists with exactly one `work.created`;
- work: `work.created` first and once; each attempt finished once per start or resume; a resume follows a
  parked attempt whose approval is decided, once per approval; nothing starts on accepted or cancelled work;
- no accept with open findings: replaying each log, an accept disposes exactly the open set and accepts the
  latest attempt, which passed (its proof digest matches `proof.json`);
- budgets: charged attempts per goal <= `max_total_attempts` (or the attempts its root ran as standalone work
  before a goal adopted it, if more); per item, charged attempts <= `max_attempts` + reopens, a retry only
  while charged attempts < `max_attempts`, one initial attempt, one reopen attempt per reopen; plan requests
  <= `max_replans`; planned work per plan and in total within the replanning bounds (`max_cycles` bounds one
  `run`/`serve` invocation and leaves no trace in the journal, so it is not checked here);
- generations: no attempt starts or resumes on work a later applied plan superseded;
- acknowledgements: every exit-0 transition in the logs is in the journal exactly as reported (same event at
  the same seq, the same decision record, the attempt it ran); no event was acknowledged as `applied` twice;
  every operator event and decision by a soak actor was acknowledged exactly once (so a refused command left
  nothing); exit codes are 0, 2, 3 or 4 with the matching error code;
- no temporary file left behind, and `harn verify` is clean.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harn_tui.core.leases import is_held
from tests.reliability.soak_log import read_logs

OPERATOR_EVENTS = frozenset(
    {
        "plan.applied",
        "plan.completed",
        "plan.rejected",
        "plan.retry_requested",
        "work.accepted",
        "work.reopened",
        "work.cancelled",
        "attempt.started",
        "attempt.resumed",
    }
)
PLAN_OUTCOMES = ("plan.applied", "plan.completed", "plan.rejected", "plan.retry_requested")
PLANNER_EVENTS = ("plan.reviewed", "plan.proposed", "plan.attention", "plan.failed")
UNCHARGED = frozenset({"upstream", "environment"})
ERROR_CODES = {2: "usage", 3: "refused", 4: "not_found", 6: "io"}
# the command an operator event comes from (a maybe-applied command accounts for at most one of them)
EVENT_VERBS = {
    "plan.applied": "plan approve",
    "plan.completed": "plan approve",
    "plan.rejected": "plan reject",
    "plan.retry_requested": "plan retry",
    "work.accepted": "work accept",
    "work.reopened": "work reopen",
    "work.cancelled": "work cancel",
    "attempt.started": "work run|work retry",
    "attempt.resumed": "work run",
}
ADOPTION_SLACK_S = 0.5


@dataclass
class Report:
    violations: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    chaos: bool = False  # participants were SIGKILLed: runs may be lost unrecorded, temp files left by the dead

    def fail(self, message: str) -> None:
        self.violations.append(message)

    def summary(self) -> str:
        c = self.counts
        return (
            f"race soak: {c['transitions']} transitions raced ({c['legal']} accepted: {c['applied']} applied, "
            f"{c['already_done']} already_done; {c['illegal']} refused: {c['exit 2']} usage, "
            f"{c['exit 3']} refused, {c['exit 4']} not found); {c['events']} events in {c['logs']} logs, "
            f"{c['plans']} plans, {c['attempts']} attempts, {c['accepts']} accepts, {c['decisions']} decisions; "
            f"{len(self.violations)} violations"
        )


def read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def read_log(path: Path, report: Report) -> list[dict[str, Any]]:
    """The lines of one JSONL log, checking a final newline and a gapless seq."""
    if not path.exists():
        return []
    data = path.read_bytes()
    report.counts["logs"] += 1
    if data and not data.endswith(b"\n"):
        report.fail(f"{path}: torn tail")
    events: list[dict[str, Any]] = []
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            event = json.loads(line)
        except ValueError:
            report.fail(f"{path}:{number}: not JSON")
            return events
        if event.get("seq") != number:
            report.fail(f"{path}:{number}: seq {event.get('seq')} where {number} was due")
        events.append(event)
    return events


@dataclass
class Journal:
    """The raw tree: goal intents, plan and work logs, approvals."""

    base: Path
    goals: dict[str, Any] = field(default_factory=dict)
    plans: dict[str, tuple[str, Path, list[dict[str, Any]]]] = field(default_factory=dict)
    work: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    intents: dict[str, Any] = field(default_factory=dict)
    decisions: dict[str, Any] = field(default_factory=dict)
    charged: dict[str, int] = field(default_factory=dict)  # work id -> charged attempts (after check_work)

    @classmethod
    def load(cls, base: Path, report: Report) -> Journal:
        journal = cls(base)
        for goal_dir in sorted((base / "supervisors").iterdir()):
            journal.goals[goal_dir.name] = read_json(goal_dir / "goal.json")
            plans = goal_dir / "plans"
            for plan_dir in sorted(plans.iterdir()) if plans.is_dir() else []:
                if (plan_dir / "request.json").exists():
                    journal.plans[plan_dir.name] = (
                        goal_dir.name,
                        plan_dir,
                        read_log(plan_dir / "events.jsonl", report),
                    )
        for work_dir in sorted((base / "work").iterdir()):
            journal.intents[work_dir.name] = read_json(work_dir / "intent.json")
            journal.work[work_dir.name] = read_log(work_dir / "events.jsonl", report)
        for run_dir in sorted((base / "runs").iterdir()):
            read_log(run_dir / "transcript.jsonl", report)
        for approval_dir in sorted((base / "approvals").iterdir()):
            decision = read_json(approval_dir / "decision.json")
            if decision is not None:
                journal.decisions[approval_dir.name] = decision
            elif (approval_dir / "decision.json").exists():
                report.fail(f"{approval_dir / 'decision.json'}: unreadable")
        report.counts["events"] = sum(len(e) for _, _, e in journal.plans.values()) + sum(
            len(e) for e in journal.work.values()
        )
        report.counts["plans"] = len(journal.plans)
        report.counts["decisions"] = len(journal.decisions)
        return journal

    def plan_log(self, plan_id: str) -> list[dict[str, Any]]:
        return self.plans[plan_id][2] if plan_id in self.plans else []


# ----- the journal alone


def check_plans(journal: Journal, report: Report) -> None:
    for plan_id, (goal_id, directory, events) in journal.plans.items():
        names = Counter(e["event"] for e in events)
        outcomes = [e["event"] for e in events if e["event"] in PLAN_OUTCOMES]
        if len(outcomes) > 1:
            report.fail(f"plan {plan_id}: {len(outcomes)} outcomes {outcomes}")
        for name in PLANNER_EVENTS:
            if names[name] > 1:
                report.fail(f"plan {plan_id}: {name} {names[name]} times")
        proposal = read_json(directory / "proposal.json")
        goal = journal.goals.get(goal_id) or {}
        reviewers = ((goal.get("replanning") or {}).get("reviewers")) or []
        for event in events:
            name = event["event"]
            before = {e["event"] for e in events if e["seq"] < event["seq"]}
            if name in ("plan.applied", "plan.completed"):
                wanted = "apply" if name == "plan.applied" else "complete"
                if proposal is None or proposal.get("decision") != wanted or "plan.attention" in before:
                    report.fail(f"plan {plan_id}: {name} without a proposal deciding {wanted}")
                if reviewers and "plan.reviewed" not in before:
                    report.fail(f"plan {plan_id}: {name} before plan.reviewed")
            if name == "plan.rejected" and ("plan.proposed" not in before or "plan.attention" in before):
                report.fail(f"plan {plan_id}: rejected while not proposed")
            if name == "plan.retry_requested" and "plan.attention" not in before:
                report.fail(f"plan {plan_id}: retry_requested without plan.attention")
            if name == "plan.applied":
                for work_id in event["work_ids"]:
                    created = [e for e in journal.work.get(work_id, []) if e["event"] == "work.created"]
                    source = (journal.intents.get(work_id) or {}).get("source") or {}
                    if len(created) != 1 or source.get("ref") != f"{goal_id}/{plan_id}":
                        report.fail(
                            f"plan {plan_id}: applied work {work_id} has {len(created)} work.created, source {source}"
                        )


def _cut_materialization(journal: Journal, work_id: str) -> bool:
    """A work directory without `work.created` that an approve killed (or refused by a full disk) part-way left,
    as the crash matrix leaves it (a repeat of that approve completes it): empty (an aborted creation, which
    readers leave out), or an intent from a plan never applied."""
    intent = journal.intents.get(work_id)
    if intent is None:
        return not any((journal.base / "work" / work_id).iterdir())
    ref = str((intent.get("source") or {}).get("ref") or "")
    plan_id = ref.rpartition("/")[2]
    return bool(plan_id) and not any(e["event"] == "plan.applied" for e in journal.plan_log(plan_id))


def _attempts_of(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """run id -> {started, finishes[], resumes[]} in log order."""
    runs: dict[str, dict[str, Any]] = {}
    for event in events:
        if event["event"] == "attempt.started":
            runs[event["run_id"]] = {"started": event, "finishes": [], "resumes": []}
        elif event["event"] in ("attempt.finished", "attempt.resumed") and event["run_id"] in runs:
            runs[event["run_id"]]["finishes" if event["event"] == "attempt.finished" else "resumes"].append(event)
    return runs


def check_work(journal: Journal, report: Report) -> None:
    for work_id, events in journal.work.items():
        if not events and report.chaos and _cut_materialization(journal, work_id):
            report.counts["materializations cut short"] += 1
            continue
        if not events or events[0]["event"] != "work.created" or sum(e["event"] == "work.created" for e in events) != 1:
            report.fail(f"work {work_id}: work.created is not first and once")
        intent = journal.intents.get(work_id) or {}
        max_attempts = intent.get("max_attempts", 3)
        runs = _attempts_of(events)
        for run_id, run in runs.items():
            gap = 1 + len(run["resumes"]) - len(run["finishes"])
            if report.chaos and gap == 1 and not is_held(journal.base / "runs" / run_id / "lease"):
                report.counts["lost unrecorded"] += 1  # its runner was killed; it projects as lost
                continue
            if gap != 0:
                report.fail(
                    f"work {work_id}: run {run_id} finished {len(run['finishes'])} times for "
                    f"{1 + len(run['resumes'])} starts and resumes"
                )
        replay_work(work_id, events, max_attempts, journal, report)
    report.counts["attempts"] = sum(
        1 for events in journal.work.values() for e in events if e["event"] == "attempt.started"
    )


def replay_work(
    work_id: str, events: list[dict[str, Any]], max_attempts: int, journal: Journal, report: Report
) -> None:
    """Walk one work log in order: findings, terminal state, the latest attempt, attempt budgets, resumes."""
    open_ids: set[str] = set()
    terminal: str | None = None
    latest: dict[str, Any] | None = None  # the latest attempt: run_id, status, since_reopen
    charged = initial = reopen_starts = reopens = 0
    statuses: dict[str, str] = {}
    resumed_approvals: set[str] = set()
    for event in events:
        name = event["event"]
        if name == "attempt.started":
            if terminal is not None:
                report.fail(f"work {work_id}: attempt {event['run_id']} started on {terminal} work")
            trigger = event["trigger"]
            if trigger == "retry" and charged >= max_attempts:
                report.fail(f"work {work_id}: retry {event['run_id']} with {charged}/{max_attempts} charged")
            initial += trigger == "initial"
            reopen_starts += trigger == "reopen"
            if initial > 1 or reopen_starts > reopens:
                report.fail(
                    f"work {work_id}: {initial} initial and {reopen_starts} reopen attempts for {reopens} reopens"
                )
            latest = {"run_id": event["run_id"], "status": "running"}
            charged += 1
        elif name == "attempt.finished":
            statuses[event["run_id"]] = event["status"]
            if event["status"] == "failed" and event.get("class") in UNCHARGED:
                charged -= 1
            if latest is not None and latest["run_id"] == event["run_id"]:
                latest["status"] = event["status"]
        elif name == "attempt.resumed":
            approval = event["approval_id"]
            if (
                approval in resumed_approvals
                or approval not in journal.decisions
                or statuses.get(event["run_id"]) != "parked"
            ):
                report.fail(f"work {work_id}: resume of {event['run_id']} on approval {approval} not allowed")
            resumed_approvals.add(approval)
        elif name == "work.reopened":
            reopens += 1
            terminal = None
            latest = None
            if event["findings"]:
                open_ids = {f["id"] for f in event["findings"]}
        elif name == "work.cancelled":
            terminal = "cancelled"
        elif name == "work.accepted":
            report.counts["accepts"] += 1
            disposed = {d["id"] for d in event["dispositions"]}
            if disposed != open_ids:
                report.fail(
                    f"work {work_id}: accepted at seq {event['seq']} disposing {sorted(disposed)} with "
                    f"open findings {sorted(open_ids)}"
                )
            if (
                terminal is not None
                or latest is None
                or latest["status"] != "passed"
                or latest["run_id"] != event["run_id"]
            ):
                report.fail(
                    f"work {work_id}: accepted at seq {event['seq']} while not in review ({terminal}, {latest})"
                )
            proof = journal.base / "runs" / event["run_id"] / "proof.json"
            digest = hashlib.sha256(proof.read_bytes()).hexdigest() if proof.exists() else None
            if digest is None or event["proof_sha256"].removeprefix("sha256:") != digest:
                report.fail(f"work {work_id}: accepted proof digest does not match {proof}")
            open_ids, terminal = set(), "accepted"
    if charged > max_attempts + reopens:
        report.fail(f"work {work_id}: {charged} charged attempts > max_attempts {max_attempts} + {reopens} reopens")
    journal.charged[work_id] = charged


def closure(journal: Journal, root: str | None) -> set[str]:
    found: set[str] = set()
    stack = [root] if root else []
    while stack:
        work_id = stack.pop()
        if work_id in found:
            continue
        found.add(work_id)
        stack.extend((journal.intents.get(work_id) or {}).get("dependencies") or [])
    return found


def governed(journal: Journal, goal_id: str) -> set[str]:
    goal = journal.goals.get(goal_id) or {}
    found = closure(journal, goal.get("root_work_id"))
    for owner, _, events in journal.plans.values():
        if owner == goal_id:
            for event in events:
                if event["event"] == "plan.applied":
                    found.update(event["work_ids"])
    return found


def started_before_adoption(journal: Journal, goal_id: str, work_ids: set[str]) -> int:
    """Attempts its work ran as standalone work before the goal existed (they count, but no rule stopped them).
    Generous by ADOPTION_SLACK_S: the goal's stamp precedes its goal.json becoming visible."""
    created = datetime.fromtimestamp((journal.base / "supervisors" / goal_id / "goal.json").stat().st_mtime, UTC)
    cutoff = created + timedelta(seconds=ADOPTION_SLACK_S)
    return sum(
        1
        for w in work_ids
        for e in journal.work.get(w, [])
        if e["event"] == "attempt.started" and datetime.fromisoformat(e["ts"]) <= cutoff
    )


def check_budgets(journal: Journal, report: Report) -> None:
    for goal_id, goal in journal.goals.items():
        if goal is None:
            report.fail(f"goal {goal_id}: goal.json unreadable")
            continue
        limit = goal["limits"]["max_total_attempts"]
        work_ids = governed(journal, goal_id)
        used = sum(journal.charged.get(w, 0) for w in work_ids)
        before = started_before_adoption(journal, goal_id, work_ids)
        if used > max(limit, before):
            report.fail(
                f"goal {goal_id}: {used} charged attempts > max_total_attempts {limit} "
                f"({before} started before the goal adopted its root)"
            )
        replanning = goal.get("replanning")
        plans = [(p, e) for p, (g, _, e) in journal.plans.items() if g == goal_id]
        if replanning is None:
            continue
        if len(plans) > replanning["max_replans"]:
            report.fail(f"goal {goal_id}: {len(plans)} plan requests > max_replans {replanning['max_replans']}")
        planned = 0
        for plan_id, events in plans:
            for event in events:
                if event["event"] == "plan.applied":
                    planned += len(event["work_ids"])
                    if len(event["work_ids"]) > replanning["max_work_items_per_plan"]:
                        report.fail(f"plan {plan_id}: {len(event['work_ids'])} items > max_work_items_per_plan")
        if planned > replanning["max_total_work_items"]:
            report.fail(f"goal {goal_id}: {planned} planned items > max_total_work_items")


def check_generations(journal: Journal, report: Report) -> None:
    """No attempt starts or resumes on work a later generation superseded: after a `plan.applied` (by its ts;
    both are appended under the goal lease), only the new active closure is dispatchable."""
    for goal_id, goal in journal.goals.items():
        if goal is None:
            continue
        applied = sorted(
            (e["ts"], e["root_work_id"])
            for g, _, events in journal.plans.values()
            if g == goal_id
            for e in events
            if e["event"] == "plan.applied"
        )
        if not applied:
            continue
        for work_id in governed(journal, goal_id):
            for event in journal.work.get(work_id, []):
                if event["event"] not in ("attempt.started", "attempt.resumed"):
                    continue
                earlier = [root for ts, root in applied if ts < event["ts"]]
                if earlier and work_id not in closure(journal, earlier[-1]):
                    report.fail(
                        f"work {work_id}: {event['event']} {event['run_id']} at {event['ts']} after goal "
                        f"{goal_id} moved to root {earlier[-1]} (superseded work dispatched)"
                    )


# ----- the logs against the journal


def _at_seq(events: list[dict[str, Any]], seq: int) -> dict[str, Any] | None:
    return events[seq - 1] if 0 < seq <= len(events) else None


def check_acknowledged(journal: Journal, logged: list[dict[str, Any]], report: Report) -> None:
    """Outcome entries against the journal; a pending entry without its outcome (its participant was killed)
    and an exit-6 one (the system refused a write part-way) may or may not have been applied: `maybe`."""
    entries = [e for e in logged if not e.get("pending")]
    answered = {e.get("token") for e in entries}
    maybe = [e for e in logged if e.get("pending") and e["token"] not in answered] + [
        e for e in entries if e["exit"] == 6
    ]
    report.counts["unanswered (killed)"] += sum(1 for e in logged if e.get("pending") and e["token"] not in answered)
    applied_at: Counter[tuple[str, str, int]] = Counter()
    actors = {entry["actor"] for entry in logged}
    for entry in entries:
        report.counts["transitions"] += 1
        report.counts[f"via {entry['via']}"] += 1
        code, doc, verb, target = entry["exit"], entry["doc"], entry["verb"], entry["target"]
        report.counts[f"exit {code}"] += 1
        if code != 0:
            report.counts["illegal"] += 1
            error = doc.get("error") if isinstance(doc, dict) else None
            if code not in ERROR_CODES or not error or error.get("code") != ERROR_CODES[code]:
                report.fail(f"{entry['actor']}#{entry['n']} {verb} {target}: exit {code} {json.dumps(doc)[:600]}")
            if error and "busy" in str(error.get("message")):
                report.counts["busy"] += 1
            continue
        report.counts["legal"] += 1
        kind = doc.get("outcome", "applied")
        report.counts[kind] += 1
        where = f"{entry['actor']}#{entry['n']} {verb} {target}"
        if verb in ("work run", "work retry"):
            check_attempt_ack(journal, entry, where, report)
            continue
        event = doc["event"]
        if verb.startswith("approval"):
            if journal.decisions.get(target) != event:
                report.fail(f"{where}: acknowledged {event}, decision.json holds {journal.decisions.get(target)}")
            key = ("approval", target, 0)
        else:
            log = journal.plan_log(target) if verb.startswith("plan") else journal.work.get(target, [])
            if _at_seq(log, event["seq"]) != event:
                report.fail(f"{where}: acknowledged {event['event']} seq {event['seq']} is not in the journal")
            key = ("plan" if verb.startswith("plan") else "work", target, event["seq"])
        if kind == "applied":
            applied_at[key] += 1
    for key, count in applied_at.items():
        if count > 1:
            report.fail(f"{key}: acknowledged as applied {count} times")
    check_unacknowledged(journal, actors, applied_at, entries, report, maybe)


def check_attempt_ack(journal: Journal, entry: dict[str, Any], where: str, report: Report) -> None:
    doc = entry["doc"]
    events = journal.work.get(entry["target"], [])
    name = "attempt.resumed" if doc.get("resumed") else "attempt.started"
    begun = [e for e in events if e["event"] == name and e["run_id"] == doc["run_id"] and e["actor"] == entry["actor"]]
    finished = [e for e in events if e["event"] == "attempt.finished" and e["run_id"] == doc["run_id"]]
    if len(begun) != 1 or not any(e["status"] == doc["status"] for e in finished):
        report.fail(
            f"{where}: run {doc['run_id']} has {len(begun)} {name} by {entry['actor']}, "
            f"finishes {[e['status'] for e in finished]} for reported {doc['status']}"
        )


def check_unacknowledged(
    journal: Journal,
    actors: set[str],
    applied_at: Counter[tuple[str, str, int]],
    entries: list[dict[str, Any]],
    report: Report,
    maybe: list[dict[str, Any]] | None = None,
) -> None:
    """Every operator event and decision by a soak actor is one acknowledged `applied` (refusals left nothing),
    or the one effect of a command of that actor, verb and target whose outcome is unknown (`maybe`): killed
    before it logged one, or refused by the system part-way (exit 6). None is accounted for twice."""
    unknown: Counter[tuple[str, str, str]] = Counter()
    for entry in maybe or []:
        unknown[(entry["actor"], entry["verb"], entry["target"])] += 1

    def accounted(actor: str, event: str, target: str) -> bool:
        for verb in EVENT_VERBS.get(event, "").split("|"):
            if unknown[(actor, verb, target)] > 0:
                unknown[(actor, verb, target)] -= 1
                report.counts["maybe-applied, found once"] += 1
                return True
        return False

    runs = {
        (e["target"], e["doc"]["run_id"]) for e in entries if e["exit"] == 0 and e["verb"] in ("work run", "work retry")
    }
    applied_work = {
        w
        for _, _, events in journal.plans.values()
        for e in events
        if e["event"] == "plan.applied"
        for w in e["work_ids"]
    }
    approving = {(e["actor"], e["target"]) for e in maybe or [] if e["verb"] == "plan approve"}
    for plan_id, (_, _, events) in journal.plans.items():
        for event in events:
            if (
                event["actor"] in actors
                and event["event"] in OPERATOR_EVENTS
                and applied_at[("plan", plan_id, event["seq"])] != 1
                and not accounted(event["actor"], event["event"], plan_id)
            ):
                report.fail(
                    f"plan {plan_id}: {event['event']} by {event['actor']} at seq {event['seq']} was never acknowledged"
                )
    for work_id, events in journal.work.items():
        for event in events:
            if event["actor"] not in actors:
                continue
            name = event["event"]
            if name in ("attempt.started", "attempt.resumed"):
                if (work_id, event["run_id"]) not in runs and not accounted(event["actor"], name, work_id):
                    report.fail(f"work {work_id}: {name} {event['run_id']} by {event['actor']} never acknowledged")
            elif name == "work.created":
                plan_id = str((journal.intents.get(work_id) or {}).get("source", {}).get("ref", "")).rpartition("/")[2]
                if work_id not in applied_work and (event["actor"], plan_id) not in approving:
                    report.fail(f"work {work_id}: created by {event['actor']} but no plan.applied names it")
            elif (
                name in OPERATOR_EVENTS
                and applied_at[("work", work_id, event["seq"])] != 1
                and not accounted(event["actor"], name, work_id)
            ):
                report.fail(f"work {work_id}: {name} by {event['actor']} at seq {event['seq']} never acknowledged")
    for approval_id, decision in journal.decisions.items():
        verb = f"approval {decision.get('verdict')}"
        if decision.get("actor") in actors and applied_at[("approval", approval_id, 0)] != 1:
            if unknown[(decision.get("actor"), verb, approval_id)] > 0:
                unknown[(decision.get("actor"), verb, approval_id)] -= 1
                continue
            report.fail(f"approval {approval_id}: decided by {decision.get('actor')}, never acknowledged")


# ----- the tree as a whole


def check_leftovers(base: Path, report: Report) -> None:
    """No temporary file left; after kills, only ones whose writer is dead (what a crash leaves, removed by the
    next writer in that directory)."""
    for path in base.rglob(".*.tmp-*"):
        if "scratch" in path.parts or "cache" in path.parts:
            continue
        if report.chaos and not _writer_lives(path.name):
            report.counts["temporary files left by killed writers"] += 1
            continue
        report.fail(f"{path}: temporary file left behind")


def _writer_lives(name: str) -> bool:
    """The pid a temporary name leads with (8 hex digits) still runs."""
    try:
        pid = int(name.rpartition(".tmp-")[2][:8], 16)
        os.kill(pid, 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def check_verify(root: Path, report: Report) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "harn_tui", "--root", str(root), "verify", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        report.fail(f"verify exit {done.returncode}: {done.stdout[-2000:]} {done.stderr[-2000:]}")


def check_soak(root: Path, logs: Path, *, chaos: bool = False) -> Report:
    report = Report(chaos=chaos)
    journal = Journal.load(root / ".harnery", report)
    check_plans(journal, report)
    check_work(journal, report)
    check_budgets(journal, report)
    check_generations(journal, report)
    check_acknowledged(journal, read_logs(logs), report)
    check_leftovers(root / ".harnery", report)
    check_verify(root, report)
    return report
