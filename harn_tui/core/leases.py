"""Leases over `filelock`: goal, work, run and `supervisor.lock`; released by the OS when a holder dies."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from harn_tui.core.errors import CorruptJournal, HarnError, Refused, is_system_refusal, system_refused
from harn_tui.core.faults import fault_point
from harn_tui.core.fsio import ensure_dir
from harn_tui.core.liveness import is_held as is_held
from harn_tui.core.reader_bounds import directory_problem
from harn_tui.core.sharing import file_mode, group_of, settle

if TYPE_CHECKING:
    from filelock import FileLock

DEFAULT_TIMEOUT_S = 30.0


class LeaseBusy(Refused):
    """A lease stayed held by someone else: a refusal (exit 3, "busy") that a loop retries later, unlike a rule."""


def lease_timeout() -> float:
    """How long a busy lease is waited for before the request is refused (`HARN_LEASE_TIMEOUT_S`)."""
    return float(os.environ.get("HARN_LEASE_TIMEOUT_S", DEFAULT_TIMEOUT_S))


@contextlib.contextmanager
def hold_lease(path: Path, what: str, timeout: float | None = None) -> Iterator[None]:
    """Hold the lease at `path`, waiting up to `timeout` seconds; a lease still busy is a refusal.
    Fault points `lease.acquire`, `lease.acquired`, `lease.release`, `lease.released`."""
    from filelock import FileLock, Timeout  # here: a read that only probes leases does not load filelock

    _require_plain_parents(path)
    ensure_dir(path.parent)
    lock = FileLock(str(path), mode=file_mode(path), thread_local=False)
    wait = lease_timeout() if timeout is None else timeout
    fault_point("lease.acquire")
    try:
        lock.acquire(timeout=wait, poll_interval=0.01)
    except Timeout:
        raise LeaseBusy(f"busy: the {what} lease {path} stayed held for {wait:g} s") from None
    except OSError as error:
        raise _lease_error(path, error) from None
    _settle_lease(lock, path)
    fault_point("lease.acquired")
    try:
        yield
    finally:
        fault_point("lease.release")
        lock.release()
        fault_point("lease.released")


class HeldLease:
    """A lease held for a long time (a run's life, a supervisor loop); `release()` when done."""

    def __init__(self, path: Path, what: str, timeout: float = 0.0) -> None:
        from filelock import FileLock, Timeout

        _require_plain_parents(path)
        ensure_dir(path.parent)
        self._lock = FileLock(str(path), mode=file_mode(path), thread_local=False)
        fault_point("lease.acquire")
        try:
            self._lock.acquire(timeout=timeout, poll_interval=0.01)
        except Timeout:
            raise LeaseBusy(f"busy: the {what} lease {path} is held by another process") from None
        except OSError as error:
            raise _lease_error(path, error) from None
        _settle_lease(self._lock, path)
        fault_point("lease.acquired")

    def release(self) -> None:
        fault_point("lease.release")
        self._lock.release()
        fault_point("lease.released")


def _settle_lease(lock: FileLock, path: Path) -> None:
    """In a shared tree, check the mode and group of a lease file this account made (filelock creates it with
    the mode asked for, less the umask); the lease is released again if it cannot be set right."""
    group = group_of(path)
    if group is None:
        return
    try:
        settle(path, group)
    except BaseException:
        lock.release()
        raise


def _require_plain_parents(path: Path) -> None:
    """A lease's directory (`<goal>`, `work/<id>`, `runs/<id>`) and the one holding it are never reached through a
    link: the lease (and any directory made for it) would be created outside the tree. CorruptJournal (5)."""
    problem = directory_problem(path.parent) or directory_problem(path.parent.parent)
    if problem is not None:
        raise CorruptJournal(problem)


def _lease_error(path: Path, error: OSError) -> HarnError:
    """A lease the system refuses to create or open (no space, read-only, permission) is SystemRefused (6); one
    that cannot be opened otherwise (a symbolic link, which filelock never follows; a directory) is damage (5)."""
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
