"""A goal's history: every event of its plans and governed work, with synthetic entries, in one order.

The order is by `ts` compared as instants, ties by source (goal, plan, work, approval), then id, then seq. A log
line that is torn or does not read is one `damaged` entry right after the last event read from that log, so the
rest of the history still shows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from harn_tui.core.journal import JsonlTail
from harn_tui.core.records import GoalIntent
from harn_tui.core.tree import Tree
from harn_tui.core.tree_files import ApprovalFiles, GoalFiles, PlanFiles, WorkFiles

Source = Literal["goal", "plan", "work", "approval"]
SOURCE_RANK: dict[str, int] = {"goal": 0, "plan": 1, "work": 2, "approval": 3}
DAMAGED = "damaged"
SUMMARY_LIMIT = 160


@dataclass(frozen=True, slots=True)
class HistoryEntry:
    """One entry of a goal's history. `run_id` names the run of an attempt's events (the console groups them);
    `line` is the 1-based line of a log event, or of the damaged line."""

    ts: str
    source: Source
    id: str
    seq: int | None
    event: str
    actor: str | None
    reason: str | None
    summary: str
    run_id: str | None = None
    line: int | None = None
    path: str | None = None

    @property
    def damaged(self) -> bool:
        return self.event == DAMAGED

    def sort_key(self) -> tuple[str, int, str, int]:
        return instant_key(self.ts), SOURCE_RANK[self.source], self.id, self.seq or 0

    def to_json(self, position: int) -> dict[str, Any]:
        return {
            "position": position,
            "ts": self.ts,
            "source": self.source,
            "id": self.id,
            "seq": self.seq,
            "event": self.event,
            "actor": self.actor,
            "reason": self.reason,
            "summary": self.summary,
        }


@dataclass(frozen=True, slots=True)
class GoalHistory:
    """The entries of one goal in history order (position K is `entries[K - 1]`) and what could not be read."""

    goal_id: str
    entries: tuple[HistoryEntry, ...]
    work_ids: tuple[str, ...]

    def __len__(self) -> int:
        return len(self.entries)

    @property
    def problems(self) -> list[dict[str, str]]:
        return [{"path": e.path or e.id, "problem": e.reason or DAMAGED} for e in self.entries if e.damaged]

    def to_json(self) -> dict[str, Any]:
        return {
            "goal_id": self.goal_id,
            "events": [entry.to_json(position) for position, entry in enumerate(self.entries, start=1)],
            "problems": self.problems,
        }


def instant(ts: str) -> datetime:
    """A timestamp of the tree as an instant (records carry `Z`; a proof's or a decision's may carry an offset)."""
    return datetime.fromisoformat(ts.replace("Z", "+00:00"))


def instant_key(ts: str) -> str:
    """A string that sorts as the instant `ts` does: UTC `YYYY-MM-DDTHH:MM:SS.ffffff`. The tree's own form
    (`...SS.fffZ`, or `...SSZ`) is padded without parsing (a thousand-entry history sorts on these); any other
    offset is converted."""
    if len(ts) >= 20 and ts[-1] == "Z" and ts[10] == "T" and ts[19] in ".Z":
        fraction = ts[20:-1]
        if not fraction or (fraction.isascii() and fraction.isdigit() and len(fraction) <= 6):
            return f"{ts[:19]}.{fraction:0<6}"
    return instant(ts).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")


def goal_history(tree: Tree, goal_id: str, work_ids: tuple[str, ...]) -> GoalHistory:
    """The history of a loaded goal whose intent reads, over the governed `work_ids` (the projection's)."""
    goal = tree.goals[goal_id]
    intent = goal.intent
    assert intent is not None, "a goal without a readable goal.json has no history"
    entries: list[HistoryEntry] = [_goal_created(intent)]
    for plan in goal.ordered_plans():
        entries.extend(_plan_entries(plan))
    approvals: dict[str, None] = {}
    for work_id in work_ids:
        work = tree.work.get(work_id)
        if work is not None:
            entries.extend(_work_entries(work, intent))
            approvals.update(
                (e.approval_id, None) for e in work.events if e.event == "attempt.finished" and e.approval_id
            )
    for approval_id in approvals:
        approval = tree.approvals.get(approval_id)
        if approval is not None and approval.decision is not None:
            entries.append(_approval_decided(approval))
    entries.sort(key=HistoryEntry.sort_key)
    return GoalHistory(goal_id, tuple(entries), work_ids)


def history_work_ids(tree: Tree, goal: GoalFiles, governed: tuple[str, ...]) -> tuple[str, ...]:
    """The work a goal's history covers: the projection's governed items, or, for a goal that projects as corrupt,
    every item its records name (the root's closure and every applied plan's items), so the history still shows."""
    if governed:
        return governed
    found: dict[str, None] = {}
    pending = list(reversed(tree.governed_candidates(goal)))
    while pending:
        work_id = pending.pop()
        work = tree.work.get(work_id)
        if work_id in found or work is None:
            continue
        found[work_id] = None
        if work.intent is not None:
            pending.extend(reversed(work.intent.dependencies))
    return tuple(found)


def _goal_created(intent: GoalIntent) -> HistoryEntry:
    return HistoryEntry(
        intent.created_at,
        "goal",
        intent.id,
        None,
        "goal.created",
        None,
        None,
        one_line(f"goal created: {intent.title}"),
    )


def _plan_entries(plan: PlanFiles) -> list[HistoryEntry]:
    request = plan.request
    assert request is not None
    entries = [
        HistoryEntry(
            request.created_at,
            "plan",
            plan.id,
            0,
            "plan.requested",
            "supervisor",
            None,
            f"plan {request.sequence} requested ({request.trigger})",
        )
    ]
    proposal = plan.proposal or plan.candidate
    for number, event in enumerate(plan.events, start=1):
        reason = getattr(event, "reason", None)
        entries.append(
            HistoryEntry(
                event.ts,
                "plan",
                plan.id,
                event.seq,
                event.event,
                event.actor,
                reason,
                one_line(plan_summary(event, proposal)),
                line=number,
            )
        )
    damage = _damage(plan.log, plan.id, "plan", entries[-1].ts)
    return [*entries, *damage]


def _work_entries(work: WorkFiles, goal: GoalIntent) -> list[HistoryEntry]:
    entries: list[HistoryEntry] = []
    numbers: dict[str, int] = {}
    for line, event in enumerate(work.events, start=1):
        run_id = getattr(event, "run_id", None)
        if event.event == "attempt.started":
            numbers[event.run_id] = event.attempt
        number = numbers.get(run_id or "")
        title = work.intent.title if work.intent is not None else work.id
        entries.append(
            HistoryEntry(
                event.ts,
                "work",
                work.id,
                event.seq,
                event.event,
                event.actor,
                getattr(event, "reason", None),
                one_line(work_summary(event, number, title)),
                run_id=run_id,
                line=line,
            )
        )
    fallback = entries[-1].ts if entries else (work.intent.created_at if work.intent else goal.created_at)
    return [*entries, *_damage(work.log, work.id, "work", fallback)]


def _approval_decided(approval: ApprovalFiles) -> HistoryEntry:
    decision = approval.decision
    assert decision is not None
    verdict = "approved" if decision.verdict == "approve" else "denied"
    text = f"approval {approval.id} {verdict} by {decision.actor}" + (f": {decision.reason}" if decision.reason else "")
    run_id = approval.request.run_id if approval.request is not None else None
    return HistoryEntry(
        decision.decided_at,
        "approval",
        approval.id,
        None,
        "approval.decided",
        decision.actor,
        decision.reason,
        one_line(text),
        run_id=run_id,
    )


def _damage(log: JsonlTail[Any], owner: str, source: Source, ts: str) -> list[HistoryEntry]:
    """The one entry for a log's first unreadable line or torn tail, sorted right after its last event."""
    line = len(log.events) + 1
    if log.problem is not None:
        problem = log.problem
    elif log.torn:
        problem = f"{log.path}: line {line}: torn final line (no trailing newline; an interrupted write)"
    else:
        return []
    return [
        HistoryEntry(
            ts,
            source,
            owner,
            line,
            DAMAGED,
            None,
            problem,
            one_line(f"damaged: {problem}"),
            line=line,
            path=str(log.path),
        )
    ]


def one_line(text: str) -> str:
    """A summary shown on one line: whitespace runs (newlines included) become one space, bounded in length."""
    flat = " ".join(text.split())
    return flat if len(flat) <= SUMMARY_LIMIT else flat[: SUMMARY_LIMIT - 1] + "…"


def plan_summary(event: Any, proposal: Any) -> str:
    kind: str = event.event
    reason = getattr(event, "reason", None)
    tail = f": {reason}" if reason else ""
    if kind == "plan.proposed":
        if proposal is None:
            return "proposed"
        items = len(proposal.work)
        return f"proposed: {proposal.decision}" + (f", {items} new item{'s' * (items != 1)}" if items else "")
    if kind == "plan.reviewed":
        round_ = getattr(event, "round", None)
        return "review passed" + (f" (round {round_})" if round_ else "")
    if kind == "plan.applied":
        count = len(event.work_ids)
        return f"applied: root {event.root_work_id}, {count} item{'s' * (count != 1)}{tail}"
    if kind == "plan.failed":
        cls = getattr(event, "class_", None)
        return f"failed{f' ({cls})' if cls else ''}{tail}"
    if kind == "plan.completed":
        return f"completed: the mission is done{tail}"
    words = {
        "plan.attention": "needs attention",
        "plan.rejected": "rejected",
        "plan.retry_requested": "retry requested",
        "plan.revision_requested": "revision requested",
        "plan.reopened": "reopened",
    }
    return words.get(kind, kind.removeprefix("plan.")) + tail


def work_summary(event: Any, number: int | None, title: str) -> str:
    kind: str = event.event
    reason = getattr(event, "reason", None)
    tail = f": {reason}" if reason else ""
    attempt = f"attempt {number}" if number is not None else "an attempt"
    if kind == "work.created":
        return f"created: {title}"
    if kind == "attempt.started":
        return f"attempt {event.attempt} started ({event.trigger})"
    if kind == "attempt.finished":
        if event.status == "parked":
            return f"{attempt} parked on approval {event.approval_id}"
        cls = f" [{event.class_}]" if event.class_ else ""
        return f"{attempt} {event.status}{cls}{tail}"
    if kind == "attempt.resumed":
        return f"{attempt} resumed ({event.approval_id})"
    if kind == "work.accepted":
        count = len(event.dispositions)
        return f"accepted {event.run_id}" + (f", {count} finding{'s' * (count != 1)} disposed" if count else "") + tail
    if kind == "work.reopened":
        count = len(event.findings)
        return f"reopened with {count} finding{'s' * (count != 1)}{tail}"
    if kind == "work.cancelled":
        return f"cancelled{tail}"
    return kind + tail
