"""Leases as exclusive `flock`s: goal, work, run and `supervisor.lock`; released by the OS when a holder dies."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

from harn_tui.core.errors import CorruptJournal, HarnError, Refused, is_system_refusal, system_refused
from harn_tui.core.faults import fault_point
from harn_tui.core.fsio import ensure_dir
from harn_tui.core.liveness import is_held as is_held
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.sharing import open_new

DEFAULT_TIMEOUT_S = 30.0
POLL_S = 0.01
BUSY_ERRNOS = frozenset({errno.EAGAIN, errno.EACCES})  # EACCES: how some filesystems say "held"


class LeaseBusy(Refused):
    """A lease stayed held by someone else: a refusal (exit 3, "busy") that a loop retries later, unlike a rule."""


def lease_timeout() -> float:
    """How long a busy lease is waited for before the request is refused (`HARN_LEASE_TIMEOUT_S`)."""
    return float(os.environ.get("HARN_LEASE_TIMEOUT_S", DEFAULT_TIMEOUT_S))


@contextlib.contextmanager
def hold_lease(path: Path, what: str, timeout: float | None = None) -> Iterator[None]:
    """Hold the lease at `path`, waiting up to `timeout` seconds; a lease still busy is a refusal.
    Fault points `lease.acquire`, `lease.acquired`, `lease.release`, `lease.released`."""
    wait = lease_timeout() if timeout is None else timeout
    fd = _acquire(path, wait, f"busy: the {what} lease {path} stayed held for {wait:g} s")
    try:
        yield
    finally:
        _release(fd)


class HeldLease:
    """A lease held for a long time (a run's life, a supervisor loop); `release()` when done. Releasing again does
    nothing: the descriptor is closed once, so a number the process has since reused is never closed."""

    def __init__(self, path: Path, what: str, timeout: float = 0.0) -> None:
        self._fd: int | None = _acquire(path, timeout, f"busy: the {what} lease {path} is held by another process")

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            _release(fd)


def _acquire(path: Path, timeout: float, busy: str) -> int:
    """Open (creating it with the tree's mode) and exclusively `flock` the lease file, polling every POLL_S for
    up to `timeout` seconds (negative: no limit); the descriptor is the hold. LeaseBusy with `busy` after that."""
    _require_plain_parents(path)
    ensure_dir(path.parent)
    fault_point("lease.acquire")
    deadline = None if timeout < 0 else time.monotonic() + timeout
    while True:
        fd = _open_lease(path)
        try:
            locked = _lock_until(fd, path, deadline)
            if locked and os.fstat(fd).st_nlink:
                break
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        if not locked:
            raise LeaseBusy(busy)
        # the file was removed while this waited on it: lock the one at the path now
    fault_point("lease.acquired")
    return fd


def _open_lease(path: Path) -> int:
    """The lease file, opened for its `flock`: never through a link, never blocking, a regular file made with
    the tree's mode (and, in a shared tree, settled to its group). Damage is CorruptJournal (5)."""
    try:
        fd = open_new(path, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        raise _lease_error(path, error) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise CorruptJournal(f"{path}: cannot be taken as a lease (not a regular file); a lease is a regular file")
    return fd


def _lock_until(fd: int, path: Path, deadline: float | None) -> bool:
    """Take the exclusive `flock` on `fd`, polling until `deadline` (None: no limit); False if it stayed held."""
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            if error.errno not in BUSY_ERRNOS:
                raise _lease_error(path, error) from None
        else:
            return True
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(POLL_S)


def _release(fd: int) -> None:
    fault_point("lease.release")
    os.close(fd)  # closing the only descriptor of the open file releases its flock
    fault_point("lease.released")


def _require_plain_parents(path: Path) -> None:
    """A lease's directory (`<goal>`, `work/<id>`, `runs/<id>`) and the one holding it are never reached through a
    link: the lease (and any directory made for it) would be created outside the tree. CorruptJournal (5)."""
    problem = directory_problem(path.parent) or directory_problem(path.parent.parent)
    if problem is not None:
        raise CorruptJournal(problem)


def _lease_error(path: Path, error: OSError) -> HarnError:
    """A lease the system refuses to create or open (no space, read-only, permission) is SystemRefused (6); one
    that cannot be opened otherwise (a symbolic link, which is never followed; a directory) is damage (5)."""
    if is_system_refusal(error) and not os.path.islink(path) and not os.path.isdir(path):
        return system_refused(error, path)
    return CorruptJournal(
        f"{path}: cannot be taken as a lease ({error.strerror or error}); a lease is a regular file, never a link"
    )


def try_hold(path: Path, what: str) -> HeldLease | None:
    """Take the lease now if it is free, else None."""
    try:
        return HeldLease(path, what)
    except LeaseBusy:
        return None
