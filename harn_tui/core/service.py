"""Serve-loop status: `service/<host>-<pid>.json`, which supervisor loops keep this tree, when they last ran, why
they back off.

A running `harn supervisor serve` (and the console's embedded supervisor) rewrites its file atomically every few
seconds from a thread of its own, so the heartbeat goes on while a tick runs a template for minutes; it removes
the file when it stops cleanly. A file is stale when its pid is dead on this host or its heartbeat is older than
`STALE_AFTER_S`; a writer removes the files of dead pids on its own host. It is status only: no transition, no
wake filter and no `verify` reads it.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from harn_tui.core.clock import now, now_iso
from harn_tui.core.errors import SystemRefused, is_system_refusal
from harn_tui.core.fsio import is_temp_name
from harn_tui.core.layout import Layout
from harn_tui.core.presence import age_s, pid_alive, replace_file, safe_host
from harn_tui.core.reader_bounds import READ_FLAGS

STALE_AFTER_S = 15.0
BEAT_EVERY_S = 3.0
MAX_STATUS_BYTES = 1_000_000


class ServiceStatus(BaseModel):
    """One serve loop's heartbeat."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: Literal[1] = 1
    host: str
    pid: int
    actor: str
    started_at: str
    heartbeat_at: str
    goals: list[str]
    rounds: int
    last_round_at: str | None
    backoff_s: float
    last_error: str | None
    executor: str

    @property
    def name(self) -> str:
        return service_file_name(self.host, self.pid)


def service_file_name(host: str, pid: int) -> str:
    return f"{host}-{pid}.json"


@dataclass(frozen=True)
class SeenService:
    """A status file as a reader finds it: `stale` when its process is gone or its heartbeat too old."""

    status: ServiceStatus
    stale: bool

    def to_json(self) -> dict[str, Any]:
        return {**self.status.model_dump(mode="json"), "stale": self.stale}


@dataclass
class LoopState:
    """What the loop tells its heartbeat, updated from the loop's thread and read from the heartbeat's."""

    goals: tuple[str, ...] = ()
    rounds: int = 0
    last_round_at: str | None = None
    backoff_s: float = 0.0
    last_error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def enrolled(self, goals: Sequence[str]) -> None:
        with self._lock:
            self.goals = tuple(goals)

    def round_done(self, goals: Sequence[str], error: str | None, backoff_s: float) -> None:
        with self._lock:
            self.goals = tuple(goals)
            self.rounds += 1
            self.last_round_at = now_iso()
            self.last_error = error if error is not None else self.last_error
            self.backoff_s = backoff_s

    def failed(self, error: str) -> None:
        """Something of the loop's own failed outside a round (its watcher): the status file says so."""
        with self._lock:
            self.last_error = error

    def snapshot(self) -> tuple[tuple[str, ...], int, str | None, float, str | None]:
        with self._lock:
            return self.goals, self.rounds, self.last_round_at, self.backoff_s, self.last_error


class ServiceHeartbeat:
    """This process's status file, rewritten every `every_s` by a daemon thread between `start()` and `stop()`."""

    def __init__(
        self, layout: Layout, actor: str, state: LoopState, *, executor: str = "local", every_s: float = BEAT_EVERY_S
    ) -> None:
        self.layout = layout
        self.actor = actor
        self.state = state
        self.executor = executor
        self.every_s = every_s
        self.host = safe_host()
        self.pid = os.getpid()
        self.started_at = now_iso()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def path(self) -> Path:
        return self.layout.service / service_file_name(self.host, self.pid)

    def start(self) -> ServiceHeartbeat:
        """Write the file now, then keep it fresh; a failed write is retried at the next beat, never raised."""
        self.beat()
        self._thread = threading.Thread(target=self._run, name="harn-service-heartbeat", daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.beat()

    def beat(self) -> None:
        goals, rounds, last_round_at, backoff_s, last_error = self.state.snapshot()
        status = ServiceStatus(
            host=self.host,
            pid=self.pid,
            actor=self.actor,
            started_at=self.started_at,
            heartbeat_at=now_iso(),
            goals=list(goals),
            rounds=rounds,
            last_round_at=last_round_at,
            backoff_s=backoff_s,
            last_error=last_error,
            executor=self.executor,
        )
        with contextlib.suppress(OSError, SystemRefused):  # a full or read-only tree: the status goes stale
            remove_dead_here(self.layout, self.host)
            replace_file(self.path, (status.model_dump_json() + "\n").encode())

    def stop(self) -> None:
        """Stop beating and remove the file (a clean stop leaves nothing behind; one the system will not let go,
        on a tree turned read-only, goes stale)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self.every_s + 1)
        try:
            os.unlink(self.path)
        except OSError as error:
            if not isinstance(error, FileNotFoundError) and not is_system_refusal(error):
                raise


def read_services(layout: Layout, host: str | None = None) -> tuple[list[SeenService], list[dict[str, str]]]:
    """Every status file, sorted by host and pid, each marked stale or not; unreadable ones are problems."""
    here = safe_host() if host is None else host
    try:
        names = sorted(os.listdir(layout.service))
    except (FileNotFoundError, NotADirectoryError):
        return [], []
    moment = now()
    found: list[SeenService] = []
    problems: list[dict[str, str]] = []
    for name in names:
        if is_temp_name(name) or not name.endswith(".json"):
            continue
        path = layout.service / name
        status, problem = _read_one(path)
        if status is None:
            problems.append({"path": str(path), "problem": problem or "unreadable"})
            continue
        age = age_s(status.heartbeat_at, moment)
        dead = status.host == here and not pid_alive(status.pid)
        found.append(SeenService(status, dead or age is None or age > STALE_AFTER_S))
    return sorted(found, key=lambda seen: (seen.status.host, seen.status.pid)), problems


def live_services(layout: Layout) -> list[ServiceStatus]:
    return [seen.status for seen in read_services(layout)[0] if not seen.stale]


def remove_dead_here(layout: Layout, host: str) -> None:
    """Remove the status files written on `host` by processes that are gone."""
    for seen in read_services(layout, host)[0]:
        if seen.status.host == host and not pid_alive(seen.status.pid):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(layout.service / seen.status.name)


def _read_one(path: Path) -> tuple[ServiceStatus | None, str | None]:
    try:  # never through a link, never waiting on a pipe
        with os.fdopen(os.open(path, READ_FLAGS), "rb") as handle:
            body = handle.read(MAX_STATUS_BYTES + 1)
    except OSError as error:
        return None, f"cannot be read: {error.strerror or error}"
    if len(body) > MAX_STATUS_BYTES:
        return None, f"larger than {MAX_STATUS_BYTES} bytes"
    try:
        status = ServiceStatus.model_validate_json(body)
    except ValidationError as error:
        return None, f"not a service status: {error.errors()[0]['msg']}"
    if status.name != path.name:
        return None, f"names {status.name}, not its file name"
    return status, None


def shared_goals(services: Sequence[ServiceStatus]) -> list[tuple[str, list[str]]]:
    """Goals enrolled by serve loops on more than one host: (goal, hosts). Two loops on one goal tick it one at a
    time (its `supervisor.lock`), but loops on different hosts usually mean a tree shared by mistake."""
    hosts: dict[str, set[str]] = {}
    for status in services:
        for goal_id in status.goals:
            hosts.setdefault(goal_id, set()).add(status.host)
    return [(goal_id, sorted(found)) for goal_id, found in sorted(hosts.items()) if len(found) > 1]
