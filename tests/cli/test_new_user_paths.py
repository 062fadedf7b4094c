"""More of a new user's path, through `harn` as a subprocess: a template that cannot run is refused before it
costs an attempt."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Harn


def test_a_template_that_is_not_executable_is_bad_input_and_costs_nothing(harn: Harn, examples: Path) -> None:
    template = examples / "templates" / "implement.py"
    template.chmod(0o644)
    created = harn("work", "create", "Item", str(template), "--objective", "Do it.", "--id", "item")
    assert created.returncode == 2, created.stderr
    assert f"template file {template} is not executable: a template is run directly" in created.stderr
    missing = harn("work", "create", "Item", str(examples / "nope.py"), "--objective", "Do it.")
    assert missing.returncode == 2 and "does not exist" in missing.stderr
    goal = harn("supervisor", "create", "--team", str(examples / "team.json"),
                "--replanning", str(examples / "replanning.json"), "--mission", str(examples / "mission.json"),
                "--id", "g")
    assert goal.returncode == 2
    assert (f"replanning file {examples / 'replanning.json'}: template implement: template file {template} "
            "is not executable") in goal.stderr
    assert harn.json("work", "list") == {"work": []} and harn.json("supervisor", "list")["goals"] == []


def test_a_template_that_lost_its_execute_bit_refuses_the_run_and_records_nothing(harn: Harn, examples: Path) -> None:
    template = examples / "templates" / "implement.py"
    assert harn("work", "create", "Item", str(template), "--objective", "Do it.", "--id", "item").returncode == 0
    template.chmod(0o644)
    run = harn("work", "run", "item")
    assert run.returncode == 3 and "is no longer executable" in run.stderr, run.stderr
    events = (harn.root / ".harnery" / "work" / "item" / "events.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in events] == ["work.created"]
