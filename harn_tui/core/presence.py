"""Console presence heartbeats: `presence/<actor>@<host>-<pid>.json`, who else has a console open and where.

A heartbeat is rewritten atomically (temporary file, then rename over the old one) every few seconds and
removed when its console exits. A heartbeat older than `STALE_AFTER_S` belongs to a console that died
without cleaning up: readers ignore it. One written on this host by a process that no longer exists is
stale at once (a console killed by a signal it cannot handle, or by its terminal closing), and a console
that notices one removes it. Presence is advisory; nothing durable depends on it.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from harn_tui.core.clock import now, now_iso
from harn_tui.core.errors import is_system_refusal, refusals_as_system_refused
from harn_tui.core.fsio import ensure_dir, is_temp_name, remove_stale_temps, temp_path_for
from harn_tui.core.layout import Layout
from harn_tui.core.reader_bounds import READ_FLAGS
from harn_tui.core.sharing import open_new

STALE_AFTER_S = 15.0
HEARTBEAT_EVERY_S = 3.0
MAX_PRESENCE_BYTES = 16_384
_HOST_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


class Presence(BaseModel):
    """One console's heartbeat: who, where (host, pid) and what they are looking at."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    actor: str
    host: str
    pid: int
    goal_id: str | None = None
    focus: str | None = None
    updated_at: str

    @property
    def name(self) -> str:
        return presence_file_name(self.actor, self.host, self.pid)


def safe_host(host: str | None = None) -> str:
    """The host name reduced to ID characters, so it is safe inside a file name."""
    cleaned = _HOST_UNSAFE.sub("-", host if host is not None else socket.gethostname())
    return cleaned.strip("-.")[:60] or "host"


def presence_file_name(actor: str, host: str, pid: int) -> str:
    return f"{actor}@{host}-{pid}.json"


def write_presence(path: Path, presence: Presence) -> None:
    """Replace the heartbeat at `path` atomically: readers see the old body or the new one, never half."""
    replace_file(path, (presence.model_dump_json() + "\n").encode())


def replace_file(path: Path, body: bytes) -> None:
    """Replace the status file at `path` atomically (a temporary file renamed over it); not fsynced: a heartbeat
    lost in a crash is a heartbeat that stops, which is what it reports anyway. A refusal by the system (a full
    disk, a read-only tree) is SystemRefused naming the file; no temporary file stays behind when it can go."""
    ensure_dir(path.parent)
    with refusals_as_system_refused(path):
        remove_stale_temps(path.parent)
        temp = temp_path_for(path)
        fd = open_new(temp, os.O_WRONLY | os.O_EXCL)
        try:
            written = os.write(fd, body)
            if written != len(body):
                os.write(fd, body[written:])  # the rest: the system's own error, if it refuses
            os.replace(temp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        finally:
            os.close(fd)


def age_s(updated_at: str, moment: datetime) -> float | None:
    try:
        stamp = datetime.fromisoformat(updated_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        return None
    return (moment - stamp).total_seconds()


def pid_alive(pid: int) -> bool:
    """Whether a process `pid` exists on this host (signal 0 probes it without sending anything)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


def is_dead_here(presence: Presence, host: str) -> bool:
    """A heartbeat written on `host` (this host) by a process that is gone."""
    return presence.host == host and not pid_alive(presence.pid)


def read_presence(
    layout: Layout, *, exclude: str | None = None, stale_after_s: float = STALE_AFTER_S, host: str | None = None
) -> list[Presence]:
    """Every live heartbeat but `exclude` (a file name), sorted by actor. Skipped: unreadable ones, ones older
    than `stale_after_s`, and ones written on this host (`host`, default this machine's) by a dead process."""
    here = safe_host() if host is None else host
    return [presence for _, presence in _scan(layout, exclude, stale_after_s, here)]


def remove_dead_here(layout: Layout, *, host: str | None = None) -> list[str]:
    """Remove the heartbeats written on this host by processes that are gone; returns their file names."""
    here = safe_host() if host is None else host
    removed: list[str] = []
    for name, _ in _scan(layout, None, float("inf"), here, dead=True):
        try:
            os.unlink(layout.presence / name)
        except FileNotFoundError:
            continue
        except OSError as error:
            if is_system_refusal(error):
                break  # a read-only tree: readers skip dead heartbeats anyway
            raise
        removed.append(name)
    return removed


def _scan(
    layout: Layout, exclude: str | None, stale_after_s: float, host: str, dead: bool = False
) -> list[tuple[str, Presence]]:
    """(file name, heartbeat) of the readable heartbeats that are live (or, with `dead`, dead on `host`)."""
    try:
        names = sorted(os.listdir(layout.presence))
    except (FileNotFoundError, NotADirectoryError):
        return []
    moment = now()
    found: list[tuple[str, Presence]] = []
    for name in names:
        if name == exclude or is_temp_name(name) or not name.endswith(".json"):
            continue
        presence = _read_one(layout.presence / name)
        if presence is None or presence.name != name:
            continue
        if dead:
            if is_dead_here(presence, host):
                found.append((name, presence))
            continue
        age = age_s(presence.updated_at, moment)
        if age is None or age > stale_after_s or is_dead_here(presence, host):
            continue
        found.append((name, presence))
    return sorted(found, key=lambda item: (item[1].actor, item[1].host, item[1].pid))


def _read_one(path: Path) -> Presence | None:
    try:  # never through a link, never waiting on a pipe (reader_bounds.READ_FLAGS)
        with os.fdopen(os.open(path, READ_FLAGS), "rb") as handle:
            body = handle.read(MAX_PRESENCE_BYTES + 1)
    except OSError:
        return None
    if len(body) > MAX_PRESENCE_BYTES:
        return None
    try:
        return Presence.model_validate_json(body)
    except ValidationError:
        return None


@dataclass
class Heartbeat:
    """This console's own heartbeat file: `beat()` to (re)write it, `remove()` on exit."""

    layout: Layout
    actor: str
    host: str
    pid: int

    @classmethod
    def for_this_process(cls, layout: Layout, actor: str) -> Heartbeat:
        return cls(layout, actor, safe_host(), os.getpid())

    @property
    def name(self) -> str:
        return presence_file_name(self.actor, self.host, self.pid)

    @property
    def path(self) -> Path:
        return self.layout.presence / self.name

    def beat(self, goal_id: str | None, focus: str | None) -> Presence:
        presence = Presence(
            actor=self.actor, host=self.host, pid=self.pid, goal_id=goal_id, focus=focus, updated_at=now_iso()
        )
        write_presence(self.path, presence)
        return presence

    def remove(self) -> None:
        """Remove the heartbeat; one the system will not let go (a tree turned read-only) goes stale."""
        try:
            os.unlink(self.path)
        except OSError as error:
            if not isinstance(error, FileNotFoundError) and not is_system_refusal(error):
                raise

    def others(self) -> list[Presence]:
        """The other consoles present; the heartbeats of dead consoles on this host are removed on the way."""
        remove_dead_here(self.layout)
        return read_presence(self.layout, exclude=self.name)
