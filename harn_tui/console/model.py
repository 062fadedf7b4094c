"""The console's live model: a loaded `Tree`, its goals projected, re-read one changed path at a time.

`apply(paths)` re-reads only the records and logs at those paths (logs by byte offset), re-projects only
the goals they touch, and reports the transitions other actors made (new events seen in the re-read logs),
so a console can follow another process within a watcher's debounce.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from harn_tui.console.kept import KeptGoals, KeptRow, kept_goals, kept_view, unread_goals
from harn_tui.console.transcripts import TranscriptTails
from harn_tui.console.views import STANDALONE, standalone_goal
from harn_tui.core.addresses import LOOP_LOCK, TRANSCRIPT, Address, address_of
from harn_tui.core.layout import Layout
from harn_tui.core.leases import is_held
from harn_tui.core.projection import GoalView, WorkResolver, project_goal
from harn_tui.core.records import Proof, WorkEvent
from harn_tui.core.rules import awaits_human, provenance_goal
from harn_tui.core.tree import Tree, bulk_allocation
from harn_tui.core.tree_files import ApprovalFiles, PlanFiles, WorkFiles, aborted_goal

TRANSITION_EVENTS = frozenset(
    {
        "plan.applied",
        "plan.completed",
        "plan.rejected",
        "plan.retry_requested",
        "plan.reopened",
        "work.accepted",
        "work.reopened",
        "work.cancelled",
    }
)


@dataclass(frozen=True)
class SeenEvent:
    """A new event (or approval decision) noticed while re-reading the tree."""

    actor: str
    event: str
    target: str
    goal_id: str | None
    ts: str


@dataclass(frozen=True)
class ModelUpdate:
    goals: frozenset[str] = frozenset()
    presence: bool = False
    transcripts: frozenset[str] = frozenset()
    seen: tuple[SeenEvent, ...] = ()
    services: bool = False

    @property
    def empty(self) -> bool:
        return not (self.goals or self.presence or self.transcripts or self.seen or self.services)

    def transitions_by_others(self, actor: str) -> list[SeenEvent]:
        return [e for e in self.seen if e.actor != actor and _is_transition(e)]


def _is_transition(seen: SeenEvent) -> bool:
    if seen.event in TRANSITION_EVENTS or seen.event.startswith("approval."):
        return True
    return seen.event == "attempt.started" and seen.actor != "supervisor"


@dataclass
class ConsoleModel:
    layout: Layout
    tree: Tree
    goals: dict[str, GoalView] = field(default_factory=dict)
    standalone: GoalView | None = None  # standalone work that needs a human (see `standalone_goal`)
    last_supervisor_event: SeenEvent | None = None
    # False while the model starts from the kept goal list (`start`): `goals` then holds the goals read so far
    # and, for the others, their kept rows (`unread`, see `kept_view`); the whole tree is read behind it
    complete: bool = True
    unread: set[str] = field(default_factory=set)
    kept: KeptGoals | None = None
    read_seconds: float | None = None  # how long `load` took (a whole model's)
    _work_goals: dict[str, set[str]] = field(default_factory=dict)
    _goal_work: dict[str, set[str]] = field(default_factory=dict)
    _open_runs: dict[str, str] = field(default_factory=dict)  # run -> its work, for runs not finished
    _standalone_ids: set[str] = field(default_factory=set)  # work that belongs to no goal
    _standalone_dirty: bool = False
    transcripts: TranscriptTails = field(init=False)

    def __post_init__(self) -> None:
        self.transcripts = TranscriptTails(self.layout.runs)

    @classmethod
    def opening(cls, layout: Layout) -> ConsoleModel:
        """The model a console opens with. When reading the whole tree is slow: from the goal list the last
        console kept, or with nothing kept from the rows of unread goals (`start`). Else the whole tree (`load`)."""
        kept = kept_goals(layout)
        if kept is not None:
            return cls.start(layout, kept) if kept.worth_starting_from else cls.load(layout)
        unread = unread_goals(layout)
        return cls.start(layout, unread) if unread is not None else cls.load(layout)

    @classmethod
    def load(cls, layout: Layout) -> ConsoleModel:
        started = time.monotonic()
        model = cls(layout, Tree.load(layout))
        for work in model.tree.work.values():
            model._index_runs(work)
        with bulk_allocation(freeze=True):  # as `queries.project_tree` does for its views
            model._reproject(set(model.tree.goals), classify=False, loaded=True)
        model._classify(w for w in model.tree.work if not model._work_goals.get(w))
        model._refresh_standalone()
        model.read_seconds = time.monotonic() - started
        return model

    @classmethod
    def start(cls, layout: Layout, kept: KeptGoals) -> ConsoleModel:
        """A model that shows `kept` (the goal list as last seen, or the rows of unread goals) until each goal is
        read (`read_goal`) or the whole tree is (`load`, which replaces this model)."""
        model = cls(layout, Tree(layout), complete=False, kept=kept)
        model.goals = {row.id: kept_view(row) for row in kept.rows}
        model.unread = set(model.goals)
        return model

    def read_goal(self, goal_id: str | None) -> bool:
        """Read a goal shown from its kept row, and its work, from the records (a model that started from the
        kept list only). True if its row changed (read, or gone because its directory is)."""
        if goal_id is None or goal_id not in self.unread:
            return False
        self.unread.discard(goal_id)
        if not self.layout.goal(goal_id).is_dir():
            self.goals.pop(goal_id, None)
            return True
        if aborted_goal(self.tree.load_goal(goal_id)):
            del self.tree.goals[goal_id]
            self.goals.pop(goal_id, None)
            return True
        self._reproject({goal_id}, classify=False)  # reads the work it governs, as after a `plan.applied`
        return True

    def kept_rows(self) -> dict[str, KeptRow]:
        """The kept rows of the goals not read yet, by goal id."""
        if self.kept is None or not self.unread:
            return {}
        return {row.id: row for row in self.kept.rows if row.id in self.unread}

    def goal_list(self) -> list[GoalView]:
        return [self.goals[goal_id] for goal_id in sorted(self.goals)]

    def console_goals(self) -> list[GoalView]:
        """The goals, then (when some needs a human) the standalone work as one more row."""
        return [*self.goal_list(), *([self.standalone] if self.standalone is not None else [])]

    def goal_view(self, goal_id: str | None) -> GoalView | None:
        """A goal's view, or the standalone work's for `STANDALONE`."""
        if goal_id == STANDALONE:
            return self.standalone
        return self.goals.get(goal_id) if goal_id is not None else None

    # ----- incremental refresh

    def apply(self, paths: Iterable[Path]) -> ModelUpdate:
        """Re-read each changed path and re-project the goals it touches."""
        base = self.layout.base.resolve()
        touched: set[str] = set()
        seen: list[SeenEvent] = []
        presence = services = False
        transcripts: set[str] = set()
        for path in paths:
            try:
                parts = Path(path).resolve().relative_to(base).parts
            except ValueError:
                continue
            address = address_of(parts)
            if address is None or not (self.complete or self._was_read(address)):
                continue
            if address.kind in ("presence", "service"):
                presence |= address.kind == "presence"
                services |= address.kind == "service"
                continue
            if address.kind == "run" and address.name == TRANSCRIPT:
                transcripts.add(address.id)
                continue
            before = self._before(address)
            if not self.tree.refresh_address(address):
                continue
            touched |= self._goals_touched(address)
            self._classify(self._works_touched(address))
            seen.extend(self._after(address, before))
        self._reproject(touched)
        if self._standalone_dirty and self._refresh_standalone():
            touched.add(STANDALONE)
        return ModelUpdate(frozenset(touched), presence, frozenset(transcripts), tuple(seen), services)

    def refresh_liveness(self) -> ModelUpdate:
        """Re-probe the leases of open runs and of every goal's loop (a process's death fires no file event).

        Same rule as `Tree.refresh_liveness`, but only over the runs known to be open (kept up to date as logs
        are re-read), and only the goals whose liveness changed are re-projected: cheap enough for a 1 s timer
        on a tree with hundreds of thousands of events."""
        touched: set[str] = set()
        for run_id, work_id in list(self._open_runs.items()):
            run = self.tree.runs.get(run_id)
            if run is None:
                continue
            if run.probe():  # as a fresh load probes it: with the note of a runner that could not record
                touched |= self._goals_of_work(work_id)
                self._classify((work_id,))
        for goal in self.tree.goals.values():
            held = is_held(goal.directory / LOOP_LOCK)
            if held != goal.loop_held:
                goal.loop_held = held
                touched.add(goal.id)
        if not touched and not self._standalone_dirty:
            return ModelUpdate()
        self.tree.version += 1
        self._reproject(touched)
        if self._standalone_dirty and self._refresh_standalone():
            touched.add(STANDALONE)
        return ModelUpdate(frozenset(touched))

    def _was_read(self, address: Address) -> bool:
        """Whether a model started from the kept list has read what `address` is part of (what it has not read
        is read with the whole tree, which replaces it)."""
        if address.kind in ("presence", "service"):
            return True
        if address.kind in ("goal", "plan", "revision"):
            return address.id in self.tree.goals
        if address.kind == "work":
            return address.id in self.tree.work
        if address.kind == "run":
            return address.id in self.tree.runs or self.tree.run_owner(address.id) is not None
        if address.kind == "approval":
            return address.id in self.tree.approvals
        return False

    def _plan(self, address: Address) -> PlanFiles | None:
        goal = self.tree.goals.get(address.id)
        return goal.plans.get(address.plan) if goal is not None and address.plan is not None else None

    def _before(self, address: Address) -> int:
        if address.kind == "work" and address.id in self.tree.work:
            return len(self.tree.work[address.id].events)
        if address.kind in ("plan", "revision"):
            plan = self._plan(address)
            return len(plan.events) if plan is not None else 0
        if address.kind == "approval":
            approval = self.tree.approvals.get(address.id)
            return 1 if approval is not None and approval.decision is not None else 0
        return 0

    def _after(self, address: Address, before: int) -> list[SeenEvent]:
        found: list[SeenEvent] = []
        if address.kind == "work" and address.id in self.tree.work:
            work_id = address.id
            events = self.tree.work[work_id].events
            self._index_runs(self.tree.work[work_id])
            goal_id = min(self._work_goals.get(work_id, set()) or {""}) or None
            found = [SeenEvent(e.actor, e.event, work_id, goal_id, e.ts) for e in events[before:]]
        elif address.kind in ("plan", "revision"):
            plan = self._plan(address)
            if plan is not None:
                found = [SeenEvent(e.actor, e.event, plan.id, address.id, e.ts) for e in plan.events[before:]]
        elif address.kind == "approval" and before == 0:
            approval = self.tree.approvals.get(address.id)
            if approval is not None and approval.decision is not None:
                decision = approval.decision
                goal_id = approval.request.goal_id if approval.request is not None else None
                found = [
                    SeenEvent(decision.actor, f"approval.{decision.verdict}", approval.id, goal_id, decision.decided_at)
                ]
        for event in found:
            if event.actor == "supervisor":
                self.last_supervisor_event = event
        return found

    def _goals_touched(self, address: Address) -> set[str]:
        if address.kind in ("goal", "plan", "revision"):
            return {address.id}
        if address.kind == "work":
            return self._goals_of_work(address.id)
        if address.kind == "run":
            work_id = self.tree.run_owner(address.id)
            return self._goals_of_work(work_id) if work_id else set()
        if address.kind == "approval":
            approval = self.tree.approvals.get(address.id)
            if approval is None or approval.request is None:
                return set()
            goals = self._goals_of_work(approval.request.work_id)
            if approval.request.goal_id in self.tree.goals:
                goals.add(approval.request.goal_id)
            return goals
        return set()

    def _works_touched(self, address: Address) -> set[str]:
        """The work items a changed path belongs to (its own directory, a run of it, an approval of it)."""
        if address.kind == "work":
            return {address.id}
        if address.kind == "run":
            work_id = self.tree.run_owner(address.id)
            return {work_id} if work_id else set()
        if address.kind == "approval":
            approval = self.tree.approvals.get(address.id)
            return {approval.request.work_id} if approval is not None and approval.request is not None else set()
        return set()

    def _classify(self, work_ids: Iterable[str]) -> None:
        """Note which of `work_ids` belong to no goal; the standalone view is recomputed if any of them does (or
        just stopped doing so)."""
        for work_id in work_ids:
            standalone = work_id in self.tree.work and not self._goals_of_work(work_id)
            if standalone or work_id in self._standalone_ids:
                self._standalone_dirty = True
            if standalone:
                self._standalone_ids.add(work_id)
            else:
                self._standalone_ids.discard(work_id)

    def _goals_of_work(self, work_id: str) -> set[str]:
        goals = set(self._work_goals.get(work_id, set()))
        work = self.tree.work.get(work_id)
        if work is not None and work.intent is not None:
            named = provenance_goal(work.intent.source.kind, work.intent.source.ref)
            if named is not None and named in self.tree.goals:
                goals.add(named)
        return goals

    def _index_runs(self, work: WorkFiles) -> None:
        """Which runs of the work are open (started, not finished except parked): what the tree read of them."""
        told = self.tree.runs_told(work)
        for run_id in told.started:
            self._open_runs.pop(run_id, None)
        for run_id in told.unfinished:
            self._open_runs[run_id] = work.id

    def _ensure_loaded(self, goal_id: str) -> None:
        """Load governed work (and its dependencies) the tree has not read yet, e.g. after a `plan.applied`."""
        goal = self.tree.goals.get(goal_id)
        if goal is None:
            return
        pending = list(self.tree.governed_candidates(goal))
        visited: set[str] = set()
        while pending:
            work_id = pending.pop()
            if work_id in visited:
                continue
            visited.add(work_id)
            work = self.tree.work.get(work_id)
            if work is None:
                if not (self.layout.work_dir / work_id).is_dir():
                    continue
                work = self.tree.load_work(work_id)
                self.tree.load_named_by(work)
                self._index_runs(work)
            if work.intent is not None:
                pending.extend(work.intent.dependencies)

    def _reproject(self, goal_ids: set[str], *, classify: bool = True, loaded: bool = False) -> None:
        """Project `goal_ids` again; `loaded`: the tree has read every work directory (`Tree.load`), so no goal
        governs work it has not read."""
        if not goal_ids:
            return
        resolver = WorkResolver(self.tree)
        regoverned: set[str] = set()
        for goal_id in goal_ids:
            before = self._goal_work.pop(goal_id, set())
            for work_id in before:
                self._work_goals.get(work_id, set()).discard(goal_id)
            if goal_id not in self.tree.goals:
                self.goals.pop(goal_id, None)
                regoverned |= before
                continue
            if not loaded:
                self._ensure_loaded(goal_id)
            view = project_goal(self.tree, goal_id, resolver)
            self.goals[goal_id] = view
            governed = {*view.governed_work_ids, *view.active_ids}
            self._goal_work[goal_id] = governed
            for work_id in governed:
                self._work_goals.setdefault(work_id, set()).add(goal_id)
            regoverned |= before ^ governed
        if classify:
            self._classify(regoverned)

    def _refresh_standalone(self) -> bool:
        """Recompute the standalone work that needs a human; True if what the console shows changed. (Only from
        the whole tree: a model that read some goals cannot tell which work belongs to none.)"""
        self._standalone_dirty = False
        if not self.complete:
            return False
        resolver = WorkResolver(self.tree)
        views = (resolver.view(work_id) for work_id in self._standalone_ids)
        items = [resolver.flagged(view, True) for view in views if view is not None and awaits_human(view)]
        before = self.standalone
        self.standalone = standalone_goal(items)
        if before is None or self.standalone is None:
            return before is not self.standalone
        return before.work != self.standalone.work

    # ----- records the panels show

    def work_events(self, work_id: str) -> list[WorkEvent]:
        work = self.tree.work.get(work_id)
        return list(work.events) if work is not None else []

    def proof(self, run_id: str) -> Proof | None:
        run = self.tree.runs.get(run_id)
        return run.proof if run is not None else None

    def approval(self, approval_id: str) -> ApprovalFiles | None:
        return self.tree.approvals.get(approval_id)

    def transcript_tail(self, run_id: str, lines: int = 6) -> list[str]:
        """The last `lines` lines a run printed; each call reads only what the run appended since the last."""
        return self.transcripts.lines(run_id, lines)
