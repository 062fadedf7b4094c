"""Re-hashing a frozen template right before it is used: a changed or missing file is a refusal (exit 3)."""

from __future__ import annotations

from harn_tui.core.rules import Checks, frozen_template_body


def read_template(path: str, sha256: str, what: str) -> bytes:
    """The template's bytes, read once and hashed: refused unless they have the frozen `sha256`. An executor
    that sends the template elsewhere sends exactly these bytes."""
    check, body = frozen_template_body(path, sha256, what)
    Checks((check,)).require()
    assert body is not None
    return body
