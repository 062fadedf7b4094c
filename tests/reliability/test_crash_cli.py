"""The crash matrix's few real `python -m harn_tui` processes: the trace a real process writes, a fault in a tick's
materialization, and a SIGKILL from outside while a template runs. (The matrix itself forks the CLI in-process.)"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harn_tui.core.layout import Layout
from tests.conftest import Harn, harn_env
from tests.reliability.conftest import Figures
from tests.reliability.crash_kit import check_after_kill, check_invariants, log_events, log_lines
from tests.reliability.transitions_under_test import (
    PASS_SH,
    build_attempt_tick,
    build_attention_tick,
    build_planning_tick,
    passing,
    shell_template,
    work_events,
)


def test_a_real_process_traces_the_points_it_reaches_in_the_documented_order(harn: Harn, tmp_path: Path) -> None:
    trace = tmp_path / "trace"
    created = harn(
        "work",
        "create",
        "Item",
        str(passing(tmp_path)),
        "--objective",
        "Do it.",
        "--accept",
        "done",
        "--id",
        "w1",
        env={"HARN_FAULT_TRACE": str(trace)},
    )
    assert created.returncode == 0, created.stderr
    assert trace.read_text().split() == [
        "lease.acquire",
        "lease.acquired",
        "write.temp",
        "write.fsync",
        "write.link",
        "write.linked",
        "append.write",
        "append.fsync",
        "append.fsynced",
        "lease.release",
        "lease.released",
    ]


def test_a_tick_killed_between_materialized_items_applies_the_plan_once_on_the_next_tick(
    harn: Harn, layout: Layout, tmp_path: Path, figures: Figures
) -> None:
    goal = build_planning_tick(layout, tmp_path)["goal"]
    killed = harn("supervisor", "tick", goal, "--json", env={"HARN_FAULT": "materialize.item:2"})
    assert killed.returncode == 137, killed.stderr
    figures.add("crash matrix: real harn processes killed", 1)
    check_after_kill(layout)
    shown = harn.json("supervisor", "show", goal)
    assert (shown["generation"], shown["latest_plan_status"]) == (0, "proposed"), shown["reason"]
    again = harn.json("supervisor", "tick", goal)
    assert again["goal"]["generation"] == 1
    plans = sorted(layout.goal(goal).glob("plans/*/events.jsonl"))
    assert [log_events(plan).count("plan.applied") for plan in plans] == [1]
    check_invariants(layout)


SLEEPY_SH = """#!/bin/sh
if [ -e "{flag}" ]; then
  rm "{flag}"
  echo $$ > "{pid}"
  sleep 30
fi
exec "{passing}"
"""


def test_a_tick_sigkilled_while_its_template_runs_leaves_a_lost_attempt_the_next_tick_retries(
    layout: Layout, tmp_path: Path, figures: Figures
) -> None:
    flag, pid_file = tmp_path / "sleep-once", tmp_path / "template.pid"
    flag.touch()
    real = shell_template(tmp_path, "real-pass.sh", PASS_SH)
    # the goal's template (pass.sh, frozen with its digest) sleeps on its first run only, then passes
    shell_template(tmp_path, "pass.sh", SLEEPY_SH.format(flag=flag, pid=pid_file, passing=real))
    goal = build_attempt_tick(layout, tmp_path)["goal"]
    tick = subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(layout.root), "supervisor", "tick", goal, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=harn_env(),
    )
    deadline = time.monotonic() + 30
    while not pid_file.exists() or not pid_file.read_text().strip():
        assert tick.poll() is None and time.monotonic() < deadline, tick.communicate()
        time.sleep(0.01)
    os.kill(tick.pid, signal.SIGKILL)
    tick.communicate(timeout=30)
    os.kill(int(pid_file.read_text()), signal.SIGKILL)
    figures.add("crash matrix: real harn processes killed", 1)
    check_after_kill(layout)
    started = [e for e in work_events(layout, "root-work") if e["event"] == "attempt.started"]
    assert len(started) == 1 and log_lines(layout.work("root-work") / "events.jsonl")[-1]["event"] == "attempt.started"
    again = subprocess.run(
        [sys.executable, "-m", "harn_tui", "--root", str(layout.root), "supervisor", "tick", goal, "--json"],
        capture_output=True,
        text=True,
        env=harn_env(),
        timeout=60,
    )
    assert again.returncode == 0, again.stderr
    events = work_events(layout, "root-work")
    finished = [(e["status"], e["reason"]) for e in events if e["event"] == "attempt.finished"]
    assert finished == [("failed", "lost"), ("passed", None)]
    check_invariants(layout)


def test_a_tick_killed_between_plan_proposed_and_plan_attention_is_completed_by_the_next_tick(
    harn: Harn, layout: Layout, tmp_path: Path, figures: Figures
) -> None:
    """Found by the matrix: the attention decision is two appends; a kill between them left the plan `proposed`
    with nothing to approve and no reason, and no tick ever completed it."""
    goal = build_attention_tick(layout, tmp_path)["goal"]
    killed = harn("supervisor", "tick", goal, "--json", env={"HARN_FAULT": "append.write:2"})
    assert killed.returncode == 137, killed.stderr
    figures.add("crash matrix: real harn processes killed", 1)
    shown = harn.json("supervisor", "show", goal)
    assert (shown["next_action"], shown["latest_plan_status"]) == ("review_plan", "proposed")
    tick = harn.json("supervisor", "tick", goal)
    plan = tick["goal"]["plans"][-1]
    assert (plan["status"], plan["reason"]) == ("attention", "A human must pick the queue library.")
    assert tick["goal"]["next_action"] == "retry_plan"
    plans = sorted(layout.goal(goal).glob("plans/*/events.jsonl"))
    assert [log_events(p) for p in plans] == [["plan.proposed", "plan.attention"]]
    retried = harn.json("supervisor", "plan", "retry", goal, plan["id"], "--reason", "Use the stdlib.")
    assert retried["outcome"] == "applied"
    check_invariants(layout)
