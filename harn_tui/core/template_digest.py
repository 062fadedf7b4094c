"""Re-hashing a frozen template right before it is used: a changed or missing file is a refusal (exit 3)."""

from __future__ import annotations

from harn_tui.core.rules import Checks, frozen_template


def check_template_digest(path: str, sha256: str, what: str) -> None:
    """Refuse unless the file at `path` still has the frozen `sha256`; `what` names it in the message."""
    Checks((frozen_template(path, sha256, what),)).require()
