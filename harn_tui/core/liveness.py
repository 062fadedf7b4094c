"""Whether a lease is held, probed without taking it: what readers need of leases (no lease library)."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def is_held(path: Path) -> bool:
    """True while some process (this one included) holds the lease; never creates the file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False  # missing, or damage (a link, a pipe) that readers and verify report; never followed
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
