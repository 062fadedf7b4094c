"""Leases exclude other processes, report busy as a refusal, and die with their holder."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harn_tui.core.errors import Refused
from harn_tui.core.leases import HeldLease, hold_lease, is_held, try_hold

HOLDER = """
import sys, time
from pathlib import Path
from harn_tui.core.leases import HeldLease
lease = HeldLease(Path(sys.argv[1]), "test")
print("held", flush=True)
time.sleep(60)
"""


def start_holder(path: Path) -> subprocess.Popen[str]:
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path)], stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_lease_held_by_another_process_is_busy_and_freed_when_that_process_is_killed(tmp_path: Path) -> None:
    path = tmp_path / "lease"
    holder = start_holder(path)
    try:
        assert is_held(path)
        assert try_hold(path, "goal g") is None
        with pytest.raises(Refused, match="busy"), hold_lease(path, "goal g", timeout=0.2):
            pass
    finally:
        os.kill(holder.pid, signal.SIGKILL)
        holder.wait()
    deadline = time.monotonic() + 5
    while is_held(path) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not is_held(path), "the OS releases the lease of a dead process"
    with hold_lease(path, "goal g", timeout=1):
        assert is_held(path)


def test_probe_never_creates_a_lease_file(tmp_path: Path) -> None:
    assert not is_held(tmp_path / "lease")
    assert not (tmp_path / "lease").exists()


def test_held_lease_excludes_other_holders_in_the_same_process(tmp_path: Path) -> None:
    first = HeldLease(tmp_path / "lease", "run r")
    try:
        assert try_hold(tmp_path / "lease", "run r") is None
    finally:
        first.release()
    second = try_hold(tmp_path / "lease", "run r")
    assert second is not None
    second.release()


def test_releasing_a_held_lease_twice_frees_it_once_and_closes_nothing_else(tmp_path: Path) -> None:
    lease = HeldLease(tmp_path / "lease", "run r")
    lease.release()
    assert not is_held(tmp_path / "lease")
    with open(tmp_path / "other", "w") as other:  # likely given the descriptor number the lease had
        lease.release()
        other.write("still open")
    assert (tmp_path / "other").read_text() == "still open"
    again = try_hold(tmp_path / "lease", "run r")
    assert again is not None
    again.release()
