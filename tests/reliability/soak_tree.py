"""The race soak's starting tree: the demo's goals plus soak goals whose templates and reviewers flip coins.

Everything is built through the core and the real supervisor (no hand-written events): `harn demo`'s five
scenarios (a proposal awaiting review, an attention plan awaiting retry, work in review with findings, a parked
approval, a goal that succeeded after a replan), then soak goals whose root template passes, fails or parks at
random and whose reviewer approves or asks for attention at random, with small budgets so that the race also
runs into every budget, and two standalone items (their own lease). During the soak the driver keeps fresh
material coming: a new root that races as standalone work until `adopt` makes it a goal's root (the owner of
the work changes under the racers), and more standalone items.
"""

from __future__ import annotations

import json
import shutil
import stat
import sys
from pathlib import Path
from typing import Any

from harn_tui.core.creation import GoalOptions, create_supervisor, create_work
from harn_tui.core.demo import build_demo
from harn_tui.core.layout import Layout
from harn_tui.core.supervisor import run_goal

EXAMPLES = Path(__file__).resolve().parent.parent / "fixtures" / "examples"
ASSETS = "soak-assets"

COIN_TEMPLATE = """
import datetime, json, os, random, sys, time
manifest = json.load(open(os.environ["HARN_MANIFEST"]))
time.sleep(random.random() * 0.15)
decision_path = os.environ.get("HARN_APPROVAL")
if decision_path:
    verdict = json.load(open(decision_path))["verdict"]
    outcome = "pass" if verdict == "approve" else "deny"
else:
    roll = random.random()
    outcome = "pass" if roll < 0.45 else "fail" if roll < 0.75 else "park"
if outcome == "park":
    with open(os.path.join(os.environ["HARN_RUN_DIR"], "approval-request.json"), "w") as f:
        json.dump({"question": "May the soak go ahead?", "details": "a coin said ask first"}, f)
    sys.exit(75)
passed = outcome == "pass"
proof = {"schema_version": 1, "run_id": os.environ["HARN_RUN_ID"], "status": "succeeded" if passed else "failed",
         "summary": f"the coin said {outcome}",
         "acceptance": [{"criterion": c, "status": "satisfied" if passed else "unsatisfied", "evidence": outcome}
                        for c in manifest["work"]["acceptance"]],
         "class": "decision" if outcome == "deny" else None,
         "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}
json.dump(proof, open(os.environ["HARN_PROOF"], "w"))
"""

COIN_REVIEWER = """
import json, random, sys
request = json.load(sys.stdin)
if random.random() < 0.7:
    print(json.dumps({"verdict": "approve", "rationale": "The coin approves.", "findings": []}))
else:
    print(json.dumps({"verdict": "attention", "rationale": "The coin wants a human.",
                      "findings": [{"code": "coin.tails", "severity": "blocking", "summary": "tails"}]}))
"""

# (reviewers, accept_passing_proof, retry_blocked): the mix each new soak goal cycles through
GOAL_KINDS: tuple[tuple[bool, bool, bool], ...] = (
    (False, False, False),
    (True, False, False),
    (False, True, False),
    (True, False, True),
)


def _executable(path: Path, body: str) -> Path:
    path.write_text(f"#!{sys.executable}\n{body}")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def write_assets(directory: Path) -> Path:
    """The example planner and templates plus the coin template and reviewer, with team and replanning files."""
    directory.mkdir(parents=True, exist_ok=True)
    shutil.copytree(EXAMPLES / "templates", directory / "templates", dirs_exist_ok=True)
    shutil.copy(EXAMPLES / "planner.py", directory / "planner.py")
    _executable(directory / "templates" / "coin.py", COIN_TEMPLATE)
    _executable(directory / "reviewer.py", COIN_REVIEWER)
    team = {
        "planner": {
            "adapter": "command",
            "argv": [sys.executable, "./planner.py"],
            "timeout_s": 60,
            "instructions": "Plan bounded recovery work; use only the listed templates.",
        },
        "critic": {
            "adapter": "command",
            "argv": [sys.executable, "./reviewer.py"],
            "timeout_s": 60,
            "instructions": "Review the proposed plan.",
        },
    }
    (directory / "team.json").write_text(json.dumps(team))
    for reviewed in (False, True):
        replanning: dict[str, Any] = {
            "planner": "planner",
            "reviewers": ["critic"] if reviewed else [],
            "auto_apply": False,
            "max_replans": 3,
            "max_work_items_per_plan": 4,
            "max_total_work_items": 6,
            "templates": {
                "implement": {"path": "templates/coin.py", "root": True, "max_attempts": 2},
                "investigate": {"path": "templates/investigate.py", "root": False, "max_attempts": 2},
            },
        }
        (directory / f"replanning-{'reviewed' if reviewed else 'plain'}.json").write_text(json.dumps(replanning))
    return directory


def add_soak_root(layout: Layout, assets: Path, number: int) -> str:
    """A coin-template work item that belongs to no goal yet (`adopt` makes it a goal's root)."""
    return create_work(
        layout,
        title=f"Soak root {number}",
        template=assets / "templates" / "coin.py",
        objective="Survive the race.",
        acceptance=["nothing lost", "nothing doubled"],
        max_attempts=2,
        work_id=f"soak-root-{number}",
        actor="soak-builder",
    ).id


def adopt(layout: Layout, assets: Path, number: int) -> str:
    """A goal over `soak-root-<number>` (its kind cycles through GOAL_KINDS); returns the goal id."""
    reviewed, accept_passing, retry_blocked = GOAL_KINDS[number % len(GOAL_KINDS)]
    goal_id = f"soak-goal-{number}"
    create_supervisor(
        layout,
        team_file=assets / "team.json",
        root_work=f"soak-root-{number}",
        replanning_file=assets / f"replanning-{'reviewed' if reviewed else 'plain'}.json",
        options=GoalOptions(
            goal_id=goal_id,
            title=f"Soak goal {number}",
            max_total_attempts=8,
            accept_passing_proof=accept_passing,
            retry_blocked=retry_blocked,
        ),
    )
    return goal_id


def add_soak_goal(layout: Layout, assets: Path, number: int) -> str:
    add_soak_root(layout, assets, number)
    return adopt(layout, assets, number)


def add_standalone(layout: Layout, assets: Path, number: int) -> str:
    """Coin-template work that no goal governs: its transitions take the work's own lease."""
    return create_work(
        layout,
        title=f"Standalone {number}",
        template=assets / "templates" / "coin.py",
        objective="Race on its own lease.",
        acceptance=["nothing lost"],
        max_attempts=2,
        work_id=f"soak-solo-{number}",
        actor="soak-builder",
    ).id


def build_soak_tree(directory: Path, goals: int = 4) -> tuple[Layout, Path]:
    """The demo tree plus `goals` soak goals, each run once by the real supervisor so they start mid-story."""
    layout = build_demo(directory)
    assets = write_assets(directory / ASSETS)
    for number in range(goals):
        run_goal(layout, add_soak_goal(layout, assets, number))
    for number in range(2):
        add_standalone(layout, assets, number)
    return layout, assets
