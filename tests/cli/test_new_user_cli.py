"""What a new user meets first, through `harn` as a subprocess: the shipped mission example runs to success,
budget exhaustion names its cause, argument errors help, and text mode prints text for people."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Harn


def _pending(harn: Harn) -> list[dict[str, str]]:
    return list(harn.json("pending")["pending"])


def test_the_example_mission_runs_to_success(harn: Harn, examples: Path) -> None:
    created = harn(
        "supervisor",
        "create",
        "--team",
        str(examples / "team.json"),
        "--replanning",
        str(examples / "replanning.json"),
        "--mission",
        str(examples / "mission.json"),
        "--id",
        "mission-goal",
    )
    assert created.returncode == 0, created.stderr
    first = harn("supervisor", "run", "mission-goal")
    assert first.returncode == 0, first.stderr
    assert "stopped: needs_human" in first.stdout and "budget_exhausted" not in first.stdout
    plan_id = harn.json("supervisor", "show", "mission-goal")["pending_plan_id"]
    assert plan_id is not None
    assert harn("supervisor", "plan", "approve", "mission-goal", plan_id, "--reason", "go").returncode == 0
    harn("supervisor", "run", "mission-goal")
    [approval] = _pending(harn)
    assert approval["kind"] == "approval"
    assert harn("approval", "approve", approval["approval_id"], "--reason", "fine").returncode == 0
    for _ in range(2):
        harn("supervisor", "run", "mission-goal")
        [review] = _pending(harn)
        assert review["kind"] == "review_work", review
        assert harn("work", "accept", review["work_id"]).returncode == 0
    harn("supervisor", "run", "mission-goal")
    [completion] = _pending(harn)
    assert completion["kind"] == "review_plan"
    assert (
        harn("supervisor", "plan", "approve", "mission-goal", completion["plan_id"], "--reason", "done").returncode == 0
    )
    shown = harn.json("supervisor", "show", "mission-goal")
    assert (shown["state"], shown["reason"], shown["milestones_completed"]) == (
        "succeeded",
        "the mission is complete",
        1,
    )
    assert harn("verify").returncode == 0


def test_replan_exhaustion_says_how_many_plans_failed_and_why(harn: Harn, examples: Path) -> None:
    # a planner that never proposes a milestone: every plan of a mission fails validation
    (examples / "planner.py").write_text(
        "import json, sys\njson.load(sys.stdin)\n"
        "print(json.dumps({'decision': 'apply', 'rationale': 'r', 'work': [{'key': 'a', 'title': 't',"
        " 'objective': 'o', 'acceptance': [], 'dependencies': [], 'template': 'implement'}]}))\n"
    )
    replanning = json.loads((examples / "replanning.json").read_text())
    replanning["max_replans"] = 2
    (examples / "replanning.json").write_text(json.dumps(replanning))
    assert (
        harn(
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
        ).returncode
        == 0
    )
    run = harn("supervisor", "run", "g")
    assert "stopped: budget_exhausted" in run.stdout, run.stdout
    reason = harn.json("supervisor", "show", "g")["reason"]
    assert reason.startswith("replan budget exhausted: all 2 replan slots are used (2 failed)"), reason
    assert "2 plans failed, the last (plan-0002-" in reason
    assert "a mission's apply decision needs a milestone" in reason


def test_help_is_a_command(harn: Harn) -> None:
    top, work = harn("help"), harn("help", "work", "create")
    assert (top.returncode, work.returncode) == (0, 0)
    assert top.stdout.startswith("usage: harn ") and work.stdout.startswith("usage: harn work create ")
    assert "the executable template file that runs each attempt" in work.stdout
    assert "what the work must achieve" in work.stdout and "attempts before the item blocks" in work.stdout


def test_an_argument_error_is_one_line_naming_the_verb_with_a_usage_hint(harn: Harn) -> None:
    missing = harn("work", "create", "A title")
    [line] = missing.stderr.splitlines()
    assert missing.returncode == 2 and not line.startswith("harn: harn")
    assert line == (
        "harn: work create: the following arguments are required: template, --objective (try 'harn work create --help')"
    )
    as_json = harn("work", "create", "A title", "--json")
    assert as_json.returncode == 2
    assert json.loads(as_json.stdout)["error"]["message"].startswith("work create: the following arguments")


def test_a_mistyped_verb_gets_the_closest_one(harn: Harn) -> None:
    group, verb = harn("wrok", "list"), harn("supervisor", "plan", "aprove", "g", "p")
    assert (group.returncode, verb.returncode) == (2, 2)
    assert "did you mean 'work'? (try 'harn --help')" in group.stderr
    assert "harn: supervisor plan: " in verb.stderr and "did you mean 'approve'?" in verb.stderr
    assert "did you mean" not in harn("zzzzzz").stderr


def test_json_and_root_are_accepted_after_a_group(harn: Harn, root: Path) -> None:
    listed = harn("work", "--json", "list")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == {"work": []}
    nested = harn("supervisor", "--json", "plan", "--json", "list", "no-goal")
    assert nested.returncode == 4 and json.loads(nested.stdout)["error"]["code"] == "not_found"


def test_an_unknown_schema_record_is_a_usage_error(harn: Harn) -> None:
    unknown = harn("schema", "no-such-record")
    assert unknown.returncode == 2 and "no record named 'no-such-record'; records: goal, " in unknown.stderr


def test_a_reader_that_closes_stdout_early_gets_no_traceback(root: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import harn_env

    piped = subprocess.run(
        f"'{sys.executable}' -m harn_tui --root '{root}' schema --json | head -c 10",
        shell=True,
        capture_output=True,
        text=True,
        env=harn_env(),
        timeout=60,
    )
    assert piped.stdout == '{\n  "goal"'[:10] and piped.stderr == "", piped.stderr


def test_every_kind_of_output_to_a_reader_already_gone_ends_quietly(harn: Harn) -> None:
    """Stdout is a pipe whose reader has closed (`harn work list | grep -q x` once grep has matched): help, text,
    documents and error documents end with no traceback, and an error keeps its exit code."""
    import os
    import subprocess
    import sys

    from tests.conftest import harn_env

    assert harn("work", "create", "Read", sys.executable, "--objective", "o", "--id", "w1").returncode == 0
    for argv, code in (
        (["--help"], 0),
        (["work", "--help"], 0),
        (["schema"], 0),
        (["work", "list"], 0),
        (["no-such-verb", "--json"], 2),
        (["work", "show", "no-such-item", "--json"], 4),
    ):
        read, write = os.pipe()
        os.close(read)
        try:
            done = subprocess.run(
                [sys.executable, "-m", "harn_tui", "--root", str(harn.root), *argv],
                stdout=write,
                stderr=subprocess.PIPE,
                text=True,
                env=harn_env(),
                timeout=60,
            )
        finally:
            os.close(write)
        assert (done.returncode, done.stderr) == (code, ""), argv


def test_text_mode_is_for_people(harn: Harn, examples: Path) -> None:
    """Without --json: no JSON document and no Python `None`; an approval shows its question."""
    template = str(examples / "templates" / "investigate.py")
    created = harn(
        "work",
        "create",
        "Read the logs",
        template,
        "--objective",
        "Find the cause",
        "--accept",
        "cause",
        "--id",
        "logs",
    )
    assert created.returncode == 0, created.stderr
    assert created.stdout.startswith("logs  ready/run  Read the logs\n")
    assert "objective: Find the cause" in created.stdout
    harn("work", "run", "logs")
    outputs = {
        name: harn(*argv)
        for name, argv in {
            "pending": ["pending"],
            "work show": ["work", "show", "logs"],
            "approval list": ["approval", "list"],
            "schema": ["schema"],
            "work list": ["work", "list"],
        }.items()
    }
    for name, done in outputs.items():
        assert done.returncode == 0, (name, done.stderr)
        assert not done.stdout.lstrip().startswith(("{", "[")) and "None" not in done.stdout, (name, done.stdout)
    assert "  question: May I read the production logs?" in outputs["pending"].stdout
    assert "goal=" not in outputs["pending"].stdout  # standalone work: no goal, and no `goal=None`
    assert "May I read the production logs?" in outputs["approval list"].stdout
    assert outputs["schema"].stdout.splitlines()[:2] == ["goal", "work"]
    [row] = harn.json("pending")["pending"]
    assert "question" not in row  # the JSON document keeps the contract's fields
    approval_id = row["approval_id"]
    shown = harn("approval", "show", approval_id)
    assert shown.stdout.startswith(f"{approval_id}  pending  work logs: May I read the production logs?")
    assert "details: Read-only, last 24 hours." in shown.stdout


def test_plan_show_text_is_short(harn: Harn, examples: Path) -> None:
    assert (
        harn(
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
        ).returncode
        == 0
    )
    harn("supervisor", "run", "g")
    plan_id = harn.json("supervisor", "show", "g")["pending_plan_id"]
    shown = harn("supervisor", "plan", "show", "g", plan_id)
    lines = shown.stdout.splitlines()
    assert shown.returncode == 0 and len(lines) < 20, shown.stdout
    assert lines[0] == f"plan 1: {plan_id}  initial  proposed"
    assert "    investigate  [investigate]  Find why the last attempt failed" in lines
    assert "    critic: approve (Small, ordered, and every step is checkable.)" in lines
    assert "reply_schema" not in shown.stdout and "None" not in shown.stdout


def test_demo_without_the_console_prints_where_its_tree_is(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import harn_env

    built = subprocess.run(
        [sys.executable, "-m", "harn_tui", "demo", "--no-tui", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        env=harn_env(),
        timeout=300,
    )
    assert built.returncode == 0, built.stderr
    lines = built.stdout.splitlines()
    assert lines[0] == f"built the demo tree in {tmp_path / 'demo'}"
    assert lines[1].startswith("demo-1-job-queue  awaiting_attention/review_plan  ")
    assert lines[-1] == f"open it with: harn --root {tmp_path / 'demo'} tui"


def _first_serve_line(root: Path, *args: str) -> str:
    """Start `harn supervisor serve`, wait (generously) for its first line, then interrupt it."""
    import select
    import signal
    import subprocess
    import sys
    import time

    from tests.conftest import harn_env

    serving = subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(root), "supervisor", "serve", *args, "--wake-interval", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=harn_env(),
    )
    try:
        assert serving.stdout is not None
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            ready, _, _ = select.select([serving.stdout], [], [], 1)
            if ready:
                return serving.stdout.readline()
        raise AssertionError("serve printed nothing in 90 s")
    finally:
        serving.send_signal(signal.SIGINT)
        serving.wait(timeout=60)


def test_serve_prints_a_line_per_tick_that_acted(harn: Harn, root: Path, examples: Path) -> None:
    assert (
        harn(
            "work", "create", "T", str(examples / "templates" / "implement.py"), "--objective", "O", "--id", "w"
        ).returncode
        == 0
    )
    assert (
        harn(
            "supervisor",
            "create",
            "--team",
            str(examples / "team.json"),
            "--replanning",
            str(examples / "replanning.json"),
            "--root-work",
            "w",
            "--id",
            "g",
        ).returncode
        == 0
    )
    text = _first_serve_line(root, "g")
    assert text == (
        "g: needs_human  (dispatches 1, acceptances 0, replans 0)  attempt w: passed  -> awaiting_attention/review\n"
    ), text
    assert harn("work", "reopen", "w", "--finding", "once more").returncode == 0
    line = json.loads(_first_serve_line(root, "--json", "g"))
    assert (line["goal_id"], line["dispatches"], line["outcomes"][0]["status"]) == ("g", 1, "passed")


def test_examples_copies_the_files_the_guide_uses(harn: Harn, tmp_path: Path) -> None:
    target = tmp_path / "files"
    copied = harn("examples", str(target))
    assert copied.returncode == 0, copied.stderr
    assert copied.stdout.startswith(f"copied the examples to {target}: mission.json, planner.py, ")
    for name in (
        "team.json",
        "replanning.json",
        "mission.json",
        "planner.py",
        "reviewer.py",
        "templates/implement.py",
        "templates/investigate.py",
        "templates/fail.py",
    ):
        assert (target / name).is_file(), name
    again = harn("examples", str(target))
    assert again.returncode == 3 and "exists and is not an empty directory" in again.stderr
