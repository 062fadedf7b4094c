"""Appending events: seq from the freshly re-read log, one line, one fsync, under a lease the caller holds."""

from __future__ import annotations

from typing import Any, TypeVar

from harn_tui.core.clock import now_iso
from harn_tui.core.errors import CorruptJournal
from harn_tui.core.fsio import append_line, event_line
from harn_tui.core.journal import JsonlTail
from harn_tui.core.records.events import Event

E = TypeVar("E", bound=Event)

SUPERVISOR_ACTOR = "supervisor"


def append_event(log: JsonlTail[Any], event_type: type[E], actor: str, **payload: Any) -> E:
    """Append one `event_type` to `log`; the caller holds the lease and has refreshed `log` under it."""
    return _append(log, event_type, actor, payload, sync_dir=True)


def append_event_batched(log: JsonlTail[Any], event_type: type[E], actor: str, **payload: Any) -> E:
    """`append_event` (one write + fsync) that leaves the directory fsync of a log it creates to the caller,
    who batches it with others (`fsio.fsync_dir`) before anything durable depends on the new log."""
    return _append(log, event_type, actor, payload, sync_dir=False)


def _append(log: JsonlTail[Any], event_type: type[E], actor: str, payload: dict[str, Any], *, sync_dir: bool) -> E:
    log.refresh()
    if log.problem is not None:
        raise CorruptJournal(log.problem)
    event = event_type.model_validate(
        {"seq": len(log.events) + 1, "ts": now_iso(), "actor": actor, **payload}, by_alias=True
    )
    append_line(log.path, event_line(event), sync_dir=sync_dir)
    log.refresh()
    return event
