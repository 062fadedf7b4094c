"""Materializing an applied plan: work intents as a pure function of the proposal, idempotent after a crash.

Every item gets the deterministic ID `<plan-id>-<key>`, `created_at` = the proposal's `proposed_at`, provenance
`{kind: plan, ref: <goal>/<plan>}`, and template and `max_attempts` from the frozen catalog. Work that already
exists is reused only when its intent matches exactly; all conflicts are found before anything is written.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from pydantic import ValidationError

from harn_tui.core.addresses import EVENTS
from harn_tui.core.errors import CorruptJournal, Refused
from harn_tui.core.faults import fault_point
from harn_tui.core.fsio import ensure_dir, fsync_dir, write_record
from harn_tui.core.ids import is_valid_id, plan_work_id
from harn_tui.core.journal import JsonlTail, read_bytes
from harn_tui.core.layout import Layout
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.records import (
    FrozenTemplate,
    Proposal,
    TemplateRef,
    WorkCreated,
    WorkEvent,
    WorkIntent,
    WorkSource,
)
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER
from harn_tui.core.sharing import make_dir
from harn_tui.core.writer import append_event_batched


@dataclass(frozen=True)
class PlannedWork:
    """The work a proposal materializes into, in proposal order, and the root's ID."""

    intents: tuple[WorkIntent, ...]
    root_work_id: str

    @property
    def work_ids(self) -> list[str]:
        return [intent.id for intent in self.intents]


def planned_work(
    goal_id: str,
    plan_id: str,
    proposal: Proposal,
    catalog: dict[str, FrozenTemplate],
    active_ids: set[str],
) -> PlannedWork:
    """The intents of an `apply` proposal. Dependencies name earlier keys (mapped to their work IDs) or
    active work (kept); anything else refuses, since it would leave a dangling graph."""
    ids: dict[str, str] = {}
    intents: list[WorkIntent] = []
    for item in proposal.work:
        if item.key in ids:
            raise Refused(f"plan {plan_id} names key {item.key!r} twice")
        template = catalog.get(item.template)
        if template is None:
            raise Refused(f"plan {plan_id} item {item.key} names template {item.template!r}, not in the frozen catalog")
        dependencies: list[str] = []
        for dependency in item.dependencies:
            if dependency in ids:
                dependencies.append(ids[dependency])
            elif dependency in active_ids:
                dependencies.append(dependency)
            else:
                raise Refused(
                    f"plan {plan_id} item {item.key} depends on {dependency!r}, "
                    "which is neither an earlier key nor active work"
                )
        work_id = plan_work_id(plan_id, item.key)
        if not is_valid_id(work_id):
            raise Refused(f"plan {plan_id} item {item.key} would get the invalid work ID {work_id!r}")
        ids[item.key] = work_id
        intents.append(
            WorkIntent(
                id=work_id,
                title=item.title,
                objective=item.objective,
                acceptance=list(item.acceptance),
                dependencies=dependencies,
                template=TemplateRef(path=template.path, sha256=template.sha256),
                max_attempts=template.max_attempts,
                source=WorkSource(kind="plan", ref=f"{goal_id}/{plan_id}"),
                created_at=proposal.proposed_at,
            )
        )
    if proposal.root is None or proposal.root not in ids:
        raise Refused(f"plan {plan_id} names root {proposal.root!r}, which is not one of its keys")
    root_template = next(item.template for item in proposal.work if item.key == proposal.root)
    if not catalog[root_template].root:
        raise Refused(f"plan {plan_id} root {proposal.root} uses template {root_template!r}, which is not root-capable")
    return PlannedWork(tuple(intents), ids[proposal.root])


@dataclass(frozen=True)
class _Step:
    intent: WorkIntent
    log: JsonlTail[WorkEvent]
    write_intent: bool
    append_created: bool


def _inspect(layout: Layout, intent: WorkIntent) -> _Step:
    """What is still missing for one item; any difference from the expected intent fails closed."""
    directory = layout.work(intent.id)
    path = directory / "intent.json"
    linked = directory_problem(directory)
    if linked is not None:
        raise Refused(f"work {intent.id}: {linked}; materialization fails closed")
    log: JsonlTail[WorkEvent] = JsonlTail(directory / EVENTS, WORK_EVENTS_ADAPTER)
    log.refresh()
    if log.problem is not None:
        raise Refused(f"work {intent.id} exists with a damaged log ({log.problem}); materialization fails closed")
    try:
        existing = WorkIntent.model_validate_json(read_bytes(path))
    except FileNotFoundError:
        existing = None
    except (ValidationError, CorruptJournal):
        raise Refused(f"work {intent.id} exists with an unreadable intent; materialization fails closed") from None
    if existing is not None and existing != intent:
        raise Refused(f"work {intent.id} exists with a different intent; materialization fails closed")
    if existing is None and log.events:
        raise Refused(f"work {intent.id} has events but no intent.json; materialization fails closed")
    if log.events and log.events[0].event != "work.created":
        raise Refused(f"work {intent.id} does not begin with work.created; materialization fails closed")
    return _Step(intent, log, write_intent=existing is None, append_created=not log.events)


def materialize(layout: Layout, planned: PlannedWork, actor: str) -> None:
    """Write every missing intent and `work.created` (actor = the approving actor). The caller holds the goal
    lease. Fault points: `materialize.item` after each item's `work.created`, `materialize.before_applied` at
    the end.

    Durability is batched by phase, in an order a crash anywhere leaves repairable (the repeat completes a
    directory without `intent.json`): the missing directories are made and `work/` is fsynced once; every
    intent is fsynced and linked, then each new intent's directory is fsynced, so an intent is durable before
    its item's first event exists; every `work.created` is appended (one write + fsync each), then each new
    log's directory is fsynced. Everything is durable before the caller appends `plan.applied`. Grouping the
    links before the directory fsyncs lets one journal commit cover them all."""
    steps = [_inspect(layout, intent) for intent in planned.intents]
    ensure_dir(layout.work_dir)
    made = False
    for step in steps:
        if step.write_intent:
            with contextlib.suppress(FileExistsError):
                make_dir(layout.work(step.intent.id))
                made = True
    if made:
        fsync_dir(layout.work_dir)
    linked = [
        step
        for step in steps
        if step.write_intent and write_record(layout.work(step.intent.id) / "intent.json", step.intent, sync_dir=False)
    ]
    for step in linked:
        fsync_dir(layout.work(step.intent.id))
    created = []
    for step in steps:
        if step.append_created:
            append_event_batched(step.log, WorkCreated, actor)
            created.append(step)
        fault_point("materialize.item")
    for step in created:
        fsync_dir(step.log.path.parent)
    fault_point("materialize.before_applied")
