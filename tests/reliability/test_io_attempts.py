"""An attempt whose result the system refuses to record (a real tmpfs filled while the template runs): `work run`
exits 6, the runner's finish note says why, and once space returns the attempt is failed with class
`environment` (uncharged) by the next writer, which runs the next attempt."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.creation import create_work, init_tree
from harn_tui.core.finish_note import UNRECORDED
from harn_tui.core.layout import Layout
from harn_tui.core.queries import show_goal
from tests.conftest import harn_env
from tests.goal_kit import GoalKit, make_root
from tests.reliability.conftest import Figures
from tests.reliability.crash_kit import check_invariants, log_lines, run_cli
from tests.reliability.io_kit import Disk
from tests.reliability.transitions_under_test import PROOF, goal_kit, passing

WORK = "w-fills"
NO_SPACE = "No space left on device (ENOSPC)"
# the first run fills the disk (a marker beside the template says it did), then prints or exits; later runs pass
FILLS = f"""#!/bin/sh
if [ ! -e "$0.filled" ]; then
  touch "$0.filled"
  {{ROUND}}
  cat /dev/zero > "$IO_TEST_FILL" 2>/dev/null
  {{THEN}}
  exit 0
fi
printf '{PROOF}' "$HARN_RUN_ID" succeeded satisfied null > "$HARN_PROOF"
"""
THEN = {
    # the transcript's first line finds the disk full
    "transcript": ("", "echo 'this line cannot be recorded'"),
    # the template's own proof is written while there is room; the host's proof.json is not
    "proof": (f'printf \'{PROOF}\' "$HARN_RUN_ID" succeeded satisfied null > "$HARN_PROOF"', ""),
}


def fills_template(directory: Path, kind: str) -> Path:
    before, after = THEN[kind]
    path = directory / f"fills-{kind}.sh"
    path.write_text(FILLS.replace("{ROUND}", before).replace("{THEN}", after))
    path.chmod(0o755)
    return path


def attempts_of(root: Path, work_id: str, out: Path) -> list[dict[str, Any]]:
    child = run_cli(root, ["work", "show", work_id, "--json"], out=out)
    assert child.code == 0, child.stdout
    return list(child.document()["attempts"])


def wait_for(condition: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


def tree_on(disk: Disk) -> Layout:
    root = disk.mount / "root"
    root.mkdir()
    init_tree(root)
    return Layout(root)


@pytest.mark.parametrize("kind", sorted(THEN))
def test_work_run_that_fills_the_disk_is_exit_6_then_failed_environment_uncharged(
    kind: str, disk: Disk, tmp_path: Path, figures: Figures, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IO_TEST_FILL", str(disk.mount / ".filler"))
    layout = tree_on(disk)
    create_work(
        layout,
        title="Fills the disk",
        template=fills_template(tmp_path, kind),
        objective="Do it.",
        acceptance=["done"],
        max_attempts=1,
        work_id=WORK,
        actor="tester",
    )
    out = tmp_path / "out"
    child = run_cli(layout.root, ["work", "run", WORK, "--json"], out=out)
    assert child.code == 6, child.stdout
    error = child.document()["error"]
    assert error["code"] == "io" and "No space left on device (ENOSPC)" in error["message"], error
    assert disk.is_full()
    # on the full disk the reads already show what the next writer will record
    [attempt] = attempts_of(layout.root, WORK, out)
    assert (attempt["status"], attempt["class"]) == ("failed", "environment"), attempt
    assert attempt["reason"] == UNRECORDED + error["message"]
    disk.free()
    shown = run_cli(layout.root, ["work", "show", WORK, "--json"], out=out).document()
    # uncharged: with max_attempts 1, a charged failure would leave nothing to retry
    assert (shown["state"], shown["next_action"]) == ("blocked", "retry"), shown
    retried = run_cli(layout.root, ["work", "retry", WORK, "--json"], out=out)
    assert retried.code == 0 and retried.document()["status"] == "passed", retried.stdout
    finished = [e for e in log_lines(layout.work(WORK) / "events.jsonl") if e["event"] == "attempt.finished"]
    assert [(e["status"], e.get("class"), e["actor"]) for e in finished] == [
        ("failed", "environment", "supervisor"),
        ("passed", None, "tester"),
    ]
    assert finished[0]["reason"] == UNRECORDED + error["message"]
    check_invariants(layout)
    figures.add("io: attempts whose result could not be recorded, failed as environment", 1)


def test_a_tick_whose_attempt_fills_the_disk_stops_with_io_error(
    disk: Disk, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("IO_TEST_FILL", str(disk.mount / ".filler"))
    layout = tree_on(disk)
    template = fills_template(tmp_path, "transcript")
    root_work = make_root(layout, template=template, max_attempts=1, accept=("done",))
    goal = goal_kit(layout, tmp_path, template).create(root_work=root_work, options={"retry_blocked": True})
    out = tmp_path / "out"
    child = run_cli(layout.root, ["supervisor", "tick", goal, "--json"], out=out)
    assert child.code == 6, child.stdout
    document = child.document()
    assert document["stop_reason"] == "io_error" and document["error"]["code"] == "io", document
    disk.free()
    again = run_cli(layout.root, ["supervisor", "run", goal, "--json"], out=out)
    assert again.code == 0, again.stdout
    assert again.document()["goal"]["work"][0]["state"] == "in_review", again.stdout
    statuses = [(a["status"], a["class"]) for a in attempts_of(layout.root, root_work, out)]
    assert statuses == [("failed", "environment"), ("passed", None)]
    check_invariants(layout)


def test_serve_on_a_full_disk_backs_off_says_why_and_serves_every_goal_once_space_returns(
    disk: Disk, tmp_path: Path
) -> None:
    """A real `harn supervisor serve` over two ready goals while the disk is full: each goal's tick fails in one
    line naming the path and ENOSPC, retried 1 s, then 2 s later, never a traceback; freed, both goals' roots
    pass without a restart, and SIGTERM ends the loop cleanly."""
    layout = tree_on(disk)
    template = passing(tmp_path)
    goals = []
    for name in ("a", "b"):
        root_work = make_root(layout, f"root-{name}", template=template, accept=("done",))
        goals.append(
            GoalKit(layout, tmp_path / name).create(
                root_work=root_work, goal_id=f"goal-{name}", options={"retry_blocked": True}
            )
        )
    log = tmp_path / "serve.log"
    disk.fill()
    with log.open("w") as sink:
        serve = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "harn_tui",
                "--root",
                str(layout.root),
                "supervisor",
                "serve",
                "--wake-interval",
                "0.2",
            ],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env=harn_env(),
        )
    try:
        wait_for(lambda: log.read_text().count("trying it again in 2 s") >= 2, timeout=30)
        text = log.read_text()
        for goal_id in goals:
            assert f"goal {goal_id}: cannot write {layout.base}/" in text and NO_SPACE in text, text
        disk.free()
        wait_for(lambda: all(show_goal(layout, g).work[0].state == "in_review" for g in goals), timeout=60)
    finally:
        disk.free()
        serve.send_signal(signal.SIGTERM)
        code = serve.wait(timeout=30)
    assert code == 0 and "Traceback" not in log.read_text(), log.read_text()
    check_invariants(layout)
