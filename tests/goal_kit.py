"""Building goals for supervisor tests: team and replanning files with real templates, failing roots."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harn_tui.core.clock import now
from harn_tui.core.creation import GoalOptions, create_supervisor, create_work
from harn_tui.core.ids import new_run_id
from harn_tui.core.journal import JsonlTail
from harn_tui.core.layout import Layout
from harn_tui.core.leases import hold_lease
from harn_tui.core.records import AttemptStarted
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER
from harn_tui.core.writer import append_event

FIXTURES = Path(__file__).parent / "fixtures"
EXAMPLES = FIXTURES / "examples"
LOOP = FIXTURES / "loop"


def scripted(directory: Path, name: str, *replies: Any, instructions: str = "Answer as scripted.") -> dict[str, Any]:
    """A scripted member: line N answers plan sequence N (an item may be a list: one reply per call)."""
    path = directory / f"{name}.jsonl"
    path.write_text("".join(json.dumps(reply) + "\n" for reply in replies))
    return {"adapter": "scripted", "replies": path.name, "instructions": instructions}


def command(*argv: str, timeout_s: int = 60, instructions: str = "Answer.") -> dict[str, Any]:
    return {"adapter": "command", "argv": list(argv), "timeout_s": timeout_s, "instructions": instructions}


def apply_reply(*items: dict[str, Any], rationale: str = "Recover with a fresh root.", **extra: Any) -> dict[str, Any]:
    return {"decision": "apply", "rationale": rationale, "work": list(items), **extra}


def item(
    key: str,
    template: str = "implement",
    deps: tuple[str, ...] = (),
    accept: tuple[str, ...] = ("done",),
    title: str | None = None,
) -> dict[str, Any]:
    return {
        "key": key,
        "title": title or f"Do {key}",
        "objective": f"Achieve {key}.",
        "acceptance": list(accept),
        "dependencies": list(deps),
        "template": template,
    }


@dataclass
class GoalKit:
    """Files for one goal under `directory`, created in `layout`."""

    layout: Layout
    directory: Path
    team: dict[str, Any] = field(default_factory=dict)
    templates: dict[str, dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """The catalog uses private copies of the example templates (a test may edit them)."""
        if not self.templates:
            copies = self.directory / "templates"
            shutil.copytree(EXAMPLES / "templates", copies, dirs_exist_ok=True)
            self.templates = {
                "implement": {"path": str(copies / "implement.py"), "root": True, "max_attempts": 3},
                "investigate": {"path": str(copies / "investigate.py"), "root": False, "max_attempts": 2},
            }

    def write(self, name: str, document: Any) -> Path:
        path = self.directory / name
        path.write_text(json.dumps(document))
        return path

    def create(
        self,
        *,
        root_work: str | None = None,
        mission: dict[str, Any] | None = None,
        reviewers: tuple[str, ...] = (),
        auto_apply: bool = False,
        replanning: dict[str, Any] | None = None,
        goal_id: str = "goal-under-test",
        options: dict[str, Any] | None = None,
    ) -> str:
        self.team.setdefault("planner", command("python3", str(EXAMPLES / "planner.py")))
        team_file = self.write("team.json", self.team)
        plan_file = self.write(
            "replanning.json",
            {
                "planner": "planner",
                "reviewers": list(reviewers),
                "auto_apply": auto_apply,
                "templates": self.templates,
                **(replanning or {}),
            },
        )
        mission_file = self.write("mission.json", mission) if mission is not None else None
        create_supervisor(
            self.layout,
            team_file=team_file,
            replanning_file=plan_file,
            mission_file=mission_file,
            root_work=root_work,
            options=GoalOptions(goal_id=goal_id, **(options or {})),
        )
        return goal_id


def make_root(
    layout: Layout,
    work_id: str = "root-work",
    template: Path | None = None,
    max_attempts: int = 1,
    accept: tuple[str, ...] = ("it works",),
) -> str:
    create_work(
        layout,
        title="The original approach",
        template=template or EXAMPLES / "templates" / "implement.py",
        objective="Ship it.",
        acceptance=accept,
        max_attempts=max_attempts,
        work_id=work_id,
        actor="tester",
    )
    return work_id


def lose_attempt(layout: Layout, work_id: str, goal_id: str | None = None) -> None:
    """What a runner SIGKILLed mid-attempt leaves: `attempt.started` whose run lease nobody holds."""
    lease = layout.goal(goal_id) / "lease" if goal_id else layout.work(work_id) / "lease"
    with hold_lease(lease, "test"):
        log = JsonlTail(layout.work(work_id) / "events.jsonl", WORK_EVENTS_ADAPTER)
        append_event(log, AttemptStarted, "tester", run_id=new_run_id(now()), attempt=1, trigger="initial")


def plan_files(layout: Layout, goal_id: str) -> list[Path]:
    """Plan directories that have a request, in sequence order."""
    plans = layout.goal(goal_id) / "plans"
    return sorted(p for p in plans.iterdir() if (p / "request.json").exists())


def plan_events(plan_dir: Path) -> list[dict[str, Any]]:
    path = plan_dir / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def read(path: Path) -> Any:
    return json.loads(path.read_text())
