"""The one source of time, so tests and snapshots can pin it (`HARN_FIXED_NOW`)."""

from __future__ import annotations

import os
from datetime import UTC, datetime


def now() -> datetime:
    """Current UTC time; `HARN_FIXED_NOW` (ISO 8601) pins it for deterministic tests."""
    fixed = os.environ.get("HARN_FIXED_NOW")
    if fixed:
        return datetime.fromisoformat(fixed.replace("Z", "+00:00")).astimezone(UTC)
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    """UTC ISO 8601 with a `Z` suffix and millisecond precision."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def now_iso() -> str:
    return iso(now())
