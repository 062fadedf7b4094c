"""Real full disks for the io tests: a small tmpfs mounted by the test (root only), filled to the last byte and
emptied again. Where mounting is impossible (not root, no mount permission in a container) the tests skip,
saying why."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.queries import list_approvals, list_goals, list_work, pending, show_goal

FILLER = ".filler"


class Disk:
    """A tmpfs of `size` mounted at `mount`; `fill()` takes every free byte, `free()` gives them back."""

    def __init__(self, mount: Path) -> None:
        self.mount = mount

    def fill(self) -> None:
        """Write a filler file until the system says ENOSPC (then every write of one more byte fails)."""
        with open(self.mount / FILLER, "ab", buffering=0) as handle:
            chunk = b"\0" * 65536
            while True:
                try:
                    handle.write(chunk)
                except OSError as error:
                    if error.errno != errno.ENOSPC:
                        raise
                    if len(chunk) == 1:
                        return
                    chunk = chunk[: len(chunk) // 2]

    def free(self) -> None:
        (self.mount / FILLER).unlink(missing_ok=True)

    @contextlib.contextmanager
    def full(self) -> Iterator[None]:
        self.fill()
        try:
            yield
        finally:
            self.free()

    def is_full(self) -> bool:
        return os.statvfs(self.mount).f_bavail == 0


class MountImpossible(Exception):
    """A tmpfs cannot be mounted here (not root, or no mount permission in a container)."""


def mount_problem() -> str | None:
    """Why a tmpfs cannot be mounted here, or None."""
    if os.geteuid() != 0:
        return "mounting a tmpfs needs root (CI and these machines run the tests as root)"
    return None


@contextlib.contextmanager
def tmpfs(mount: Path, size: str = "4m") -> Iterator[Disk]:
    """A private tmpfs of `size` at `mount` (created), unmounted afterwards (lazily, should a child still hold
    a file in it); MountImpossible saying why where it cannot be mounted."""
    problem = mount_problem()
    if problem is not None:
        raise MountImpossible(problem)
    mount.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", f"harn-io-{uuid.uuid4().hex[:6]}", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise MountImpossible(f"cannot mount a tmpfs at {mount}: {done.stderr.strip() or done.returncode}")
    try:
        yield Disk(mount)
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


@contextlib.contextmanager
def mounted_tmpfs(mount: Path, size: str = "4m") -> Iterator[Disk]:
    """`tmpfs` for a test: skipped, saying why, where it cannot be mounted."""
    with contextlib.ExitStack() as stack:
        try:
            disk = stack.enter_context(tmpfs(mount, size))
        except MountImpossible as impossible:
            pytest.skip(str(impossible))
        yield disk


def projection_of(layout: Layout) -> dict[str, Any]:
    """Everything the read verbs show of the tree: the goal list, every goal's document, the work list, the
    pending decisions and the approvals."""
    goals = list_goals(layout)
    return {
        "goals": goals,
        "shown": {g["id"]: show_goal(layout, g["id"]).to_json() for g in goals["goals"]},
        "work": list_work(layout),
        "pending": pending(layout),
        "approvals": list_approvals(layout),
    }
