"""One race-soak console: the real HarnConsole run headless, driven by key presses that dispatch transitions.

`python -m tests.reliability.soak_console --root DIR --actor console-1 --seconds 20 --seed 1 --log FILE`. The
console runs with its live watcher (a child process) and presence heartbeat, its embedded supervisor off (the
soak runs one `serve` beside it). Each step selects a goal in the goals panel (mostly one waiting for a human),
then the number key of the panel holding its decision and that decision's key (`a` approve or accept, `x`
reject, `r` retry, `o` reopen, `y`/`n` approve/deny the request); otherwise any goal and a random plan key, or
the graph, a few rows down and a random work key (`c` cancel among them). A form that opens is filled
(sometimes left incomplete, which the form refuses) and submitted with ctrl+s. Keys are legal or not by the
console's own live view, which the race makes stale: the core decides. Every dispatched request is logged
with its outcome (the console's own `run_request` path, wrapped only to record what the core returned).

With `--quiet-file`, after its time is up the console waits until the driver says every other writer has
stopped, then checks that its live model (kept up to date by the watcher alone) equals a fresh load of the
tree, goal by goal (the `supervisor show` document of each); a console that never converges exits 1.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

from textual.screen import ModalScreen
from textual.widgets import Input, Select

from harn_tui.console.model import ConsoleModel
from harn_tui.core.errors import HarnError
from harn_tui.core.layout import Layout
from harn_tui.tui import app as app_module
from harn_tui.tui.app import HarnConsole
from harn_tui.tui.dispatch import DispatchResult, Request
from harn_tui.tui.forms.accept import AcceptForm
from harn_tui.tui.forms.reopen import ReopenForm
from harn_tui.tui.screens.main import decision_panel
from harn_tui.tui.screens.transitions import PANELS
from harn_tui.tui.widgets.goals import GoalsPanel
from tests.reliability.soak_log import CommandLog, participant_parser
from tests.reliability.soak_worker import FINDINGS, REASONS

VERBS = {
    "approve plan": "plan approve",
    "reject plan": "plan reject",
    "retry plan": "plan retry",
    "accept work": "work accept",
    "reopen work": "work reopen",
    "cancel work": "work cancel",
    "approve request": "approval approve",
    "deny request": "approval deny",
}
PLAN_KEYS = ("a", "x", "r")
WORK_KEYS = ("a", "a", "o", "c", "y", "n")


def install_logging(log: CommandLog) -> None:
    """Record every request the console dispatches, with the outcome or typed refusal the core gave it."""
    real_run_request = app_module.run_request  # type: ignore[attr-defined]

    def logged(layout: Layout, actor: str, request: Request) -> DispatchResult:
        seen: dict[str, Any] = {}

        def call(layout: Layout, actor: str) -> Any:
            try:
                seen["outcome"] = request.call(layout, actor)
            except HarnError as error:
                seen["error"] = error
                raise
            return seen["outcome"]

        words, _, target = request.title.rpartition(" ")
        verb = VERBS.get(words, words)
        token = log.begin(via="console", verb=verb, target=target, goal=None, title=request.title)
        t0 = time.monotonic()
        result = real_run_request(layout, actor, Request(request.title, call))
        entry: dict[str, Any] = {
            "via": "console",
            "verb": verb,
            "target": target,
            "token": token,
            "goal": None,
            "title": request.title,
            "t0": t0,
            "t1": time.monotonic(),
        }
        if "outcome" in seen:
            entry.update(exit=0, doc=seen["outcome"].to_json())
        elif "error" in seen:
            error: HarnError = seen["error"]
            entry.update(exit=error.exit_code, doc={"error": {"code": error.code, "message": error.message}})
        else:
            entry.update(exit=1, doc={"error": {"code": "crash", "message": result.message}})
        log.write(**entry)
        return result

    app_module.run_request = logged  # type: ignore[attr-defined]


async def settle(app: HarnConsole, pilot: Any) -> None:
    pending = [w for w in app.workers if w.group == "dispatch"]
    if pending:
        await app.workers.wait_for_complete(pending)
    await pilot.pause()


async def fill_form(app: HarnConsole, pilot: Any, rng: random.Random) -> None:
    """Fill whatever form opened (now and then incompletely) and submit it; leave it if it refuses."""
    form = app.screen
    if not isinstance(form, ModalScreen):
        return
    if isinstance(form, AcceptForm):
        for select in form.query(Select):
            if rng.random() < 0.9:
                select.value = rng.choice(("fixed", "fixed", "deferred"))
        for field in form.query(".defer-reason").results(Input):
            field.value = rng.choice(REASONS) if rng.random() < 0.9 else ""
    elif isinstance(form, ReopenForm):
        form.query_one("#finding-1", Input).value = rng.choice(FINDINGS) if rng.random() < 0.7 else ""
    else:
        field = form.query_one("#reason", Input)
        field.value = rng.choice(REASONS) if rng.random() < 0.9 else ""
    await pilot.pause()
    await pilot.press("ctrl+s")
    await pilot.pause()
    if app.screen is form:
        await pilot.press("escape")
        await pilot.pause()


DECISION_KEYS = {
    "review_plan": ("a", "a", "x"),
    "retry_plan": ("r",),
    "review": ("a", "a", "o"),
    "resolve_approval": ("y", "y", "n"),
}
AIMED_SHARE = 0.75
QUIET_WAIT_S = 300.0
CONVERGE_WAIT_S = 15.0


async def step(app: HarnConsole, pilot: Any, rng: random.Random) -> int:
    """One operator gesture (mostly at a goal waiting for a human, at its decision); returns the keys pressed."""
    goals = app.model.console_goals() if app.model is not None else []
    if not goals:
        await pilot.pause(0.1)
        return 0
    waiting = [g for g in goals if g.needs_human]
    aimed = bool(waiting) and rng.random() < AIMED_SHARE
    goal = rng.choice(waiting if aimed else goals)
    await pilot.press("1")
    app.main.query_one(GoalsPanel).select_key(goal.id)
    app.main.flush_goal()
    await pilot.pause()
    if aimed:
        panel = decision_panel(goal)
        keys = [str(PANELS.index(panel) + 1), rng.choice(DECISION_KEYS.get(goal.next_action, WORK_KEYS))]
    elif rng.random() < 0.4:
        keys = [rng.choice(PLAN_KEYS)]
    else:
        keys = ["2", *["down"] * rng.randrange(4), rng.choice(WORK_KEYS)]
    await pilot.press(*keys)
    await pilot.pause()
    await fill_form(app, pilot, rng)
    await settle(app, pilot)
    return 1 + len(keys)


def _documents(model: ConsoleModel) -> dict[str, Any]:
    return {goal.id: goal.to_json() for goal in model.console_goals()}


def differences(live: Any, fresh: Any, where: str = "") -> list[str]:
    """Where two documents differ, as `path: live != fresh` lines (values cut short)."""
    if isinstance(live, dict) and isinstance(fresh, dict):
        return [
            d
            for key in sorted(live.keys() | fresh.keys())
            for d in differences(live.get(key), fresh.get(key), f"{where}.{key}")
        ]
    if isinstance(live, list) and isinstance(fresh, list) and len(live) == len(fresh):
        return [d for i, (a, b) in enumerate(zip(live, fresh, strict=True)) for d in differences(a, b, f"{where}[{i}]")]
    return [] if live == fresh else [f"{where}: {json.dumps(live)[:200]} != {json.dumps(fresh)[:200]}"]


async def converged(app: HarnConsole, pilot: Any, quiet: Path | None) -> list[str]:
    """Once every other writer has stopped (`quiet` exists), the live model must come to equal a fresh load of
    the tree through the watcher alone; returns the goals that never did, each with where it differs (live
    first)."""
    if quiet is None:
        return []
    waited = time.monotonic() + QUIET_WAIT_S
    while not quiet.exists() and time.monotonic() < waited:
        await pilot.pause(0.2)
    if not quiet.exists():
        return ["the soak never went quiet"]
    assert app.model is not None
    differing: list[str] = []
    give_up = time.monotonic() + CONVERGE_WAIT_S
    while time.monotonic() < give_up:
        await pilot.pause(0.5)
        live, fresh = _documents(app.model), _documents(ConsoleModel.load(app.layout))
        differing = sorted(g for g in live.keys() | fresh.keys() if live.get(g) != fresh.get(g))
        if not differing:
            return []
    return [f"{goal}: {'; '.join(differences(live.get(goal), fresh.get(goal))[:8])}" for goal in differing]


async def drive(root: Path, actor: str, seconds: float, rng: random.Random, quiet: Path | None) -> dict[str, Any]:
    app = HarnConsole(Layout(root), actor=actor, supervisor=False, watch=True, presence=True)
    app.animation_level = "none"
    keys = steps = 0
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            keys += await step(app, pilot, rng)
            steps += 1
        await settle(app, pilot)
        stale = await converged(app, pilot, quiet)
        problems = [n.message for n in app.notices if n.title in ("dispatch failed", "watch failed")]
    return {"actor": actor, "steps": steps, "keys": keys, "worker_errors": problems, "model_diverged": stale}


def main(argv: list[str] | None = None) -> int:
    parser = participant_parser(__doc__)
    parser.add_argument(
        "--quiet-file",
        type=Path,
        default=None,
        help="after --seconds, wait for this file (every other writer stopped), then check that "
        "the live model equals a fresh load",
    )
    args = parser.parse_args(argv)
    log = CommandLog(args.log, args.actor)
    install_logging(log)
    try:
        summary = asyncio.run(drive(args.root, args.actor, args.seconds, random.Random(args.seed), args.quiet_file))
    finally:
        log.close()
    summary["commands"] = log.count
    print(json.dumps(summary))
    return 1 if summary["worker_errors"] or summary["model_diverged"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
