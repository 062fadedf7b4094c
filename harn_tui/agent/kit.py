"""`harn init --agents claude-code|codex`: the tree plus a starter kit in `harn/` beside it: a team (planner,
reviewer, worker, judge with working instructions), replanning with two agent templates, an example mission and
a README. A kit file that exists already is never overwritten: the whole kit is refused, naming it."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harn_tui.agent.git import GitFailure, run_git
from harn_tui.agent.parameters import AgentParameters
from harn_tui.agent.script import write_agent_template
from harn_tui.agent.workspace import repository_of
from harn_tui.core.creation import init_tree
from harn_tui.core.errors import Refused, UsageError
from harn_tui.core.layout import Layout

KIT_DIR = "harn"
ADAPTERS = ("claude-code", "codex")
TEMPLATES = {"implement": True, "investigate": False}  # id -> root-capable

PLANNER = (
    "You plan the work of a software mission in this git repository. Read the mission's objective and acceptance "
    "and the work already done, then propose a small graph of work items, each one a change a single agent can make "
    "and verify in one attempt (minutes, not hours). Use the template `implement` for an item that changes code, "
    "tests or docs, and `investigate` for one that only reads the code and writes its findings into a notes file. "
    "Give every item acceptance criteria a judge can check from the diff and the checks' output (name files, "
    "functions, commands). The root item is an `implement` item that depends on the others and completes the "
    "milestone. Prefer two to five items; never more than the budget allows. At a milestone trigger reply "
    "`complete` when the accepted work meets every acceptance criterion of the mission, else plan the next "
    "milestone. Reply `attention` with your reason when the mission is unclear or impossible as written."
)
REVIEWER = (
    "You review a candidate plan before a human sees it. Approve it when every item is small, concrete and "
    "independently checkable, its dependencies are right, and together the items meet the milestone. Otherwise "
    "reply `revise` (or `attention` when a human must decide) with blocking findings, each naming the item and what "
    "to change. Use advisory findings for improvements that need not block the plan."
)
WORKER = (
    "You are a careful software engineer working on one work item in a git worktree of this repository. Make the "
    "smallest change that meets every acceptance criterion, in the repository's own style; add or update tests for "
    "what you change and run them when you can. Fix every open finding from the operator's review and say in your "
    "last message how you fixed each one (by its id). Work only inside your working directory; do not commit, "
    "push or change git configuration: the host commits your changes. When you are done, summarize what you "
    "changed and how you checked it."
)
JUDGE = (
    "You judge one attempt at a work item. You get the item's acceptance criteria, the diff the attempt committed "
    "and the output of the checks. For each criterion reply `satisfied` only when the diff or the checks show it "
    "is met, `unsatisfied` when they show it is not, and `unknown` when you cannot tell from them. Quote your "
    "evidence: a file and what it contains, or a check's output. Judge the work, not the effort: a failing check "
    "that covers a criterion makes it unsatisfied."
)
MISSION = {
    "objective": "Add a small, tested Python module greeting.py whose greet(name) returns 'hello, <name>'.",
    "acceptance": [
        "greeting.py defines greet(name) returning 'hello, ' followed by the name",
        "a pytest test covers greet",
    ],
    "max_milestones": 2,
}
README = """# The harn starter kit

This directory was written by `harn init --agents {adapter}`. It holds what a goal freezes when you create it:

- `team.json`: the planner, the reviewer, the worker and the judge, each a `{adapter}` specialist with its
  working instructions (edit them to suit your project; `timeout_s` bounds each call).
- `replanning.json`: the planner and reviewer, and the templates the planner may use: `implement` (root-capable)
  and `investigate`, both agent templates in `templates/`.
- `mission.json`: an example mission. Say what you want done instead: an objective and its acceptance criteria.

Start the mission from the repository's root:

    harn supervisor create --team harn/team.json --replanning harn/replanning.json --mission harn/mission.json
    harn tui

The console runs the supervisor: approve the planner's proposal (`a` on the plan card), watch the agents work
(the Item tab shows each attempt's workspace and transcript), then accept the work or reopen it with findings
the next attempt's agent receives.

## Adding checks

Checks are commands the host runs in the attempt's workspace after the worker has finished (no shell; the exit
code decides), for example your test suite. A template's parameters are frozen in the file, so write the
template again with them (a goal created earlier keeps the template it froze):

    rm harn/templates/implement.py
    harn template new agent harn/templates/implement.py --worker worker --judge judge \\
        --check "python3 -m pytest -q"

