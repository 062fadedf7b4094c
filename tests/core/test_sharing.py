"""Shared-tree modes in process, for any account: a tree shared with this process's own group, written under
umask 077 through the core (records, appends, leases, presence, directories), stays 2770/0660; drift is found
and repaired; the actor rule. The real-account tests are in tests/shared/."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from harn_tui.core import sharing
from harn_tui.core.creation import create_work, init_tree
from harn_tui.core.errors import UsageError
from harn_tui.core.layout import Layout
from harn_tui.core.leases import HeldLease, hold_lease
from harn_tui.core.presence import Heartbeat
from harn_tui.core.verify import verify_tree
from tests.conftest import EXAMPLES


@pytest.fixture
def shared(tmp_path: Path) -> Iterator[Layout]:
    """A tree whose .harnery/ is 2770 with this process's group, and umask 077 while the test writes."""
    root = tmp_path / "root"
    (root / ".harnery").mkdir(parents=True)
    os.chmod(root / ".harnery", 0o2770)
    previous = os.umask(0o077)
    try:
        yield init_tree(root)
    finally:
        os.umask(previous)
        sharing.forget(root / ".harnery")


def entries(base: Path) -> list[tuple[Path, os.stat_result]]:
    found = [(base, base.lstat())]
    for directory, names, files in os.walk(base):
        found += [(Path(directory) / name, (Path(directory) / name).lstat()) for name in (*names, *files)]
    return found


def test_every_core_write_in_a_shared_tree_is_2770_or_0660_whatever_the_umask(shared: Layout) -> None:
    create_work(
        shared,
        title="Shared",
        template=EXAMPLES / "templates" / "implement.py",
        objective="Exist.",
        acceptance=[],
        depends_on=[],
        max_attempts=1,
        work_id="w",
        actor="tester",
    )
    with hold_lease(shared.work("w") / "lease", "work w"):
        pass
    HeldLease(shared.runs / "run-x" / "lease", "run x").release()
    Heartbeat.for_this_process(shared, "tester").beat(None, None)
    gid = os.stat(shared.base).st_gid
    wrong = [
        f"{path}: {stat.S_IMODE(found.st_mode):04o}"
        for path, found in entries(shared.base)
        if stat.S_IMODE(found.st_mode) != (0o2770 if stat.S_ISDIR(found.st_mode) else 0o660) or found.st_gid != gid
    ]
    assert wrong == []
    assert {"intent.json", "events.jsonl", "lease", ".gitignore", "service", "run-x"} <= {
        path.name for path, _ in entries(shared.base)
    }
    assert verify_tree(shared) == []


def test_a_private_tree_keeps_0700_and_0600(tmp_path: Path) -> None:
    layout = init_tree(tmp_path / "private")
    create_work(
        layout,
        title="Mine",
        template=EXAMPLES / "templates" / "implement.py",
        objective="Exist.",
        acceptance=[],
        depends_on=[],
        max_attempts=1,
        work_id="w",
        actor="tester",
    )
    modes = {stat.S_IMODE(found.st_mode) for _, found in entries(layout.base)}
    assert modes == {0o700, 0o600}
    assert sharing.shared_actor(layout.base, "anyone") is None


def test_verify_names_drift_and_repair_sets_it_right(shared: Layout) -> None:
    create_work(
        shared,
        title="Shared",
        template=EXAMPLES / "templates" / "implement.py",
        objective="Exist.",
        acceptance=[],
        depends_on=[],
        max_attempts=1,
        work_id="w",
        actor="tester",
    )
    intent, directory = shared.work("w") / "intent.json", shared.work("w")
    os.chmod(intent, 0o644)
    os.chmod(directory, 0o750)
    scratch_tool = shared.runs / "script.sh"
    scratch_tool.write_bytes(b"#!/bin/sh\n")
    os.chmod(scratch_tool, 0o750)
    problems = {p["path"]: p["problem"] for p in verify_tree(shared)}
    assert problems[str(intent)].startswith("mode 0644, not 0660 (a shared tree's rule; `harn init --shared")
    assert problems[str(directory)].startswith("mode 0750, not 2770")
    assert problems[str(scratch_tool)].startswith("mode 0750, not 0770")  # an executable stays one
    gid = os.stat(shared.base).st_gid
    repaired = sharing.walk_drift(shared.base, gid, repair=True)
    assert sorted(d.path for d in repaired if d.repaired) == sorted(map(str, (intent, directory, scratch_tool)))
    assert verify_tree(shared) == []


def test_in_a_shared_tree_the_actor_is_the_login_name(shared: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    login = sharing.login_name()
    monkeypatch.delenv("HARN_ACTOR", raising=False)
    assert sharing.shared_actor(shared.base, None) == login
    assert sharing.shared_actor(shared.base, login) == login
    refusal = f"^in a shared tree you act as {login} \\(--actor someone-else is refused\\)$"
    with pytest.raises(UsageError, match=refusal):
        sharing.shared_actor(shared.base, "someone-else")
    monkeypatch.setenv("HARN_ACTOR", "someone-else")
    with pytest.raises(UsageError, match=r"\(\$HARN_ACTOR someone-else is refused\)"):
        sharing.shared_actor(shared.base, None)


def test_tree_base_finds_the_harnery_a_path_lies_in() -> None:
    assert sharing.tree_base("/srv/pair/.harnery/work/w/intent.json") == "/srv/pair/.harnery"
    assert sharing.tree_base("/srv/pair/.harnery") == "/srv/pair/.harnery"
    assert sharing.tree_base("/srv/pair/.harnery-old/x") is None
    assert sharing.tree_base("/srv/.harnery/pair/.harnery/x") == "/srv/.harnery/pair/.harnery"
    assert sharing.tree_base("/srv/pair/specs/team.json") is None
