"""A full disk under the tree (a real tmpfs, filled): every write is exit 6 / "io" in one line naming the path
and the system's reason, what was written before is what a crash there would leave, and the same command
succeeds once space returns."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.creation import init_tree
from harn_tui.core.errors import SystemRefused
from harn_tui.core.finish_note import UNRECORDED
from harn_tui.core.fsio import append_line, write_immutable
from harn_tui.core.layout import Layout
from harn_tui.core.queries import load_work_view, work_document
from harn_tui.core.verify import verify_tree
from tests.conftest import Harn
from tests.plan_builders import GOAL, ROOT_WORK, add_plan, make_goal, record_attempt
from tests.reliability.conftest import Figures
from tests.reliability.crash_kit import Transition, check_acknowledged, check_invariants, run_cli, snapshot
from tests.reliability.io_kit import Disk, projection_of
from tests.reliability.transitions_under_test import TRANSITIONS

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


@pytest.mark.parametrize("transition", TRANSITIONS, ids=[t.name for t in TRANSITIONS])
def test_every_transition_on_a_full_disk_is_exit_6_and_completes_once_space_returns(
    transition: Transition, disk: Disk, tmp_path: Path, figures: Figures
) -> None:
    """The command fails in one line naming the path and ENOSPC; verify, every read verb's document and the
    records are as before (read on the full disk); with space back, the same command completes once.

    A command that only appends a line which fits in the last page its log already holds needs no new space:
    the system does not refuse it, and it completes on the full disk (then the repeat is its idempotent one)."""
    root = disk.mount / "root"
    root.mkdir()
    init_tree(root)
    layout = Layout(root)
    ctx = transition.build(layout, tmp_path / "work")
    argv = [*transition.argv(ctx), "--json"]
    problems, shown, records = verify_tree(layout), projection_of(layout), snapshot(root)
    out = tmp_path / "out"
    with disk.full():
        child = run_cli(root, argv, out=out)
        assert child.code in (0, 6), child.stdout
        if child.code == 6:
            error = child.document()["error"]
            assert error["code"] == "io" and error["message"].startswith(f"cannot write {root}/"), error
            assert error["message"].endswith(NO_SPACE) and "\n" not in error["message"]
            assert verify_tree(layout) == problems
            figures.add("io: commands refused on a full disk (then repeated with space)", 1)
        else:
            figures.add("io: commands that fit in space already allocated on a full disk", 1)
        check_acknowledged(records, root)
        if child.code == 6 and snapshot(root) == records:  # refused at its first write: nothing changed
            assert projection_of(layout) == shown
    child = run_cli(root, argv, out=out)
    attempts = [a for w in projection_of(layout)["work"]["work"] for a in work_attempts(layout, w["id"])]
    unrecorded = [a for a in attempts if (a["reason"] or "").startswith(UNRECORDED + "cannot write")]
    if not unrecorded:
        assert child.code == 0, child.stdout
        transition.done(layout, ctx, child)
    else:  # it began an attempt whose result it could not record: the attempt failed (environment, uncharged)
        assert child.code in transition.repeat_codes(layout, ctx) | {0}, child.stdout
        assert [(a["status"], a["class"]) for a in unrecorded] == [("failed", "environment")], attempts
        assert not [a for a in attempts if a["reason"] == "lost"], attempts
        figures.add("io: attempts whose result could not be recorded, failed as environment", 1)
    check_invariants(layout)


def work_attempts(layout: Layout, work_id: str) -> list[dict[str, Any]]:
    return list(load_work_document(layout, work_id)["attempts"])


def load_work_document(layout: Layout, work_id: str) -> dict[str, Any]:
    tree, view, goal_id = load_work_view(layout, work_id)
    return work_document(tree, view, goal_id)
