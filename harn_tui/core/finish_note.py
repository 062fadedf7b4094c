"""A run's `finish-note`: where its runner says why the attempt's result could not be recorded.

When the system refuses a write mid-attempt (the disk filled while the template ran, the proof or
`attempt.finished` could not be written), the runner cannot record the finish: the next writer finds the
attempt running with its run lease free. Told nothing more, it would call it lost (charged). So the runner
reserves the note's space when the attempt starts, while writes work (4 KiB, written, not fsynced: nothing
depends on it until a failure), and on a refused write overwrites that space in place, which needs no new
block on a full disk, and fsyncs it. The next writer then records the attempt failed with class
`environment` (uncharged) and the note's reason. A note the system refused too (a read-only tree) leaves the
attempt lost. The reserved note is blank (spaces) until written; readers treat anything unparsable as none.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from harn_tui.core.clock import now_iso
from harn_tui.core.errors import SystemRefused, refusals_as_system_refused
from harn_tui.core.reader_bounds import READ_FLAGS
from harn_tui.core.records.common import REASON_MAX
from harn_tui.core.sharing import open_new

NOTE_NAME = "finish-note"
NOTE_BYTES = 4096
UNRECORDED = "the attempt's result could not be recorded: "


class FinishNote(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    schema_version: int = 1
    run_id: str
    reason: str
    noted_at: str


def note_path(run_dir: Path) -> Path:
    return run_dir / NOTE_NAME


def reserve_note(run_dir: Path) -> None:
    """Create (or blank, for a resumed run) the note's space; a refusal is SystemRefused (nothing started)."""
    path = note_path(run_dir)
    with refusals_as_system_refused(path):
        fd = open_new(path, os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            os.pwrite(fd, b" " * NOTE_BYTES, 0)
        finally:
            os.close(fd)


def write_note(run_dir: Path, run_id: str, error: SystemRefused) -> bool:
    """Say in the reserved space why the finish could not be recorded; False if the system refused this too."""
    reason = (UNRECORDED + error.message)[:REASON_MAX]
    body = FinishNote(run_id=run_id, reason=reason, noted_at=now_iso()).model_dump_json().encode()
    while len(body) >= NOTE_BYTES:  # never past the reserved space (a reason of multibyte characters)
        reason = reason[: len(reason) * 3 // 4]
        body = FinishNote(run_id=run_id, reason=reason, noted_at=now_iso()).model_dump_json().encode()
    try:
        fd = os.open(note_path(run_dir), os.O_WRONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        if os.fstat(fd).st_size < NOTE_BYTES:
            return False  # no reserved space to write in: a write now would need a new block
        os.pwrite(fd, body.ljust(NOTE_BYTES - 1) + b"\n", 0)
        os.fsync(fd)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def read_note(run_dir: Path, run_id: str) -> str | None:
    """The reason a run's note gives, or None (no note, blank, or not one this host wrote for this run)."""
    try:
        fd = os.open(note_path(run_dir), READ_FLAGS)
    except OSError:
        return None
    with contextlib.closing(os.fdopen(fd, "rb")) as handle:
        body = handle.read(NOTE_BYTES + 1).strip()
    if not body:
        return None
    try:
        note = FinishNote.model_validate_json(body)
    except ValidationError:
        return None
    return note.reason if note.run_id == run_id and 0 < len(note.reason) <= REASON_MAX else None
