"""The watcher's own process, run in a thread: what it reports of changes to the tree, polling and native."""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harn_tui.tui.watch_process import Emitter, watch_tree

EVENTS = "work/docs/events.jsonl"


class Collected(Emitter):
    def __init__(self, stop: threading.Event) -> None:
        super().__init__(stop)
        self.messages: queue.Queue[dict[str, object]] = queue.Queue()

    def send(self, message: dict[str, object]) -> None:
        self.messages.put(message)

    def next_paths(self, timeout: float) -> list[object]:
        """The next batch of paths (skipping `ready`), or [] when none comes within `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                break
            paths = message.get("paths")
            if isinstance(paths, list) and paths:
                return paths
        return []


@pytest.fixture(params=["polling", "native"])
def watched(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[Path, Collected]]:
    base = tmp_path / ".harnery"
    (base / "work" / "docs").mkdir(parents=True)
    events = base / EVENTS
    events.write_text('{"n": 0}\n')
    old = time.time_ns() - 60 * 10**9
    os.utime(events, ns=(old, old))  # written long before the watcher started: no catch-up batch
    stop = threading.Event()
    emit = Collected(stop)
    thread = threading.Thread(target=watch_tree, args=(base, request.param == "polling", time.time(), stop, emit))
    thread.start()
    try:
        ready = emit.messages.get(timeout=10)
        assert ready == {"ready": request.param}
        yield events, emit
    finally:
        stop.set()
        thread.join(timeout=10)


def append(path: Path, line: str, mtime_ns: int) -> None:
    with path.open("a") as stream:
        stream.write(line)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_a_file_changed_twice_within_one_second_is_reported_both_times(watched: tuple[Path, Collected]) -> None:
    """A poller that compares whole seconds misses the second change; the console would show the first forever."""
    events, emit = watched
    second = (time.time_ns() // 10**9 - 30) * 10**9
    append(events, '{"n": 1}\n', second + 100_000_000)
    assert emit.next_paths(timeout=5) == [EVENTS]
    append(events, '{"n": 2}\n', second + 500_000_000)
    assert emit.next_paths(timeout=5) == [EVENTS]
    assert emit.next_paths(timeout=0.6) == []  # and then quiet: nothing changed again
