"""What the crash matrix found: a creation killed before its first record is linked left a directory that `verify`
reported (and `supervisor list` showed as a corrupt goal) forever, and a `work create` killed between
`intent.json` and `work.created` could never be completed. Real `harn` processes, killed by `HARN_FAULT`."""

from __future__ import annotations

from pathlib import Path
from subprocess import CompletedProcess

from harn_tui.core.layout import Layout
from tests.conftest import Harn
from tests.plan_builders import events_of
from tests.reliability.conftest import Figures

KILLED = 137


def create_goal(harn: Harn, examples: Path, fault: str | None = None) -> CompletedProcess[str]:
    return harn(
        "supervisor",
        "create",
        "--team",
        str(examples / "team.json"),
        "--root-work",
        "root-w",
        "--id",
        "goal-new",
        "--json",
        env={"HARN_FAULT": fault} if fault else None,
    )


def test_a_supervisor_create_killed_before_goal_json_leaves_nothing_a_reader_reports(
    harn: Harn, layout: Layout, examples: Path, figures: Figures
) -> None:
    figures.add("crash matrix: real harn processes killed", 1)
    harn.json(
        "work",
        "create",
        "Root",
        str(examples / "templates" / "implement.py"),
        "--objective",
        "Do it.",
        "--id",
        "root-w",
    )
    assert create_goal(harn, examples, fault="write.link:1").returncode == KILLED
    assert layout.goal("goal-new").is_dir() and not (layout.goal("goal-new") / "goal.json").exists()
    assert harn.json("verify") == {"ok": True, "problems": []}
    assert harn.json("supervisor", "list")["goals"] == []
    repeat = create_goal(harn, examples)
    assert repeat.returncode == 0, repeat.stdout
    assert [goal["id"] for goal in harn.json("supervisor", "list")["goals"]] == ["goal-new"]


def work_create(
    harn: Harn, examples: Path, objective: str = "Do it.", fault: str | None = None
) -> CompletedProcess[str]:
    return harn(
        "work",
        "create",
        "Item",
        str(examples / "templates" / "implement.py"),
        "--objective",
        objective,
        "--id",
        "w-new",
        "--json",
        env={"HARN_FAULT": fault} if fault else None,
    )


def test_a_work_create_killed_before_intent_json_is_ignored_and_completed_by_the_repeat(
    harn: Harn, layout: Layout, examples: Path, figures: Figures
) -> None:
    figures.add("crash matrix: real harn processes killed", 1)
    assert work_create(harn, examples, fault="lease.acquired:1").returncode == KILLED
    assert layout.work("w-new").is_dir()
    assert harn.json("verify") == {"ok": True, "problems": []}
    assert harn.json("work", "list")["work"] == []
    assert work_create(harn, examples).returncode == 0
    assert [e["event"] for e in events_of(layout, "w-new")] == ["work.created"]


def test_a_work_create_killed_between_intent_and_work_created_is_completed_once_by_the_same_request(
    harn: Harn, layout: Layout, examples: Path, figures: Figures
) -> None:
    figures.add("crash matrix: real harn processes killed", 1)
    assert work_create(harn, examples, fault="append.write:1").returncode == KILLED
    assert (layout.work("w-new") / "intent.json").is_file()
    other = work_create(harn, examples, objective="Something else.")
    assert other.returncode == 3 and "already exists" in other.stdout
    assert work_create(harn, examples).returncode == 0
    again = work_create(harn, examples)
    assert again.returncode == 3 and "already exists" in again.stdout
    assert [e["event"] for e in events_of(layout, "w-new")] == ["work.created"]
    assert harn.json("verify") == {"ok": True, "problems": []}


def test_an_attempt_start_killed_before_its_manifest_leaves_a_run_directory_verify_ignores(
    harn: Harn, layout: Layout, examples: Path, figures: Figures
) -> None:
    figures.add("crash matrix: real harn processes killed", 1)
    assert work_create(harn, examples).returncode == 0
    killed = harn("work", "run", "w-new", "--json", env={"HARN_FAULT": "write.temp:1"})
    assert killed.returncode == KILLED
    runs = list(layout.runs.iterdir())
    assert len(runs) == 1 and not (runs[0] / "manifest.json").exists()
    assert harn.json("verify") == {"ok": True, "problems": []}
    assert harn.json("work", "run", "w-new")["status"] == "passed"


def test_a_run_directory_an_event_names_still_needs_its_manifest(harn: Harn, layout: Layout, examples: Path) -> None:
    assert work_create(harn, examples).returncode == 0
    run_id = harn.json("work", "run", "w-new")["run_id"]
    (layout.run(run_id) / "manifest.json").unlink()
    (layout.run(run_id) / "proof.json").unlink()
    problems = harn.json("verify", expect=5)["problems"]
    assert {"path": str(layout.run(run_id) / "manifest.json"), "problem": "missing"} in problems
