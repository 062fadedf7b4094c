"""More of a new user's path, through `harn` as a subprocess: a template that cannot run is refused before it
costs an attempt; `init` never nests a tree by accident; the demo says where its tree is; Ctrl-C during an attempt
is recorded when it happens."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Harn, harn_env


def test_a_template_that_is_not_executable_is_bad_input_and_costs_nothing(harn: Harn, examples: Path) -> None:
    template = examples / "templates" / "implement.py"
    template.chmod(0o644)
    created = harn("work", "create", "Item", str(template), "--objective", "Do it.", "--id", "item")
    assert created.returncode == 2, created.stderr
    assert f"template file {template} is not executable: a template is run directly" in created.stderr
    missing = harn("work", "create", "Item", str(examples / "nope.py"), "--objective", "Do it.")
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    goal = harn(
        "supervisor",
        "create",
        "--team",
        str(examples / "team.json"),
        "--replanning",
        str(examples / "replanning.json"),
        "--mission",
        str(examples / "mission.json"),
        "--id",
        "g",
    )
    assert goal.returncode == 2
    assert (
        f"replanning file {examples / 'replanning.json'}: template implement: template file {template} "
        "is not executable"
    ) in goal.stderr
    assert harn.json("work", "list") == {"work": []} and harn.json("supervisor", "list")["goals"] == []


def test_a_template_that_lost_its_execute_bit_refuses_the_run_and_records_nothing(harn: Harn, examples: Path) -> None:
    template = examples / "templates" / "implement.py"
    assert harn("work", "create", "Item", str(template), "--objective", "Do it.", "--id", "item").returncode == 0
    template.chmod(0o644)
    run = harn("work", "run", "item")
    assert run.returncode == 3 and "is no longer executable" in run.stderr, run.stderr
    events = (harn.root / ".harnery" / "work" / "item" / "events.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in events] == ["work.created"]


def _harn_in(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`harn` run from `directory`, without --root (the tree is found, or made, from there)."""
    return subprocess.run(
        [sys.executable, "-m", "harn_tui", *args],
        cwd=directory,
        capture_output=True,
        text=True,
        env=harn_env(),
        timeout=60,
    )


def test_init_in_a_subdirectory_of_a_tree_refuses_naming_the_enclosing_tree(tmp_path: Path) -> None:
    top = tmp_path / "project"
    (top / "src").mkdir(parents=True)
    assert _harn_in(top, "init").returncode == 0
    nested = _harn_in(top / "src", "init")
    assert nested.returncode == 3, nested.stderr
    assert f"{top / 'src'} is inside the tree at {top}" in nested.stderr
    assert f"harn init --root {top / 'src'}" in nested.stderr and not (top / "src" / ".harnery").exists()
    assert _harn_in(top / "src", "init", "--root", str(top / "src")).returncode == 0  # on purpose: a tree of its own


def test_a_root_naming_harnery_is_the_directory_holding_it_and_verify_flags_a_nested_one(tmp_path: Path) -> None:
    top = tmp_path / "project"
    top.mkdir()
    made = _harn_in(tmp_path, "init", "--root", str(top / ".harnery"), "--json")
    assert made.returncode == 0 and json.loads(made.stdout)["harnery"] == str(top / ".harnery")
    assert not (top / ".harnery" / ".harnery").exists()
    listed = _harn_in(tmp_path, "work", "list", "--root", str(top / ".harnery"), "--json")
    assert listed.returncode == 0 and json.loads(listed.stdout) == {"work": []}, listed.stderr
    (top / ".harnery" / ".harnery" / "work").mkdir(parents=True)  # as an older harn made it
    verified = _harn_in(top, "verify", "--json")
    assert verified.returncode == 5
    [problem] = json.loads(verified.stdout)["problems"]
    assert problem["path"] == str(top / ".harnery" / ".harnery") and "nested inside the tree" in problem["problem"]


def test_demo_builds_at_root_and_refuses_two_places(tmp_path: Path) -> None:
    built = _harn_in(tmp_path, "demo", "--no-tui", "--root", str(tmp_path / "here"))
    assert built.returncode == 0, built.stderr
    assert built.stdout.splitlines()[0] == f"built the demo tree in {tmp_path / 'here'}"
    two = _harn_in(tmp_path, "--root", str(tmp_path / "a"), "demo", "--no-tui", str(tmp_path / "b"))
    assert two.returncode == 2 and "name two places; give one" in two.stderr
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


SLEEPER = """#!/bin/sh
echo $$ > "$SLEEPER_PID"
echo started
exec sleep 120
"""


def test_ctrl_c_during_work_run_records_the_interrupt_uncharged(harn: Harn, tmp_path: Path) -> None:
    template = tmp_path / "sleeper.sh"
    template.write_text(SLEEPER)
    template.chmod(0o755)
    assert harn("work", "create", "Item", str(template), "--objective", "Do it.", "--id", "item").returncode == 0
    pid_file = tmp_path / "sleeper.pid"
    running = subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(harn.root), "work", "run", "item"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=harn_env({"SLEEPER_PID": str(pid_file)}),
    )
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text().strip()):
        assert time.monotonic() < deadline and running.poll() is None, "the template never started"
        time.sleep(0.05)
    running.send_signal(signal.SIGINT)  # what the terminal's Ctrl-C sends the foreground harn
    _, stderr = running.communicate(timeout=60)
    assert running.returncode == 130
    assert "harn: interrupted: attempt 1 of work item (" in stderr and "recorded failed, uncharged" in stderr, stderr
    events = [
        json.loads(line)
        for line in (harn.root / ".harnery" / "work" / "item" / "events.jsonl").read_text().splitlines()
    ]
    finished = events[-1]
    assert (finished["event"], finished["status"], finished["class"], finished["actor"]) == (
        "attempt.finished",
        "failed",
        "environment",
        "tester",
    )
    assert finished["reason"] == "interrupted by the operator (SIGINT) while the template ran"
    shown = harn.json("work", "show", "item")
    assert (shown["state"], shown["next_action"], shown["attempts"][0]["class"]) == ("blocked", "retry", "environment")
    with pytest.raises(ProcessLookupError):  # the template was stopped with it
        os.kill(int(pid_file.read_text()), 0)


def test_two_goals_on_one_root_get_a_warning_and_work_show_names_both(harn: Harn, examples: Path) -> None:
    template = str(examples / "templates" / "implement.py")
    assert harn("work", "create", "Root", template, "--objective", "Do it.", "--id", "root").returncode == 0
    team = str(examples / "team.json")
    first = harn("supervisor", "create", "--team", team, "--root-work", "root", "--id", "goal-b")
    assert first.returncode == 0 and "warning" not in first.stdout
    second = harn("supervisor", "create", "--team", team, "--root-work", "root", "--id", "goal-a")
    assert second.returncode == 0, second.stderr
    assert second.stdout.splitlines()[-1] == (
        "warning: work root is also in the graph of goal goal-b: the goals "
        "share it, and goal goal-a (the first by id) governs its attempts"
    )
    shown = harn.json("work", "show", "root")
    assert (shown["goal_id"], shown["also_goal_ids"]) == ("goal-a", ["goal-b"])
    assert "  also in the graph of goal goal-b (goal goal-a governs it)" in harn("work", "show", "root").stdout
