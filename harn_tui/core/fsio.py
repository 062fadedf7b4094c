"""Durable file primitives: the tree's modes (0700/0600, a shared tree's 2770/0660), immutable link-into-place
writes, fsynced JSONL appends."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import secrets
import stat
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from harn_tui.core.errors import Refused, refusals_as_system_refused
from harn_tui.core.faults import fault_point
from harn_tui.core.sharing import make_dir, open_new

STALE_TEMP_S = 60.0


def is_temp_name(name: str) -> bool:
    """Temporary files are `.<final-name>.tmp-<random>`: readers and verify ignore them."""
    return name.startswith(".") and ".tmp-" in name


def ensure_dir(path: Path) -> None:
    """Create `path` and missing parents with the tree's directory mode (0700; 2770 in a shared tree); a refusal
    by the system is SystemRefused naming it."""
    if path.is_dir():
        return
    ensure_dir(path.parent)
    with contextlib.suppress(FileExistsError), refusals_as_system_refused(path):
        make_dir(path)
        fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    """Make the entries of `path` (files linked or created in it, directories made in it) durable."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def record_bytes(record: BaseModel | dict[str, Any]) -> bytes:
    """The one serialization of a record: deterministic, so identical records are identical bytes."""
    data = record.model_dump(mode="json", by_alias=True) if isinstance(record, BaseModel) else record
    return (json.dumps(data, indent=2, ensure_ascii=False) + "\n").encode()


def temp_path_for(path: Path) -> Path:
    """A fresh temporary name beside `path`: `.<name>.tmp-<random>`, the random part led by the writer's pid
    in 8 hex digits so the next writer can tell a dead writer's leftovers from a live writer's file."""
    return path.parent / f".{path.name}.tmp-{os.getpid():08x}{secrets.token_hex(6)}"


def _writer_alive(name: str) -> bool:
    """False when the temp file names a writer pid that no longer runs on this machine."""
    suffix = name.rpartition(".tmp-")[2]
    try:
        pid = int(suffix[:8], 16)
    except ValueError:
        return True
    if len(suffix) != 20 or pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale_temps(directory: Path) -> None:
    """Remove temporary files a crashed writer left in `directory`: its pid is gone, or it is over a minute old."""
    cutoff = time.time() - STALE_TEMP_S
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(directory):
            if is_temp_name(entry.name):
                with contextlib.suppress(FileNotFoundError):
                    if not _writer_alive(entry.name) or entry.stat(follow_symlinks=False).st_mtime < cutoff:
                        os.unlink(entry.path)


class ImmutableConflict(Refused):
    """An immutable record already exists with a different body."""


def write_immutable(path: Path, body: bytes, *, sync_dir: bool = True) -> bool:
    """Write `body` at `path` once. True if written now, False if an identical body was already there.

    The body is fsynced before it is linked into place, always. With `sync_dir` false the caller fsyncs the
    directory itself (`fsync_dir`) before anything durable depends on the new entry (a batch of writes).
    A refusal by the system (no space, read-only, ...) is SystemRefused naming `path`; nothing is linked, and
    the temporary file is removed when the system allows it (else the next writer removes it)."""
    ensure_dir(path.parent)
    with refusals_as_system_refused(path):
        return _write_immutable(path, body, sync_dir)


def _write_immutable(path: Path, body: bytes, sync_dir: bool) -> bool:
    directory = path.parent
    remove_stale_temps(directory)
    temp = temp_path_for(path)
    fd = open_new(temp, os.O_WRONLY | os.O_EXCL)
    try:
        fault_point("write.temp")
        _write_all(fd, body)
        fault_point("write.fsync")
        os.fsync(fd)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    finally:
        os.close(fd)
    try:
        fault_point("write.link")
        os.link(temp, path)
        fault_point("write.linked")
    except FileExistsError:
        if _holds(path, body):
            return False
        raise ImmutableConflict(
            f"{path} already exists with a different body; immutable records never change"
        ) from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    if sync_dir:
        fsync_dir(directory)
    return True


def _holds(path: Path, body: bytes) -> bool:
    """True when the regular file at `path` (never a link followed) holds exactly `body`; read only when the
    sizes match, so a huge or sparse file in the way is never read into memory."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        found = os.fstat(fd)
        return stat.S_ISREG(found.st_mode) and found.st_size == len(body) and os.pread(fd, len(body) + 1, 0) == body
    finally:
        os.close(fd)


def write_record(path: Path, record: BaseModel, *, sync_dir: bool = True) -> bool:
    return write_immutable(path, record_bytes(record), sync_dir=sync_dir)


def event_line(event: BaseModel) -> bytes:
    """One JSONL line: the event's fields as top-level members, ending in `\\n`."""
    data = event.model_dump(mode="json", by_alias=True)
    ordered = {key: data.pop(key) for key in ("schema_version", "seq", "ts", "event", "actor")}
    ordered.update(data)
    return (json.dumps(ordered, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def complete_length(path: Path) -> tuple[int, int]:
    """(bytes up to and including the last `\\n`, total size) of a JSONL file; (0, 0) if missing."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return 0, 0
    try:
        size = os.fstat(fd).st_size
        position = size
        while position > 0:
            chunk_start = max(0, position - 65536)
            chunk = os.pread(fd, position - chunk_start, chunk_start)
            newline = chunk.rfind(b"\n")
            if newline >= 0:
                return chunk_start + newline + 1, size
            position = chunk_start
        return 0, size
    finally:
        os.close(fd)


def append_line(path: Path, line: bytes, *, sync_dir: bool = True) -> bool:
    """Append one line with a single write and fsync; the caller holds the lease. True if the file was new.

    A torn final line (no trailing newline) is truncated first: it is the one damage a writer repairs. A new
    file's directory is fsynced too, unless `sync_dir` is false: then the caller does it (a batch of appends).
    """
    if not line.endswith(b"\n") or b"\n" in line[:-1]:
        raise ValueError("a JSONL append is exactly one line ending in a newline")
    ensure_dir(path.parent)
    with refusals_as_system_refused(path):
        return _append_line(path, line, sync_dir)


def _append_line(path: Path, line: bytes, sync_dir: bool) -> bool:
    good, size = complete_length(path)
    fd = open_new(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        if good != size:
            fault_point("append.truncate")
            os.ftruncate(fd, good)
        fault_point("append.write")
        try:
            _write_all(fd, line)
            fault_point("append.fsync")
            os.fsync(fd)
        except OSError:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, good)  # the line is not acknowledged: take back what part of it got in
            raise
        fault_point("append.fsynced")
    finally:
        os.close(fd)
    if size == 0 and sync_dir:
        fsync_dir(path.parent)
    return size == 0


def _write_all(fd: int, data: bytes) -> None:
    """Write `data` whole: one write in the normal case; after a short write (the disk filling as it
    writes) the rest is written again, so the system's own error (ENOSPC, EDQUOT, EFBIG) is what surfaces."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        if written <= 0:
            raise OSError(errno.EIO, "the system accepted no bytes")
        view = view[written:]
