"""Changed paths under `.harnery/` on their way to a serve loop: which ones can change a decision, and the
thread-safe feed a watcher fills and the loop drains. Light on purpose: the console imports it before its
embedded supervisor (and the supervisor package) starts."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from pathlib import Path

from harn_tui.core.addresses import LOOP_LOCK, RUN_LEASE, TRANSCRIPT, address_of

QUIET_NAMES = frozenset({RUN_LEASE, LOOP_LOCK, TRANSCRIPT})


Parts = tuple[str, ...]


def wakes_the_loop(parts: Parts) -> bool:
    """A change (its path's parts under `.harnery/`) that can change a decision: records, event logs and new
    directories (`core.addresses`), not leases, transcripts, presence or service heartbeats, and nothing
    `address_of` does not name (scratch, caches, temporary files)."""
    address = address_of(parts)
    return address is not None and address.kind not in ("presence", "service") and address.name not in QUIET_NAMES


def parts_under(bases: tuple[Path, ...], path: str | Path) -> Parts | None:
    """The parts of `path` under the first of `bases` that holds it (the tree as named, and resolved)."""
    for base in bases:
        try:
            return Path(path).relative_to(base).parts
        except ValueError:
            continue
    return None


class ChangeFeed:
    """Changed paths from a watcher thread to the serve loop: `put` from any thread, `wait` in the loop. Only
    paths that can change a decision are kept (a template streaming its transcript never wakes the loop)."""

    def __init__(self, base: Path) -> None:
        self.bases = (base, base.resolve())
        self._paths: set[Parts] = set()
        self._changed = threading.Condition()
        self.everything = False  # set by `lost`, cleared by the loop when it marks every goal due

    def lost(self) -> None:
        """Changes may have gone unseen (the watcher failed and is armed again): every goal is due."""
        with self._changed:
            self.everything = True
            self._changed.notify_all()

    def take_lost(self) -> bool:
        """Whether `lost` was called since the last call."""
        with self._changed:
            lost, self.everything = self.everything, False
        return lost

    def put(self, paths: Iterable[str | Path]) -> None:
        batch = {
            parts
            for parts in (parts_under(self.bases, path) for path in paths)
            if parts is not None and wakes_the_loop(parts)
        }
        if not batch:
            return
        with self._changed:
            self._paths |= batch
            self._changed.notify_all()

    def wait(self, timeout_s: float, stop: threading.Event) -> set[Parts]:
        """Every path put since the last call; waits up to `timeout_s` for the first (in slices, so a `stop` set
        from another thread is seen within a quarter second)."""
        deadline = time.monotonic() + max(0.0, timeout_s)
        with self._changed:
            while not self._paths and not self.everything and not stop.is_set():
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._changed.wait(min(left, 0.25))
            paths, self._paths = self._paths, set()
        return paths
