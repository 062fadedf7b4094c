"""What a new user meets first, through `harn` as a subprocess: the shipped mission example runs to success,
budget exhaustion names its cause, argument errors help, and text mode prints text for people."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Harn


def _pending(harn: Harn) -> list[dict[str, str]]:
    return list(harn.json("pending")["pending"])


def test_the_example_mission_runs_to_success(harn: Harn, examples: Path) -> None:
    created = harn("supervisor", "create", "--team", str(examples / "team.json"),
                   "--replanning", str(examples / "replanning.json"), "--mission", str(examples / "mission.json"),
                   "--id", "mission-goal")
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
    assert harn("supervisor", "plan", "approve", "mission-goal", completion["plan_id"],
                "--reason", "done").returncode == 0
    shown = harn.json("supervisor", "show", "mission-goal")
    assert (shown["state"], shown["reason"], shown["milestones_completed"]) == (
        "succeeded", "the mission is complete", 1)
    assert harn("verify").returncode == 0


def test_replan_exhaustion_says_how_many_plans_failed_and_why(harn: Harn, examples: Path) -> None:
    # a planner that never proposes a milestone: every plan of a mission fails validation
    (examples / "planner.py").write_text(
        "import json, sys\njson.load(sys.stdin)\n"
        "print(json.dumps({'decision': 'apply', 'rationale': 'r', 'work': [{'key': 'a', 'title': 't',"
        " 'objective': 'o', 'acceptance': [], 'dependencies': [], 'template': 'implement'}]}))\n")
    replanning = json.loads((examples / "replanning.json").read_text())
    replanning["max_replans"] = 2
    (examples / "replanning.json").write_text(json.dumps(replanning))
    assert harn("supervisor", "create", "--team", str(examples / "team.json"), "--replanning",
                str(examples / "replanning.json"), "--mission", str(examples / "mission.json"),
                "--id", "g").returncode == 0
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
    assert line == ("harn: work create: the following arguments are required: template, --objective "
                    "(try 'harn work create --help')")
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

    piped = subprocess.run(f"'{sys.executable}' -m harn_tui --root '{root}' schema | head -c 10",
                           shell=True, capture_output=True, text=True, env=harn_env(), timeout=60)
    assert piped.stdout == '{\n  "goal"'[:10] and piped.stderr == "", piped.stderr
