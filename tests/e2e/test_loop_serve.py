"""`harn supervisor serve` as a foreground process: it drives enrolled goals and stops cleanly (exit 0) after
the current tick on SIGTERM or SIGINT."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Harn, harn_env


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serve_drives_a_goal_and_stops_cleanly_on_a_signal(
    signum: signal.Signals, harn: Harn, root: Path, examples: Path
) -> None:
    harn.json(
        "work",
        "create",
        "Ship it",
        str(examples / "templates" / "implement.py"),
        "--objective",
        "Ship.",
        "--accept",
        "shipped",
        "--id",
        "root-work",
    )
    team = examples / "team.json"
    harn.json(
        "supervisor",
        "create",
        "--team",
        str(team),
        "--root-work",
        "root-work",
        "--id",
        "goal-serve",
        "--accept-passing-proof",
    )
    serving = subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(root), "supervisor", "serve", "--wake-interval", "0.2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=harn_env(),
    )
    try:
        log = root / ".harnery" / "work" / "root-work" / "events.jsonl"
        deadline = time.monotonic() + 20
        while '"work.accepted"' not in (log.read_text() if log.exists() else ""):
            assert serving.poll() is None, serving.communicate()
            assert time.monotonic() < deadline, "serve did not drive the goal"
            time.sleep(0.05)
        serving.send_signal(signum)
        _, stderr = serving.communicate(timeout=10)
    finally:
        if serving.poll() is None:
            serving.kill()
            serving.wait()
    assert serving.returncode == 0, stderr
    shown = harn.json("supervisor", "show", "goal-serve")
    assert shown["state"] == "succeeded"
    accepted = [json.loads(line) for line in log.read_text().splitlines() if '"work.accepted"' in line]
    assert [e["actor"] for e in accepted] == ["supervisor"]


def test_serve_refuses_a_goal_that_does_not_exist(harn: Harn) -> None:
    refused = harn("supervisor", "serve", "goal-nowhere", "--json", timeout=30)
    assert refused.returncode == 4 and "goal-nowhere" in refused.stdout
