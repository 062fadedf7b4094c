"""Records read from disk share one fields-set per class, and stay independent values."""

from __future__ import annotations

from pathlib import Path

from harn_tui.core.journal import JsonlTail, parse_record
from harn_tui.core.records import WorkCreated, WorkReopened
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER

LINES = (
    b'{"schema_version":1,"seq":1,"ts":"2026-01-01T00:00:00.000Z","event":"work.created","actor":"a","reason":null}\n'
    b'{"schema_version":1,"seq":2,"ts":"2026-01-01T00:00:01.000Z","event":"work.reopened","actor":"a",'
    b'"findings":[{"id":"f1","statement":"one","actor":"a"}],"reason":null}\n'
    b'{"schema_version":1,"seq":3,"ts":"2026-01-01T00:00:02.000Z","event":"work.reopened","actor":"b",'
    b'"findings":[{"id":"f1","statement":"two","actor":"b"}],"reason":null}\n'
)


def test_events_share_their_fields_set_and_copies_stay_apart(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(LINES)
    tail = JsonlTail(path, WORK_EVENTS_ADAPTER)
    tail.refresh()
    first, second = tail.events[1], tail.events[2]
    assert isinstance(first, WorkReopened) and isinstance(second, WorkReopened)
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__
    assert first.findings[0].__pydantic_fields_set__ is second.findings[0].__pydantic_fields_set__
    assert first.model_fields_set == {"schema_version", "seq", "ts", "event", "actor", "findings", "reason"}
    changed = first.model_copy(update={"reason": "changed"})
    assert changed.reason == "changed" and first.reason is None
    assert changed.model_dump(exclude_unset=True) == {**first.model_dump(exclude_unset=True), "reason": "changed"}
    assert second.model_fields_set == first.model_fields_set


def test_a_record_with_unset_fields_keeps_its_own_set(tmp_path: Path) -> None:
    short = b'{"schema_version":1,"seq":1,"ts":"2026-01-01T00:00:00.000Z","event":"work.created","actor":"a"}'
    full = short[:-1] + b',"reason":null}'
    complete = parse_record(tmp_path / "a", full, WorkCreated)
    partial = parse_record(tmp_path / "b", short, WorkCreated)
    assert "reason" not in partial.model_fields_set and "reason" in complete.model_fields_set
    assert partial.__pydantic_fields_set__ is not complete.__pydantic_fields_set__
