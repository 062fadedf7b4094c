"""Fixtures of the agent tests: a repository with a tree in it and the fake CLIs on PATH."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harn_tui.core.layout import Layout
from tests.agent.kit import FAKE_CLI, make_repository, team_file, tree_in


@pytest.fixture
def fakes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake `claude` and `codex` first on PATH; returns the directory their calls are recorded in."""
    record = tmp_path / "calls"
    monkeypatch.setenv("PATH", f"{FAKE_CLI}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_CLI_RECORD_DIR", str(record))
    for name in ("FAKE_CLI_MISBEHAVE", "FAKE_CLI_REPLY", "FAKE_CLI_MODE", "FAKE_CLI_FILES", "HARN_ROOT"):
        monkeypatch.delenv(name, raising=False)
    return record


@pytest.fixture
def repository(tmp_path: Path) -> Path:
    return make_repository(tmp_path / "repo")


@pytest.fixture
def layout(repository: Path) -> Layout:
    return tree_in(repository)


@pytest.fixture
def team(tmp_path: Path) -> Path:
    directory = tmp_path / "kit"
    directory.mkdir()
    return team_file(directory)
