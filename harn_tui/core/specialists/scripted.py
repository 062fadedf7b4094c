"""The `scripted` adapter: canned replies from a JSONL file, for tests and the demo (SPEC section 7).

Line N answers plan sequence N and the last line every later sequence. A line that is a JSON array answers
the k-th call within that plan request with element k (the last element for later calls). A reply that is
a JSON object is printed as JSON; a JSON string is the raw reply text (so a script can send invalid text);
a line that is not JSON at all is itself the raw reply.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from harn_tui.core.specialists.base import SpecialistCall, SpecialistFailure


def call_scripted(call: SpecialistCall) -> str:
    path = Path(call.profile.replies or "")
    try:
        lines = [line for line in path.read_text().splitlines() if line.strip()]
    except OSError as error:
        raise SpecialistFailure("crash", f"{call.what}: cannot read scripted replies {path}: {error}") from None
    if not lines:
        raise SpecialistFailure("crash", f"{call.what}: scripted replies {path} are empty")
    line = lines[min(call.sequence, len(lines)) - 1]
    return select_reply(line, call.call_index)


def select_reply(line: str, call_index: int) -> str:
    """The reply text one JSONL line gives the `call_index`-th call (1-based) of a plan request."""
    try:
        value: Any = json.loads(line)
    except (ValueError, RecursionError):
        return line
    if isinstance(value, list):
        if not value:
            return "[]"
        value = value[min(call_index, len(value)) - 1]
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)
