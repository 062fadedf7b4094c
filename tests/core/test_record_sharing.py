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


def test_a_reread_record_or_log_is_reused_only_while_its_bytes_are_the_same(tmp_path: Path) -> None:
    path = tmp_path / "event.json"
    short = b'{"schema_version":1,"seq":1,"ts":"2026-01-01T00:00:00.000Z","event":"work.created","actor":"a"}'
    path.write_bytes(short)
    first = parse_record(path, path.read_bytes(), WorkCreated)
    assert parse_record(path, path.read_bytes(), WorkCreated) is first
    path.write_bytes(short.replace(b'"actor":"a"', b'"actor":"b"'))  # same length, other bytes
    assert parse_record(path, path.read_bytes(), WorkCreated).actor == "b"

    log = tmp_path / "events.jsonl"
    log.write_bytes(LINES[: LINES.index(b"\n") + 1])
    JsonlTail(log, WORK_EVENTS_ADAPTER).refresh()
    log.write_bytes(LINES)
    grown = JsonlTail(log, WORK_EVENTS_ADAPTER)
    grown.refresh()
    assert [e.seq for e in grown.events] == [1, 2, 3] and grown.problem is None
    log.write_bytes(LINES.replace(b'"actor":"a","reason":null}', b'"actor":"z","reason":null}', 1))
    rewritten = JsonlTail(log, WORK_EVENTS_ADAPTER)
    rewritten.refresh()
    assert rewritten.events[0].actor == "z" and len(rewritten.events) == 3
