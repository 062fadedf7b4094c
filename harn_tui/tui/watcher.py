"""The one file watcher: watchfiles over `.harnery/`, short debounce, polling fallback, coalesced messages.

Changed paths collect in `pending`; each batch posts one `TreeChanged`, and adjacent messages coalesce, so
the screen drains every path in one refresh however fast the writers are. `HARN_POLL=1` forces polling
(network filesystems, containers); an error from the native watcher falls back to polling too.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path

from watchfiles import Change, awatch

from harn_tui.core.fsio import is_temp_name

DEBOUNCE_MS = 80
STEP_MS = 20
POLL_DELAY_MS = 200
_WANTED = {
    "supervisors": {"goal.json", "supervisor.lock", "request.json", "proposal.json", "candidate.json",
                    "review.json", "events.jsonl"},
    "work": {"intent.json", "events.jsonl"},
    "runs": {"proof.json", "lease", "transcript.jsonl"},
    "approvals": {"request.json", "decision.json"},
}


def polling_forced() -> bool:
    return os.environ.get("HARN_POLL", "") not in ("", "0")


class TreeWatcher:
    """Watches one `.harnery/` and calls `notify()` (from the event loop) after each batch of changes."""

    def __init__(self, base: Path, notify: Callable[[], None]) -> None:
        self.base = base.resolve()
        self.notify = notify
        self.pending: set[Path] = set()
        self.mode = "polling" if polling_forced() else "native"
        self.stop = asyncio.Event()

    def relevant(self, change: Change, path: str) -> bool:
        """Only records, logs and leases the model reads; never temp files, scratch dirs or the cache."""
        try:
            parts = Path(path).relative_to(self.base).parts
        except ValueError:
            return False
        if not parts or any(is_temp_name(part) for part in parts):
            return False
        top = parts[0]
        if top == "presence":
            return len(parts) == 2 and parts[1].endswith(".json")
        wanted = _WANTED.get(top)
        if wanted is None:
            return False
        if len(parts) == 2 or (top == "supervisors" and len(parts) in (3, 4) and parts[2] in ("plans",)):
            return True  # a new goal, plan, work, run or approval directory
        return parts[-1] in wanted and "scratch" not in parts

    def drain(self) -> set[Path]:
        paths, self.pending = self.pending, set()
        return paths

    async def run(self) -> None:
        """Watch until `stop` is set; switch to polling if the native watcher fails."""
        while not self.stop.is_set():
            try:
                await self._watch(force_polling=self.mode == "polling")
                return
            except (OSError, RuntimeError):
                if self.mode == "polling":
                    raise
                self.mode = "polling"

    async def _watch(self, *, force_polling: bool) -> None:
        async for changes in awatch(
            self.base,
            watch_filter=self.relevant,
            debounce=DEBOUNCE_MS,
            step=STEP_MS,
            stop_event=self.stop,
            force_polling=force_polling,
            poll_delay_ms=POLL_DELAY_MS,
            recursive=True,
        ):
            self.pending.update(Path(path) for _, path in changes)
            self.notify()
