"""A full disk under the tree (a real tmpfs, filled): every write is exit 6 / "io" in one line naming the path
and the system's reason, what was written before is what a crash there would leave, and the same command
succeeds once space returns."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harn_tui.core.creation import init_tree
from harn_tui.core.errors import SystemRefused
from harn_tui.core.fsio import append_line, write_immutable
from harn_tui.core.layout import Layout
from tests.conftest import Harn
from tests.plan_builders import GOAL, ROOT_WORK, add_plan, make_goal, record_attempt
from tests.reliability.io_kit import Disk

NO_SPACE = "No space left on device (ENOSPC)"


def test_a_record_on_a_full_disk_is_refused_and_nothing_is_left(disk: Disk) -> None:
    target = disk.mount / "records" / "r.json"
    target.parent.mkdir()
    with disk.full(), pytest.raises(SystemRefused) as caught:
        write_immutable(target, b"x" * 100_000)
    assert caught.value.message == f"cannot write {target}: {NO_SPACE}"
    assert (caught.value.code, caught.value.exit_code) == ("io", 6)
    assert os.listdir(target.parent) == []
    assert write_immutable(target, b"x" * 100_000) is True


def test_an_append_on_a_full_disk_takes_back_its_partial_line(disk: Disk) -> None:
    log = disk.mount / "events.jsonl"
    append_line(log, b'{"seq":1}\n')
    with disk.full():
        with pytest.raises(SystemRefused) as caught:
            append_line(log, b'{"seq":2,"pad":"' + b"y" * 200_000 + b'"}\n')
        assert log.read_bytes() == b'{"seq":1}\n'
    assert NO_SPACE in caught.value.message and str(log) in caught.value.message
    append_line(log, b'{"seq":2}\n')
    assert log.read_bytes() == b'{"seq":1}\n{"seq":2}\n'


def test_plan_approve_on_a_full_disk_is_exit_6_then_applies(disk: Disk, examples: Path) -> None:
    root = disk.mount / "root"
    root.mkdir()
    init_tree(root)
    layout = Layout(root)
    make_goal(layout, examples, max_attempts=1)
    record_attempt(layout, ROOT_WORK, passed=False)
    plan = add_plan(layout)
    harn = Harn(root)
    argv = ("supervisor", "plan", "approve", GOAL, plan)
    with disk.full():
        plain = harn(*argv)
        assert plain.returncode == 6, plain.stderr
        assert plain.stderr.count("\n") == 1 and "Traceback" not in plain.stderr, plain.stderr
        assert plain.stderr.startswith(f"harn: cannot write {root}/.harnery/") and NO_SPACE in plain.stderr
        document = harn(*argv, "--json")
        assert document.returncode == 6
        assert json.loads(document.stdout)["error"]["code"] == "io"
        assert harn.json("verify")["ok"] is True
    assert harn.json(*argv)["outcome"] == "applied"
    assert harn.json("verify")["ok"] is True
