"""Re-hashing a frozen template right before it is used: a changed or missing file is a refusal (exit 3)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from harn_tui.core.errors import Refused


def check_template_digest(path: str, sha256: str, what: str) -> None:
    """Refuse unless the file at `path` still has the frozen `sha256`; `what` names it in the message."""
    try:
        digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as error:
        raise Refused(f"{what} ({path}) cannot be read ({error.strerror}); its frozen sha256 is {sha256}") from None
    if digest != sha256:
        raise Refused(f"{what} ({path}) changed: its sha256 is now {digest}, frozen {sha256}")
