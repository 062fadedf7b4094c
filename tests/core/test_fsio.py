"""Durable writes: immutable records link into place once; JSONL appends are single fsynced lines."""

from __future__ import annotations

import multiprocessing
import os
import stat
import time
from pathlib import Path

import pytest

from harn_tui.core.fsio import ImmutableConflict, append_line, ensure_dir, is_temp_name, write_immutable
from harn_tui.core.journal import JsonlTail
from harn_tui.core.leases import hold_lease
from harn_tui.core.records import WorkCreated
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER
from harn_tui.core.writer import append_event


def test_immutable_write_is_idempotent_for_identical_bodies(tmp_path: Path) -> None:
    target = tmp_path / "d" / "record.json"
    assert write_immutable(target, b"{}\n") is True
    assert write_immutable(target, b"{}\n") is False
    assert target.read_bytes() == b"{}\n"
    assert [p.name for p in target.parent.iterdir()] == ["record.json"], "no temporary file is left behind"


def test_immutable_write_refuses_a_different_body_and_keeps_the_first(tmp_path: Path) -> None:
    target = tmp_path / "record.json"
    write_immutable(target, b'{"a": 1}\n')
    with pytest.raises(ImmutableConflict, match="different body"):
        write_immutable(target, b'{"a": 2}\n')
    assert target.read_bytes() == b'{"a": 1}\n'


def test_directories_are_0700_and_files_0600(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "record.json"
    write_immutable(target, b"{}\n")
    append_line(tmp_path / "a" / "log.jsonl", b"{}\n")
    assert stat.S_IMODE(os.stat(tmp_path / "a").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "b").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "a" / "log.jsonl").st_mode) == 0o600


def test_stale_temporary_files_are_removed_by_the_next_writer(tmp_path: Path) -> None:
    ensure_dir(tmp_path)
    stale = tmp_path / ".record.json.tmp-deadbeef"
    fresh = tmp_path / ".other.json.tmp-cafebabe"
    stale.write_bytes(b"half")
    fresh.write_bytes(b"in flight")
    old = time.time() - 3600
    os.utime(stale, (old, old))
    write_immutable(tmp_path / "record.json", b"{}\n")
    assert not stale.exists()
    assert fresh.exists(), "a temporary file still being written by another process is left alone"
    assert is_temp_name(stale.name) and not is_temp_name("record.json")


def created_line(seq: int) -> bytes:
    return (
        f'{{"schema_version":1,"seq":{seq},"ts":"2026-11-30T12:00:00.000Z","event":"work.created",'
        f'"actor":"a","reason":null}}\n'
    ).encode()


def test_torn_tail_is_ignored_by_readers_and_repaired_by_the_next_writer(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(created_line(1) + b'{"schema_version":1,"seq":2,"ts":"2026-11-3')
    tail = JsonlTail(path, WORK_EVENTS_ADAPTER)
    tail.refresh()
    assert [e.seq for e in tail.events] == [1]
    assert tail.torn and tail.problem is None
    with hold_lease(tmp_path / "lease", "test"):
        append_event(tail, WorkCreated, "bob")
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 3
    assert [e.seq for e in tail.events] == [1, 2] and not tail.torn


def test_tail_rereads_only_appended_bytes_and_restarts_on_replacement(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(created_line(1))
    tail = JsonlTail(path, WORK_EVENTS_ADAPTER)
    tail.refresh()
    offset = tail.offset
    with path.open("ab") as handle:
        handle.write(created_line(2))
    assert tail.refresh() is True
    assert tail.offset == offset + len(created_line(2)) and len(tail.events) == 2
    assert tail.refresh() is False, "nothing new: nothing re-read"
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(created_line(1))
    os.replace(replacement, path)
    tail.refresh()
    assert [e.seq for e in tail.events] == [1]


def test_a_sequence_gap_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(created_line(1) + created_line(3))
    tail = JsonlTail(path, WORK_EVENTS_ADAPTER)
    tail.refresh()
    assert tail.problem is not None and "line 2" in tail.problem and "seq 3" in tail.problem


def _append_many(directory: str, count: int) -> None:
    tail = JsonlTail(Path(directory) / "events.jsonl", WORK_EVENTS_ADAPTER)
    for _ in range(count):
        with hold_lease(Path(directory) / "lease", "test"):
            append_event(tail, WorkCreated, f"p{os.getpid()}", reason="contended")


def test_appends_from_several_processes_never_interleave_and_seq_stays_gapless(tmp_path: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_append_many, args=(str(tmp_path), 25)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    tail = JsonlTail(tmp_path / "events.jsonl", WORK_EVENTS_ADAPTER)
    tail.refresh()
    assert tail.problem is None and not tail.torn
    assert [e.seq for e in tail.events] == list(range(1, 101))
    assert len({e.actor for e in tail.events}) == 4


def test_a_dead_writers_temporary_file_is_removed_at_once_by_the_next_writer(tmp_path: Path) -> None:
    import subprocess
    import sys

    crash = (
        "import os\nfrom pathlib import Path\nfrom harn_tui.core.fsio import write_immutable\n"
        f"os.environ['HARN_FAULT'] = 'write.link:1'\nwrite_immutable(Path({str(tmp_path)!r}) / 'a.json', b'{{}}')\n"
    )
    result = subprocess.run([sys.executable, "-c", crash], capture_output=True)
    assert result.returncode == 137
    leftovers = [p.name for p in tmp_path.iterdir() if is_temp_name(p.name)]
    assert len(leftovers) == 1 and not (tmp_path / "a.json").exists()
    write_immutable(tmp_path / "b.json", b"{}")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json"]


def test_a_blank_line_or_two_objects_on_one_line_is_a_problem_not_silence(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    for body, expected in (
        (created_line(1) + b"\n" + created_line(2), "line 2: blank line"),
        (created_line(1) + created_line(2)[:-1] + b"," + created_line(3), "line 2: holds 2 JSON values"),
    ):
        path.write_bytes(body)
        tail = JsonlTail(path, WORK_EVENTS_ADAPTER)
        tail.refresh()
        assert tail.problem is not None and expected in tail.problem
        assert [e.seq for e in tail.events] == [1]
