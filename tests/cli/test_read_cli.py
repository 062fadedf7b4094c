"""The read side and creation verbs of `harn`, driven as a subprocess exactly as SPEC section 8 says."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harn, harn_env, tree_bytes

SHOW_FIELDS = {
    "id",
    "title",
    "state",
    "next_action",
    "reason",
    "root_work_id",
    "generation",
    "attempts_used",
    "attempts_remaining",
    "replans_used",
    "replans_remaining",
    "milestones_completed",
    "pending_plan_id",
    "attention_plan_id",
    "latest_plan_status",
    "governed_work_ids",
    "work",
    "plans",
    "problems",
}


def create_root_work(harn: Harn, examples: Path, work_id: str = "w-root") -> Any:
    return harn.json(
        "work",
        "create",
        "Make the queue durable",
        str(examples / "templates" / "implement.py"),
        "--objective",
        "No job is lost",
        "--accept",
        "crash test passes",
        "--id",
        work_id,
    )


def test_readme_flow_creates_work_and_a_goal_and_shows_the_projection(harn: Harn, examples: Path) -> None:
    work = create_root_work(harn, examples)
    assert (work["id"], work["state"], work["next_action"], work["goal_id"]) == ("w-root", "ready", "run", None)
    assert work["events"][0]["event"] == "work.created" and work["events"][0]["actor"] == "tester"
    goal = harn.json(
        "supervisor",
        "create",
        "--team",
        str(examples / "team.json"),
        "--replanning",
        str(examples / "replanning.json"),
        "--root-work",
        "w-root",
        "--id",
        "g-1",
    )
    assert set(goal) >= SHOW_FIELDS
    shown = harn.json("supervisor", "show", "g-1")
    assert shown == goal
    assert (shown["state"], shown["next_action"], shown["root_work_id"]) == ("ready", "run", "w-root")
    assert set(shown["work"][0]) >= {
        "id",
        "title",
        "state",
        "next_action",
        "active",
        "attempts_used",
        "max_attempts",
        "dependencies",
        "open_findings",
    }
    assert harn.json("verify") == {"ok": True, "problems": []}
    frozen = json.loads((harn.root / ".harnery/supervisors/g-1/goal.json").read_text())
    implement = frozen["replanning"]["templates"]["implement"]
    assert Path(implement["path"]).is_absolute() and len(implement["sha256"]) == 64
    assert Path(frozen["team"]["planner"]["argv"][1]).is_absolute(), "./planner.py frozen as an absolute path"


@pytest.mark.parametrize("bad", ["..", "../etc", "a/b", "", "x" * 101, "-dash", "tab\there"])
def test_ids_with_path_tricks_are_bad_input_and_touch_nothing(harn: Harn, bad: str) -> None:
    before = tree_bytes(harn.root)
    for args in (("work", "show", bad), ("supervisor", "show", bad), ("work", "cancel", bad, "--reason", "x")):
        result = harn(*args, "--json")
        assert result.returncode == 2, (args, result.stdout, result.stderr)
        assert json.loads(result.stdout)["error"]["code"] == "usage"
    assert tree_bytes(harn.root) == before
    assert not any(p.name.startswith("..") for p in (harn.root / ".harnery").rglob("*"))


def test_unknown_addresses_are_not_found(harn: Harn) -> None:
    assert harn.json("supervisor", "show", "goal-nope", expect=4)["error"]["code"] == "not_found"
    assert harn.json("work", "show", "work-nope", expect=4)["error"]["code"] == "not_found"
    assert harn.json("schema", "nonsense", expect=2)["error"]["code"] == "usage"


def test_creation_refusals_name_their_rule(harn: Harn, examples: Path) -> None:
    create_root_work(harn, examples)
    team = str(examples / "team.json")
    replanning = str(examples / "replanning.json")
    bad_team = examples / "bad-team.json"
    bad_team.write_text(
        json.dumps({"planner": {"adapter": "command", "argv": ["x"], "instructions": "i", "colour": "red"}})
    )
    cases = [
        (("--team", team, "--root-work", "w-missing"), 4, "does not exist"),
        (("--team", team, "--mission", str(examples / "mission.json")), 2, "requires --replanning"),
        (("--team", team), 2, "--mission or --root-work"),
        (("--team", str(bad_team), "--root-work", "w-root"), 2, "colour"),
        (("--team", team, "--root-work", "w-root", "--max-total-attempts", "0"), 2, "max_total_attempts"),
    ]
    for args, code, text in cases:
        result = harn("supervisor", "create", *args, "--json")
        assert result.returncode == code, (args, result.stdout, result.stderr)
        assert text in json.loads(result.stdout)["error"]["message"], args
    (examples / "templates" / "investigate.py").unlink()
    result = harn("supervisor", "create", "--team", team, "--replanning", replanning, "--root-work", "w-root")
    assert result.returncode == 2 and "does not exist" in result.stderr
    assert list((harn.root / ".harnery" / "supervisors").iterdir()) == []


def test_planner_must_be_a_team_member(harn: Harn, examples: Path) -> None:
    create_root_work(harn, examples)
    data = json.loads((examples / "replanning.json").read_text())
    (examples / "replanning.json").write_text(json.dumps({**data, "planner": "stranger"}))
    result = harn(
        "supervisor",
        "create",
        "--team",
        str(examples / "team.json"),
        "--replanning",
        str(examples / "replanning.json"),
        "--root-work",
        "w-root",
        "--json",
    )
    assert result.returncode == 2 and "not a member of the team" in result.stdout


def test_an_existing_id_is_refused(harn: Harn, examples: Path) -> None:
    create_root_work(harn, examples)
    again = harn(
        "work",
        "create",
        "T",
        str(examples / "templates" / "implement.py"),
        "--objective",
        "O",
        "--id",
        "w-root",
        "--json",
    )
    assert again.returncode == 3 and "already exists" in again.stdout


def test_bounds_are_checked_before_anything_is_written(harn: Harn, examples: Path) -> None:
    before = tree_bytes(harn.root)
    result = harn("work", "create", "x" * 201, str(examples / "templates" / "implement.py"), "--objective", "O")
    assert result.returncode == 2 and "title" in result.stderr
    assert tree_bytes(harn.root) == before


def test_root_discovery_env_and_upward_search(harn: Harn, tmp_path: Path) -> None:
    nested = harn.root / "deep" / "er"
    nested.mkdir(parents=True)
    base = [sys.executable, "-m", "harn_tui"]
    upward = subprocess.run([*base, "verify", "--json"], cwd=nested, capture_output=True, text=True, env=harn_env())
    assert upward.returncode == 0
    via_env = subprocess.run(
        [*base, "verify"], cwd=tmp_path, capture_output=True, text=True, env=harn_env({"HARN_ROOT": str(harn.root)})
    )
    assert via_env.returncode == 0
    lost = tmp_path / "elsewhere"
    lost.mkdir()
    nowhere = subprocess.run([*base, "pending", "--json"], cwd=lost, capture_output=True, text=True, env=harn_env())
    assert nowhere.returncode == 4 and json.loads(nowhere.stdout)["error"]["code"] == "not_found"


def test_actor_and_json_are_accepted_before_and_after_the_verb(harn: Harn, examples: Path) -> None:
    template = str(examples / "templates" / "implement.py")
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "harn_tui",
            "--actor",
            "carol",
            "--root",
            str(harn.root),
            "work",
            "create",
            "T",
            template,
            "--objective",
            "O",
            "--id",
            "w1",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=harn_env(),
    )
    assert result.returncode == 0 and json.loads(result.stdout)["events"][0]["actor"] == "carol"
    shown = harn("work", "show", "w1", "--actor", "dave", "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["id"] == "w1"
    bad_actor = harn("work", "create", "T", template, "--objective", "O", "--actor", "../x", "--json")
    assert bad_actor.returncode == 2


def test_usage_errors_print_the_json_error_document(harn: Harn) -> None:
    result = harn("supervisor", "frobnicate", "--json")
    assert result.returncode == 2 and json.loads(result.stdout)["error"]["code"] == "usage"
    plain = harn("work", "reopen")
    assert plain.returncode == 2 and plain.stderr.startswith("harn:") and plain.stdout == ""


def test_schema_prints_every_record(harn: Harn) -> None:
    everything = harn.json("schema")
    assert {"goal", "work", "proposal", "review", "manifest", "proof", "work-event", "plan-event"} <= set(everything)
    assert "title" in harn.json("schema", "work")["properties"]


def test_pending_lists_nothing_on_a_fresh_tree_and_fault_points_are_listed(harn: Harn) -> None:
    assert harn.json("pending") == {"pending": []}
    assert "write.link" in harn.json("fault-points")["points"]


def test_init_is_idempotent_and_creates_the_layout(tmp_path: Path) -> None:
    for _ in range(2):
        result = subprocess.run(
            [sys.executable, "-m", "harn_tui", "--root", str(tmp_path), "init"],
            capture_output=True,
            text=True,
            env=harn_env(),
        )
        assert result.returncode == 0
    names = sorted(p.name for p in (tmp_path / ".harnery").iterdir())
    assert names == [".gitignore", "approvals", "cache", "presence", "runs", "service", "supervisors", "work"]
    assert oct(os.stat(tmp_path / ".harnery" / "work").st_mode & 0o777) == "0o700"
    assert (tmp_path / ".harnery" / ".gitignore").read_text() == "*\n", "nothing in the tree shows in a repository"


def test_an_approval_whose_work_was_cancelled_shows_as_moot(harn: Harn, examples: Path) -> None:
    harn.json(
        "work",
        "create",
        "Read logs",
        str(examples / "templates" / "investigate.py"),
        "--objective",
        "Read",
        "--accept",
        "logs read",
        "--id",
        "w-logs",
    )
    parked = harn.json("work", "run", "w-logs")
    approval = parked["approval_id"]
    shown = harn.json("approval", "show", approval)
    assert (shown["status"], shown["request"]["question"]) == ("pending", "May I read the production logs?")
    assert [row["kind"] for row in harn.json("pending")["pending"]] == ["approval"]
    harn.json("work", "cancel", "w-logs", "--reason", "not needed")
    assert harn.json("approval", "show", approval)["status"] == "moot"
    assert harn.json("approval", "list")["approvals"][0]["status"] == "moot"
    assert harn.json("pending") == {"pending": []}
    assert harn.json("approval", "approve", approval, expect=3)["error"]["code"] == "refused"
