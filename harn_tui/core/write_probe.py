"""Whether the system refuses writes to a tree right now: one byte written to a fresh temporary file in
`cache/` (readers, verify and the loops ignore both), then removed. The console asks before it opens a
transition form, so the operator learns that the decision cannot be recorded before typing it."""

from __future__ import annotations

import contextlib
import os

from harn_tui.core.errors import SystemRefused, is_system_refusal, system_refused
from harn_tui.core.fsio import temp_path_for
from harn_tui.core.layout import Layout


def write_refusal(layout: Layout) -> SystemRefused | None:
    """The system's refusal of a small new write in the tree (no space, quota, read-only, permission), or None.
    A write that needs no new space (an append within a log's last block) may still succeed on a full disk."""
    directory = layout.cache if layout.cache.is_dir() else layout.base
    probe = temp_path_for(directory / "write-probe")
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, b"\n")
        finally:
            os.close(fd)
    except OSError as error:
        return system_refused(error, directory) if is_system_refusal(error) else None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(probe)
    return None
