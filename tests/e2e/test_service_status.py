"""Service status: a running `harn supervisor serve` keeps `service/<host>-<pid>.json` fresh, `harn supervisor
status` lists it, a SIGKILLed serve leaves a file reported stale (and removed by the next writer on this host), a
clean stop removes it; two serves on one goal both show and tick it one at a time (its `supervisor.lock`)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.service import read_services
from tests.conftest import Harn, harn_env


@pytest.fixture
def serves(root: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []

    def start(*goals: str, actor: str = "tester") -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "harn_tui",
                "--root",
                str(root),
                "--actor",
                actor,
                "supervisor",
                "serve",
                *goals,
                "--wake-interval",
                "0.2",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=harn_env(),
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.wait()


def wait_for(condition: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        found = condition()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def services(harn: Harn) -> list[dict[str, Any]]:
    """What `supervisor status --json` lists, read in this process (polled: a `harn` per poll is slow)."""
    found, problems = read_services(Layout(harn.root))
    assert problems == []
    return [seen.to_json() for seen in found]


def of_pid(harn: Harn, pid: int) -> dict[str, Any] | None:
    return next((s for s in services(harn) if s["pid"] == pid), None)


def make_goal(harn: Harn, examples: Path, template: Path, goal_id: str = "goal-status", *flags: str) -> str:
    harn.json(
        "work",
        "create",
        "Ship it",
        str(template),
        "--objective",
        "Ship.",
        "--accept",
        "shipped",
        "--id",
        f"{goal_id}-root",
        "--max-attempts",
        "3",
    )
    harn.json(
        "supervisor",
        "create",
        "--team",
        str(examples / "team.json"),
        "--root-work",
        f"{goal_id}-root",
        "--id",
        goal_id,
        *flags,
    )
    return goal_id


def test_a_serve_shows_in_status_goes_stale_when_killed_and_a_clean_stop_leaves_nothing(
    harn: Harn, root: Path, examples: Path, serves: Callable[..., subprocess.Popen[str]]
) -> None:
    goal_id = make_goal(harn, examples, examples / "templates" / "implement.py")
    first = serves(actor="alice")
    live = wait_for(lambda: (s := of_pid(harn, first.pid)) and s["rounds"] >= 1 and s, "the first round")
    assert (live["stale"], live["actor"], live["goals"], live["executor"]) == (False, "alice", [goal_id], "local")
    assert live["last_error"] is None and live["backoff_s"] == 0 and live["last_round_at"] is not None
    path = root / ".harnery" / "service" / f"{live['host']}-{first.pid}.json"
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    beat = live["heartbeat_at"]
    wait_for(lambda: (s := of_pid(harn, first.pid)) and s["heartbeat_at"] != beat, "a fresh heartbeat", 10)

    first.send_signal(signal.SIGKILL)
    first.wait()
    [dead] = [s for s in harn.json("supervisor", "status")["services"] if s["pid"] == first.pid]
    assert dead["stale"] is True, "a dead pid on this host is stale at once"
    text = harn("supervisor", "status")
    assert text.returncode == 0 and f"{live['host']}-{first.pid}  stale" in text.stdout

    second = serves()
    wait_for(lambda: of_pid(harn, second.pid), "the second serve's file")
    wait_for(lambda: of_pid(harn, first.pid) is None, "the dead serve's file removed by a writer on this host")
    second.send_signal(signal.SIGTERM)
    assert second.wait(timeout=15) == 0, second.stderr.read() if second.stderr else ""
    assert services(harn) == [] and not any((root / ".harnery" / "service").iterdir())


SLOW_FAIL = """#!/bin/sh
echo "start $(date +%s.%N) $PPID" >> "{log}"
sleep 0.6
echo "end $(date +%s.%N) $PPID" >> "{log}"
exit 1
"""


def test_two_serves_on_one_goal_both_show_and_tick_it_one_at_a_time(
    harn: Harn, root: Path, examples: Path, tmp_path: Path, serves: Callable[..., subprocess.Popen[str]]
) -> None:
    log = tmp_path / "attempts.log"
    template = tmp_path / "slow_fail.sh"
    template.write_text(SLOW_FAIL.format(log=log))
    template.chmod(0o755)
    goal_id = make_goal(harn, examples, template, "goal-shared", "--retry-blocked")
    one, two = serves(goal_id, actor="alice"), serves(goal_id, actor="bob")
    both = wait_for(
        lambda: len([s for s in services(harn) if not s["stale"]]) == 2 and services(harn), "both serve loops in status"
    )
    assert sorted(s["actor"] for s in both) == ["alice", "bob"] and all(s["goals"] == [goal_id] for s in both)
    wait_for(lambda: log.exists() and log.read_text().count("end ") == 3, "three attempts", 60)
    shown = harn.json("supervisor", "show", goal_id)
    assert shown["work"][0]["attempts_used"] == 3 and shown["state"] == "blocked"
    spans = _spans(log.read_text().splitlines())
    assert len(spans) == 3
    assert all(end <= start for (_, end), (start, _) in itertools.pairwise(spans)), spans
    assert one.poll() is None and two.poll() is None
    events = (root / ".harnery" / "work" / f"{goal_id}-root" / "events.jsonl").read_text().splitlines()
    assert [json.loads(e)["event"] for e in events].count("attempt.started") == 3
    for process in (one, two):
        os.kill(process.pid, signal.SIGTERM)
        assert process.wait(timeout=15) == 0


def _spans(lines: list[str]) -> list[tuple[float, float]]:
    starts = [float(line.split()[1]) for line in lines if line.startswith("start ")]
    ends = [float(line.split()[1]) for line in lines if line.startswith("end ")]
    return sorted(zip(starts, ends, strict=True))
