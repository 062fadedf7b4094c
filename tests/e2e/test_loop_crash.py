"""The supervisor SIGKILLed mid-attempt and mid-planner-call: the next tick recovers and `harn verify` is clean.

A lost attempt counts as failed and charged (and is recorded as such by the next writer); an interrupted plan
request consumed its replan slot, and the next request carries it as `latest_plan`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Harn, harn_env
from tests.goal_kit import LOOP


def spawn_harn(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(root), *args, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=harn_env(env),
    )


def wait_for(condition: object, timeout: float = 15.0) -> None:
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.02)


def events(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def make_goal(harn: Harn, tmp_path: Path, examples: Path, template: Path, planner: list[str]) -> None:
    harn.json(
        "work",
        "create",
        "Migrate the queue",
        str(template),
        "--objective",
        "Move every job.",
        "--accept",
        "no job lost",
        "--max-attempts",
        "1",
        "--id",
        "root-work",
    )
    team = tmp_path / "team.json"
    team.write_text(
        json.dumps(
            {
                "planner": {
                    "adapter": "command",
                    "argv": planner,
                    "timeout_s": 120,
                    "instructions": "Plan recovery work.",
                }
            }
        )
    )
    replanning = tmp_path / "replanning.json"
    replanning.write_text(
        json.dumps(
            {
                "planner": "planner",
                "templates": {
                    "implement": {"path": str(examples / "templates" / "implement.py"), "root": True},
                    "investigate": {"path": str(examples / "templates" / "investigate.py"), "root": False},
                },
            }
        )
    )
    harn.json(
        "supervisor",
        "create",
        "--team",
        str(team),
        "--replanning",
        str(replanning),
        "--root-work",
        "root-work",
        "--id",
        "goal-crash",
    )


def test_a_supervisor_killed_during_an_attempt_is_recovered_by_the_next_tick(
    harn: Harn, root: Path, tmp_path: Path, examples: Path
) -> None:
    make_goal(harn, tmp_path, examples, LOOP / "slow_pass.py", ["python3", str(examples / "planner.py")])
    log = root / ".harnery" / "work" / "root-work" / "events.jsonl"
    ticking = spawn_harn(root, "supervisor", "tick", "goal-crash", env={"LOOP_SLEEP_S": "1.5"})
    wait_for(lambda: any(e["event"] == "attempt.started" for e in events(log)))
    time.sleep(0.2)
    ticking.send_signal(signal.SIGKILL)
    assert ticking.wait(10) == -signal.SIGKILL

    lost = harn.json("supervisor", "show", "goal-crash")
    assert lost["attempts_used"] == 1 and lost["attempts_remaining"] == 99, "a lost attempt is charged"
    assert (lost["work"][0]["state"], lost["next_action"]) == ("blocked", "replan")
    assert [e["event"] for e in events(log)][-1] == "attempt.started", "reading repairs nothing"

    recovered = harn.json("supervisor", "tick", "goal-crash")
    assert recovered["replans"] == 1 and recovered["outcomes"][0]["status"] == "proposed"
    finished = [e for e in events(log) if e["event"] == "attempt.finished"]
    assert [(e["status"], e["reason"], e["actor"]) for e in finished] == [("failed", "lost", "supervisor")]
    assert harn.json("verify") == {"ok": True, "problems": []}


def test_a_supervisor_killed_during_a_planner_call_leaves_an_interrupted_plan(
    harn: Harn, root: Path, tmp_path: Path, examples: Path
) -> None:
    pid_file = tmp_path / "planner.pid"
    once = tmp_path / "slow-once"
    make_goal(harn, tmp_path, examples, LOOP / "fail.py", ["python3", str(LOOP / "slow_planner.py"), "30", str(once)])
    harn.json("supervisor", "tick", "goal-crash")
    ticking = spawn_harn(root, "supervisor", "tick", "goal-crash", env={"LOOP_PID_FILE": str(pid_file)})
    try:
        wait_for(lambda: pid_file.exists() and pid_file.read_text().strip() != "")
        time.sleep(0.2)
        ticking.send_signal(signal.SIGKILL)
        assert ticking.wait(10) == -signal.SIGKILL
    finally:
        with contextlib.suppress(ProcessLookupError, ValueError, FileNotFoundError):
            os.kill(int(pid_file.read_text()), signal.SIGKILL)

    interrupted = harn.json("supervisor", "show", "goal-crash")
    [plan] = interrupted["plans"]
    assert (plan["status"], plan["sequence"]) == ("interrupted", 1)
    assert interrupted["replans_used"] == 1 and interrupted["next_action"] == "replan"

    recovered = harn.json("supervisor", "tick", "goal-crash")
    [outcome] = recovered["outcomes"]
    assert (outcome["sequence"], outcome["status"]) == (2, "proposed")
    shown = harn.json("supervisor", "plan", "show", "goal-crash", outcome["plan_id"])
    assert shown["planner_input"]["latest_plan"] == {
        "id": plan["id"],
        "status": "interrupted",
        "reason": None,
        "rationale": None,
    }
    assert shown["planner_input"]["budgets"]["replans_remaining"] == 3
    assert harn.json("verify") == {"ok": True, "problems": []}
