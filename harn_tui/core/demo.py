"""`harn demo`: build a tree whose goals show every situation, by really running the supervisor.

The specialists are scripted (`harn_tui/demo/*.jsonl`), the templates are real executables, and every
operator step goes through the same transitions the CLI and console use (actor `demo-operator`). Nothing is
written by hand: each goal is where the loop and those transitions leave it.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from importlib.resources import as_file, files
from pathlib import Path

from harn_tui.core.creation import GoalOptions, create_supervisor, create_work, init_tree
from harn_tui.core.errors import UsageError
from harn_tui.core.layout import HARNERY, Layout
from harn_tui.core.queries import show_goal
from harn_tui.core.supervisor import run_goal
from harn_tui.core.transitions import accept_work, approve_plan, reopen_work

OPERATOR = "demo-operator"
ASSETS_DIR = "specialists"


def build_demo(directory: Path | None = None) -> Layout:
    """Create the demo tree in `directory` (a new temporary directory if None); it must be new or empty."""
    target = Path(tempfile.mkdtemp(prefix="harn-demo-")) if directory is None else directory.resolve()
    if target.exists() and any(target.iterdir()):
        raise UsageError(f"demo directory {target} is not empty; give a new or empty directory")
    target.mkdir(parents=True, exist_ok=True)
    layout = init_tree(target)
    assets = copy_assets(target / ASSETS_DIR)
    for scenario in SCENARIOS:
        scenario(layout, assets)
    return layout


def copy_assets(destination: Path) -> Path:
    """Copy the team, replies, replanning files and templates; templates stay executable."""
    with as_file(files("harn_tui.demo")) as source:
        shutil.copytree(source, destination, ignore=shutil.ignore_patterns("__init__.py", "__pycache__"))
    for template in (destination / "templates").iterdir():
        template.chmod(0o755)
    return destination


def _root(
    layout: Layout, assets: Path, work_id: str, title: str, template: str, objective: str, acceptance: list[str]
) -> str:
    create_work(
        layout,
        title=title,
        template=assets / "templates" / template,
        objective=objective,
        acceptance=acceptance,
        max_attempts=1,
        work_id=work_id,
        actor=OPERATOR,
    )
    return work_id


def _goal(
    layout: Layout,
    assets: Path,
    goal_id: str,
    title: str,
    root: str,
    replanning: str | None,
    accept_passing_proof: bool = False,
) -> str:
    create_supervisor(
        layout,
        team_file=assets / "team.json",
        root_work=root,
        replanning_file=assets / replanning if replanning else None,
        options=GoalOptions(goal_id=goal_id, title=title, accept_passing_proof=accept_passing_proof),
    )
    return goal_id


def proposal_awaiting_review(layout: Layout, assets: Path) -> None:
    """The root fails; the planner proposes two steps; the critic approves: an approval card waits."""
    root = _root(
        layout,
        assets,
        "queue-lock-fix",
        "Patch the lock-based job queue",
        "attempt-fails.py",
        "Stop the job queue from deadlocking by tuning its lock.",
        ["no deadlock under 2x load"],
    )
    goal = _goal(
        layout,
        assets,
        "demo-1-job-queue",
        "Replace the lock-based job queue",
        root,
        "replanning-reviewed.json",
        accept_passing_proof=True,
    )
    run_goal(layout, goal)


def attention_awaiting_retry(layout: Layout, assets: Path) -> None:
    """The root fails; the skeptic reviewer asks for attention: a receipt, and the retry transition is open."""
    root = _root(
        layout,
        assets,
        "session-store-split",
        "Split the session store",
        "attempt-fails.py",
        "Move sessions out of the monolith's database.",
        ["p99 session read under 5 ms"],
    )
    goal = _goal(layout, assets, "demo-2-session-store", "Shard the session store", root, "replanning-skeptic.json")
    run_goal(layout, goal)


def work_in_review_with_findings(layout: Layout, assets: Path) -> None:
    """The root passes; the operator reopens it with findings; the next attempt passes: review with findings."""
    root = _root(
        layout,
        assets,
        "api-rate-limit",
        "Add rate limiting to the public API",
        "implement.py",
        "Limit each API key to 100 requests per second with a token bucket.",
        ["excess requests get 429 with Retry-After", "limits are per API key"],
    )
    goal = _goal(layout, assets, "demo-3-rate-limit", "Rate-limit the public API", root, None)
    run_goal(layout, goal)
    reopen_work(
        layout,
        root,
        actor=OPERATOR,
        reason="Two gaps found in review.",
        findings=[
            "Retry-After is sent in milliseconds; RFC 9110 says seconds.",
            "Internal health checks are rate-limited too; exempt them.",
        ],
    )
    run_goal(layout, goal)


def parked_approval(layout: Layout, assets: Path) -> None:
    """The root's template asks a human first (exit 75): the attempt is parked on a pending approval."""
    root = _root(
        layout,
        assets,
        "db-credential-rotation",
        "Rotate the primary database credentials",
        "ask-first.py",
        "Rotate the credentials of the primary database without dropping writes.",
        ["old credentials are revoked", "no write is dropped"],
    )
    goal = _goal(layout, assets, "demo-4-credentials", "Rotate production database credentials", root, None)
    run_goal(layout, goal)


def succeeded_after_replan(layout: Layout, assets: Path) -> None:
    """The root fails; a recovery root is proposed and approved, runs, and is accepted: generation 1 succeeded."""
    root = _root(
        layout,
        assets,
        "checkout-test-retry",
        "Retry the flaky checkout test",
        "attempt-fails.py",
        "Make the checkout test pass by retrying it up to three times.",
        ["200 green runs in a row"],
    )
    goal = _goal(layout, assets, "demo-5-flaky-test", "Fix the flaky checkout test", root, "replanning-recovery.json")
    pending = run_goal(layout, goal).goal
    assert pending is not None and pending.pending_plan_id is not None, "the recovery plan awaits review"
    approve_plan(layout, goal, pending.pending_plan_id, actor=OPERATOR, reason="An injected clock is the fix.")
    reviewed = run_goal(layout, goal).goal
    assert reviewed is not None and reviewed.active_root is not None
    accept_work(layout, reviewed.active_root, actor=OPERATOR, reason="200 green runs in CI.")
    assert show_goal(layout, goal).state == "succeeded"


SCENARIOS: tuple[Callable[[Layout, Path], None], ...] = (
    proposal_awaiting_review,
    attention_awaiting_retry,
    work_in_review_with_findings,
    parked_approval,
    succeeded_after_replan,
)

__all__ = ["HARNERY", "SCENARIOS", "build_demo"]
