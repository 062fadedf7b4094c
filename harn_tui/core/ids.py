"""ID syntax and generation: every ID is validated before any path is built from it."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harn_tui.core.errors import UsageError

if TYPE_CHECKING:
    from datetime import datetime

ID_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
KEY_PATTERN = re.compile(r"[a-z][a-z0-9-]{0,31}")


def is_valid_id(value: object) -> bool:
    return isinstance(value, str) and ID_PATTERN.fullmatch(value) is not None


def check_id(value: str, kind: str = "id") -> str:
    """Return `value` if it is a legal ID, else raise UsageError naming the rule."""
    if not is_valid_id(value):
        shown = value if len(value) <= 40 else value[:40] + "..."
        raise UsageError(f"{kind} {shown!r} is not a valid ID: it must match ^[A-Za-z0-9][A-Za-z0-9._-]{{0,99}}$")
    return value


def _token_hex(size: int) -> str:
    from secrets import token_hex  # here: a read verb makes no ID, and `secrets` loads random, hmac and base64

    return token_hex(size)


def _stamp(now: datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%SZ")


def new_goal_id(now: datetime) -> str:
    return f"goal-{_stamp(now)}-{_token_hex(3)}"


def new_work_id(now: datetime) -> str:
    return f"work-{_stamp(now)}-{_token_hex(3)}"


def new_run_id(now: datetime) -> str:
    return f"run-{_stamp(now)}-{_token_hex(3)}"


def new_plan_id(sequence: int) -> str:
    return f"plan-{sequence:04d}-{_token_hex(4)}"


def approval_id(run_id: str, park_number: int) -> str:
    return f"apr-{run_id}-{park_number}"


def plan_work_id(plan_id: str, key: str) -> str:
    return f"{plan_id}-{key}"
