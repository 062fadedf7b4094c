"""Reader bounds: size limits for records and logs, and opening tree files without following symbolic links.

Every limit is far above the largest file the SPEC's bounds let the host write (docs/design/0001-journal-format.md,
"Reader bounds"), so a file over one is damage: reported with its path, never read into memory whole.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from harn_tui.core.errors import CorruptJournal

MIB = 1024 * 1024
# An immutable JSON record (goal, intent, plan records, proof, manifest, approval). The largest the host writes
# is a proposal built from a 4 MiB planner reply (indented: at most ~14 MiB) or a proof from a 4 MiB file.
MAX_RECORD_BYTES = 64 * MIB
# One JSONL line. The largest legal event (work.accepted with 20 dispositions of 2,000-character reasons, every
# character escaped as \uXXXX) is ~250 KB.
MAX_LINE_BYTES = 4 * MIB
# A whole JSONL log. The SPEC bounds a line, not the number of lines (reopens are unbounded); 256 MiB is a
# thousand maximal events, or about a million ordinary ones.
MAX_LOG_BYTES = 256 * MIB

# O_NOFOLLOW: a symbolic link in the final component fails (ELOOP) instead of being followed. O_NONBLOCK: a
# FIFO where a file should be opens at once instead of waiting for a writer (no effect on regular files).
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC

NOT_FOLLOWED = "a symbolic link (links inside .harnery/ are never followed)"


def os_problem(path: Path | str, error: OSError) -> str:
    """The problem an OSError met while opening `path` means, naming the path."""
    if error.errno == errno.ELOOP:
        return f"{path}: {NOT_FOLLOWED}"
    if error.errno == errno.ENOTDIR:
        return f"{path}: a parent of it is not a directory"
    return f"{path}: unreadable ({error.strerror or error})"


def kind_of(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a named pipe"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a regular file"


def open_regular(path: Path | str) -> tuple[int, os.stat_result]:
    """Open a tree file for reading: (fd, its stat). FileNotFoundError if missing; CorruptJournal (naming the
    path) for a symbolic link, anything but a regular file, or an error opening it. The caller closes the fd."""
    try:
        fd = os.open(path, READ_FLAGS)
    except FileNotFoundError:
        raise
    except OSError as error:
        raise CorruptJournal(os_problem(path, error)) from None
    try:
        found = os.fstat(fd)
    except OSError as error:
        os.close(fd)
        raise CorruptJournal(os_problem(path, error)) from None
    if not stat.S_ISREG(found.st_mode):
        os.close(fd)
        raise CorruptJournal(f"{path}: {kind_of(found.st_mode)} where a file should be")
    return fd, found


def over_limit(path: Path | str, size: int, limit: int, what: str) -> str:
    return f"{path}: {size} bytes, over the {limit // MIB} MiB limit for {what}"


def read_limited(path: Path | str, limit: int = MAX_RECORD_BYTES, what: str = "a record") -> bytes:
    """The whole file, at most `limit` bytes (CorruptJournal beyond, without reading it); see `open_regular`."""
    fd, found = open_regular(path)
    try:
        size = found.st_size
        if size > limit:
            raise CorruptJournal(over_limit(path, size, limit, what))
        # one read asking for a byte more than the size: exactly the size back is the whole file in one system
        # call (a file that grew since the `fstat` gives more, a short read less: then it is read to its end)
        first = os.read(fd, size + 1)
        if len(first) == size:
            return first
        chunks = [first]
        total = len(first)
        if total > limit:
            raise CorruptJournal(over_limit(path, total, limit, what))
        while chunk := os.read(fd, 65536):
            total += len(chunk)
            if total > limit:
                raise CorruptJournal(over_limit(path, total, limit, what))
            chunks.append(chunk)
    except OSError as error:
        raise CorruptJournal(os_problem(path, error)) from None
    finally:
        os.close(fd)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def directory_problem(path: Path | str) -> str | None:
    """Why `path` may not be entered as a tree directory (a symbolic link, not a directory), or None; a missing
    directory is no problem here (the reads under it find nothing)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as error:
        return os_problem(path, error)
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISLNK(mode):
        return f"{path}: {NOT_FOLLOWED}"
    return f"{path}: {kind_of(mode)} where a directory should be"
