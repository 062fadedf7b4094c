"""The error hierarchy every client maps once: to exit codes (CLI) and notifications (console)."""

from __future__ import annotations

import contextlib
import errno
from collections.abc import Iterator


class HarnError(Exception):
    """Base of every error the core raises on purpose; `code` and `exit_code` follow SPEC section 8."""

    code = "error"
    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class UsageError(HarnError):
    """Bad input: usage, ID syntax, bounds, malformed files (exit 2)."""

    code = "usage"
    exit_code = 2


class Refused(HarnError):
    """The durable state does not allow the request; nothing was written (exit 3)."""

    code = "refused"
    exit_code = 3


class NotFound(HarnError):
    """The addressed goal, plan, work, approval or tree does not exist (exit 4)."""

    code = "not_found"
    exit_code = 4


class CorruptJournal(HarnError):
    """The addressed records are unreadable; the message names the path and the problem (exit 5)."""

    code = "corrupt"
    exit_code = 5


class SystemRefused(HarnError):
    """The operating system refused a write or a read (no space, quota, read-only, permission, I/O error):
    one line naming the path and the system's reason (exit 6). What was written before is what a crash there
    would leave, so the next writer repairs it and a repeat once the cause is gone succeeds."""

    code = "io"
    exit_code = 6


REFUSAL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EACCES, errno.EPERM, errno.EIO})


def is_system_refusal(error: BaseException) -> bool:
    """True for an OSError the system raises when it will not store or hand back bytes (see REFUSAL_ERRNOS)."""
    return isinstance(error, OSError) and error.errno in REFUSAL_ERRNOS


def system_refused(error: OSError, path: object | None = None, action: str = "write") -> SystemRefused:
    """The typed error for `error`: `cannot write PATH: No space left on device (ENOSPC)`. `path` defaults to
    the one the OSError names; `action` is `write` or `read` (`use` when the caller cannot tell)."""
    where = path if path is not None else (error.filename if error.filename is not None else "the tree")
    reason = error.strerror or str(error)
    name = errno.errorcode.get(error.errno or 0)
    return SystemRefused(f"cannot {action} {where}: {reason}" + (f" ({name})" if name else ""))


@contextlib.contextmanager
def refusals_as_system_refused(path: object | None = None, action: str = "write") -> Iterator[None]:
    """Turn an OS refusal raised inside the block into SystemRefused naming `path`; any other error passes."""
    try:
        yield
    except OSError as error:
        if is_system_refusal(error):
            raise system_refused(error, path, action) from error
        raise


def harn_error_of(error: BaseException) -> HarnError | None:
    """The typed error a client reports for `error`: itself when it is a HarnError, SystemRefused for an OS
    refusal that no write path named (the backstop of the CLI, the console and the supervisor), else None."""
    if isinstance(error, HarnError):
        return error
    if isinstance(error, OSError) and is_system_refusal(error):
        return system_refused(error, action="use")
    return None
