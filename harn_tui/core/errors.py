"""The error hierarchy every client maps once: to exit codes (CLI) and notifications (console)."""

from __future__ import annotations


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
