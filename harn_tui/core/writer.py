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
    log.refresh()
    if log.problem is not None:
        raise CorruptJournal(log.problem)
    event = event_type.model_validate(
        {"seq": len(log.events) + 1, "ts": now_iso(), "actor": actor, **payload}, by_alias=True
    )
    append_line(log.path, event_line(event))
    log.refresh()
    return event
