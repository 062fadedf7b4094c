"""The file watcher's own process: watchfiles over `.harnery/`, one JSON line per batch of changed paths on stdout.

Arming a native watcher walks every directory of the tree while holding the interpreter lock (about 5 s for
100,000 directories), and polling re-walks it every time; in the console's process either would freeze the
screen. Here it costs the console nothing. Lines written (relative to the watched directory):

    {"ready": "native"}            the watcher is armed ("polling" after a fallback or with --poll)
    {"paths": ["work/x/events.jsonl", ...]}

Right after arming, one batch lists every watched file modified since `--since` (a Unix time: when the
console began loading the tree), so a change made while the tree loaded or the watcher was being armed is
not lost. The process runs at a lower CPU priority; it exits when its stdin closes (the console quit or died)
or stdout is gone.

Polling compares modification times in whole seconds (watchfiles' poller), so a file changed again within the
second of a change it already reported would be missed. `RecentFiles` closes that gap: every file reported
while polling is re-checked at each wake, by inode, size and nanosecond mtime, until a second has passed on its
clock since it was seen; a later change then falls in a later second, which the poller sees.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from watchfiles import Change, watch

from harn_tui.core.addresses import address_of

DEBOUNCE_MS = 80
STEP_MS = 20
POLL_DELAY_MS = 200
WAKE_MS = 250
MTIME_SLACK_S = 2.0
NICENESS = 10
RECENT_S = 2.0


def relevant(parts: tuple[str, ...]) -> bool:
    """Only what the console reads (`core.addresses`): records, logs, leases and transcripts of runs, presence
    and service files, and new goal, plan, work, run and approval directories; never temp files, scratch
    directories or the cache."""
    return address_of(parts) is not None


def modified_since(base: Path, since: float) -> Iterator[str]:
    """Relative paths of the goal, plan, work, approval and presence files modified after `since`.

    Runs are left out: a run's proof matters once its work's log says the attempt finished, and that log is
    listed; leases are re-probed by the console's timer."""

    def files(directory: str, depth: int) -> Iterator[os.DirEntry[str]]:
        try:
            entries = list(os.scandir(directory))
        except OSError:
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if depth > 0:
                    yield from files(entry.path, depth - 1)
            else:
                yield entry

    for top, depth in (("supervisors", 3), ("work", 1), ("approvals", 1), ("presence", 0), ("service", 0)):
        for entry in files(str(base / top), depth):
            parts = tuple(Path(entry.path).relative_to(base).parts)
            if not relevant(parts):
                continue
            try:
                if entry.stat(follow_symlinks=False).st_mtime >= since:
                    yield "/".join(parts)
            except OSError:
                continue


class RecentFiles:
    """Files reported in the last `RECENT_S` seconds, with what they were (inode, size, mtime in ns) when seen."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.seen: dict[str, tuple[tuple[int, int, int], float]] = {}

    def _identity(self, path: str) -> tuple[int, int, int] | None:
        try:
            status = os.stat(self.base / path, follow_symlinks=False)
        except OSError:
            return None
        return status.st_ino, status.st_size, status.st_mtime_ns

    def note(self, paths: list[str]) -> None:
        now = time.monotonic()
        for path in paths:
            identity = self._identity(path)
            if identity is not None:
                self.seen[path] = (identity, now)

    def changed(self) -> list[str]:
        """The noted files that changed since they were seen (noted again); forgets those seen long enough ago."""
        now = time.monotonic()
        changed: list[str] = []
        for path, (before, seen_at) in list(self.seen.items()):
            identity = self._identity(path)
            if identity is None:
                del self.seen[path]
            elif identity != before:
                changed.append(path)
                self.seen[path] = (identity, now)
            elif now - seen_at > RECENT_S:
                del self.seen[path]
        return sorted(changed)


class Emitter:
    """Writes batches to stdout; a closed stdout (the console is gone) stops the watch."""

    def __init__(self, stop: threading.Event) -> None:
        self.stop = stop

    def send(self, message: dict[str, object]) -> None:
        try:
            sys.stdout.write(json.dumps(message) + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, OSError, ValueError):
            self.stop.set()


def watch_tree(base: Path, polling: bool, since: float, stop: threading.Event, emit: Emitter) -> None:
    started = since - MTIME_SLACK_S
    mode = "polling" if polling else "native"

    def wanted(_change: Change, path: str) -> bool:
        try:
            return relevant(Path(path).relative_to(base).parts)
        except ValueError:
            return False

    recent = RecentFiles(base)

    def report(paths: list[str]) -> None:
        if mode == "polling":
            recent.note(paths)
        if paths:
            emit.send({"paths": paths})

    while not stop.is_set():
        armed = False
        try:
            for changes in watch(
                base,
                watch_filter=wanted,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                stop_event=stop,
                rust_timeout=WAKE_MS,
                yield_on_timeout=True,
                force_polling=mode == "polling",
                poll_delay_ms=POLL_DELAY_MS,
                recursive=True,
                raise_interrupt=False,
            ):
                if not armed:
                    armed = True
                    emit.send({"ready": mode})
                    report(sorted(modified_since(base, started)))
                paths = {str(Path(path).relative_to(base)) for _, path in changes}
                if mode == "polling":
                    paths.update(recent.changed())
                report(sorted(paths))
                if stop.is_set():
                    return
            return
        except (OSError, RuntimeError) as error:
            if mode == "polling":
                emit.send({"failed": f"{type(error).__name__}: {error}"})
                return
            mode = "polling"


def main(argv: list[str]) -> int:
    base = Path(argv[0]).resolve()
    polling = "--poll" in argv[1:]
    since = float(argv[argv.index("--since") + 1]) if "--since" in argv[1:] else time.time()
    with contextlib.suppress(OSError):
        os.nice(NICENESS)
    stop = threading.Event()

    def wait_for_close() -> None:
        try:
            sys.stdin.buffer.read()
        finally:
            stop.set()

    threading.Thread(target=wait_for_close, name="harn-watch-stdin", daemon=True).start()
    watch_tree(base, polling, since, stop, Emitter(stop))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
