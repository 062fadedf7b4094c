"""The accounts, the runtime they run harn with, and helpers to read a tree's groups and modes as root."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.accounts import DEMO_ASSETS, Accounts, create_accounts, unavailable


@pytest.fixture(scope="session")
def accounts() -> Iterator[Accounts]:
    reason = unavailable()
    if reason is not None:
        pytest.skip(reason)
    base = Path(tempfile.mkdtemp(prefix="harn-accounts-"))  # not under /tmp/pytest-of-root (0700)
    base.chmod(0o755)
    previous = signal.getsignal(signal.SIGTERM)
    if previous == signal.SIG_DFL:  # a `timeout` ending the run still removes the accounts (pytest tears down)
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield from create_accounts(base)
    finally:
        shutil.rmtree(base, ignore_errors=True)
        signal.signal(signal.SIGTERM, previous)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture
def place(accounts: Accounts) -> Iterator[Path]:
    """A fresh directory under the accounts' base that the first member owns (a tree's root goes in it)."""
    directory = Path(tempfile.mkdtemp(prefix="place-", dir=accounts.base))
    directory.chmod(0o755)
    os.chown(directory, accounts.alice.uid, accounts.alice.gid)
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def assets(accounts: Accounts, place: Path) -> Path:
    """The demo's scripted team, replanning files and templates, readable (and runnable) by every account."""
    target = place / "assets"
    shutil.copytree(DEMO_ASSETS, target, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    for path in (target, *target.rglob("*")):
        path.chmod(0o755 if path.is_dir() or path.parent.name == "templates" else 0o644)
    return target


def walk(base: Path) -> list[tuple[Path, os.stat_result]]:
    """Every entry under `base` (itself included), never following a link."""
    found = [(base, base.lstat())]
    for directory, names, files in os.walk(base):
        for name in (*names, *files):
            path = Path(directory) / name
            found.append((path, path.lstat()))
    return found


def mode_problems(base: Path, gid: int) -> list[str]:
    """Each entry that is not a group-owned 2770 directory or 0660 file."""
    problems = []
    for path, found in walk(base):
        mode = stat.S_IMODE(found.st_mode)
        want = 0o2770 if stat.S_ISDIR(found.st_mode) else 0o660
        if found.st_gid != gid or mode != want or not (stat.S_ISDIR(found.st_mode) or stat.S_ISREG(found.st_mode)):
            problems.append(f"{path}: mode {mode:04o} gid {found.st_gid}")
    return problems


def snapshot(base: Path) -> dict[str, tuple[int, int, int, int, int, bytes]]:
    """What a change would show: each entry's mode, owner, group, size, mtime and (a file's) bytes."""
    return {
        str(path): (
            found.st_mode,
            found.st_uid,
            found.st_gid,
            found.st_size,
            found.st_mtime_ns,
            path.read_bytes() if stat.S_ISREG(found.st_mode) else b"",
        )
        for path, found in walk(base)
    }