Repeat `--check` for more commands; `--ask-first` makes the worker's plan wait for your approval before it edits
anything. `harn template new agent --help` lists every parameter.
"""


@dataclass(frozen=True)
class Kit:
    layout: Layout
    directory: Path
    files: tuple[Path, ...]
    commands: tuple[str, ...]
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "root": str(self.layout.root),
            "harnery": str(self.layout.base),
            "kit": str(self.directory),
            "files": [str(p) for p in self.files],
            "commands": list(self.commands),
            "notes": list(self.notes),
        }


def _profile(adapter: str, instructions: str, timeout_s: int) -> dict[str, Any]:
    return {"adapter": adapter, "timeout_s": timeout_s, "instructions": instructions}


def _kit_files(adapter: str) -> dict[str, str]:
    team = {
        "planner": _profile(adapter, PLANNER, 600),
        "reviewer": _profile(adapter, REVIEWER, 600),
        "worker": _profile(adapter, WORKER, 1800),
        "judge": _profile(adapter, JUDGE, 600),
    }
    replanning = {
        "planner": "planner",
        "reviewers": ["reviewer"],
        "auto_apply": False,
        "templates": {
            tid: {"path": f"templates/{tid}.py", "root": root, "max_attempts": 3} for tid, root in TEMPLATES.items()
        },
    }
    return {
        "team.json": json.dumps(team, indent=2) + "\n",
        "replanning.json": json.dumps(replanning, indent=2) + "\n",
        "mission.json": json.dumps(MISSION, indent=2) + "\n",
        "README.md": README.format(adapter=adapter),
    }


def init_agents_kit(root: Path, adapter: str) -> Kit:
    """Create `.harnery/` in `root` and the kit in `root/harn/`; every kit file is checked before any is written."""
    if adapter not in ADAPTERS:
        raise UsageError(f"--agents {adapter!r}: choose one of {', '.join(ADAPTERS)}")
    directory = root.resolve() / KIT_DIR
    texts = _kit_files(adapter)
    paths = [directory / name for name in texts] + [directory / "templates" / f"{t}.py" for t in TEMPLATES]
    for path in paths:
        if os.path.lexists(path):
            raise Refused(f"{path} already exists; the starter kit never overwrites a file (move it away first)")
    layout = init_tree(root)
    for name, text in texts.items():
        _write_new(directory / name, text)
    parameters = AgentParameters(worker="worker", judge="judge")
    for template_id in TEMPLATES:
        write_agent_template(directory / "templates" / f"{template_id}.py", parameters)
    shown = _shown(directory, layout.root)
    commands = (
        f"harn supervisor create --team {shown}/team.json --replanning {shown}/replanning.json "
        f"--mission {shown}/mission.json",
        "harn tui",
    )
    return Kit(layout, directory, tuple(paths), commands, _notes(layout.root))


def _write_new(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, text.encode())
        os.fsync(fd)
    finally:
        os.close(fd)


def _shown(directory: Path, root: Path) -> str:
    """The kit's path as the printed commands spell it: relative when they are run from the root."""
    try:
        return str(directory.relative_to(Path.cwd().resolve())) if Path.cwd().resolve() == root else str(directory)
    except ValueError:
        return str(directory)


def _notes(root: Path) -> tuple[str, ...]:
    try:
        return _repository_notes(root)
    except GitFailure as error:
        return (f"{error.message}: the agents work in a git worktree, so install git",)


def _repository_notes(root: Path) -> tuple[str, ...]:
    repository = repository_of(root)
    if repository is None:
        return (
            f"{root} is not inside a git repository: the agents work in a git worktree, so run `git init` "
            "there and make a first commit",
        )
    if run_git(repository, ["rev-parse", "--verify", "--quiet", "HEAD"]).returncode != 0:
        return (
            f"the repository {repository} has no commit yet: the agents' workspaces start from HEAD, so make "
            "a first commit (`git commit --allow-empty -m start`)",
        )
    return ()
