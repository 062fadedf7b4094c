"""Shared fixtures: a fresh `.harnery/` root, the example specialist files, and `harn` as a subprocess."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.creation import init_tree
from harn_tui.core.layout import Layout
from tests.reliability.io_kit import Disk, mounted_tmpfs

EXAMPLES = Path(__file__).parent / "fixtures" / "examples"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """An initialized tree root (the directory holding `.harnery/`)."""
    directory = tmp_path / "root"
    directory.mkdir()
    init_tree(directory)
    return directory


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Disk]:
    """A 4 MiB tmpfs mounted for the test, to fill (skipped, saying why, where mounting is impossible)."""
    with mounted_tmpfs(tmp_path / "disk") as mounted:
        yield mounted


@pytest.fixture
def layout(root: Path) -> Layout:
    return Layout(root)


@pytest.fixture
def examples(tmp_path: Path) -> Path:
    """A private copy of the example team, replanning, mission, planner, reviewer and templates."""
    target = tmp_path / "examples"
    shutil.copytree(EXAMPLES, target)
    return target


def harn_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARN_")}
    env["HARN_ACTOR"] = "tester"
    env["HARN_LEASE_TIMEOUT_S"] = "10"
    # `harn` here starts warm CLI servers as a user's does; they end a minute after the last command, not 15
    env["HARN_SERVER_IDLE_S"] = "60"
    env.update(extra or {})
    return env


class Harn:
    """`harn` run as a real subprocess against one root."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def __call__(
        self, *args: str, env: dict[str, str] | None = None, timeout: float = 120
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "harn_tui", "--root", str(self.root), *args],
            capture_output=True,
            text=True,
            env=harn_env(env),
            timeout=timeout,
        )

    def json(self, *args: str, expect: int = 0, env: dict[str, str] | None = None) -> Any:
        result = self(*args, "--json", env=env)
        assert result.returncode == expect, (result.returncode, result.stdout, result.stderr)
        return json.loads(result.stdout)


@pytest.fixture
def harn(root: Path) -> Harn:
    return Harn(root)


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under `.harnery/` (leases and cache excluded) with its bytes: for unchanged-tree checks."""
    found: dict[str, bytes] = {}
    for path in sorted((root / ".harnery").rglob("*")):
        if path.is_file() and path.name not in ("lease", "supervisor.lock") and "cache" not in path.parts:
            found[str(path.relative_to(root))] = path.read_bytes()
    return found


@pytest.fixture
def snapshot_tree() -> Callable[[Path], dict[str, bytes]]:
    return tree_bytes
