"""The console's view of revision rounds, mission reopen and service status: every round in the plan history with
what changed, the reopen key and form on a completed mission, and the serve loops in the header (embedded and
external, backoff and last error, two hosts on one goal), the embedded one fed by the console's own watcher."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.presence import safe_host
from harn_tui.core.queries import show_goal
from harn_tui.core.service import ServiceStatus
from harn_tui.tui.widgets.header import HeaderState, header_content
from tests.core.test_mission_reopen import completed_mission
from tests.tui import scenarios as s
from tests.tui.conftest import Factory, plan_events, wait_until
from tests.tui.test_pairing import header_text
from tests.tui.widgets_access import goals_select

pytestmark = pytest.mark.anyio
STAMP = "2026-11-30T12:00:00Z"


def status(
    host: str, pid: int, goals: list[str], actor: str = "bob", backoff_s: float = 0.0, last_error: str | None = None
) -> ServiceStatus:
    return ServiceStatus(
        host=host,
        pid=pid,
        actor=actor,
        started_at=STAMP,
        heartbeat_at=STAMP,
        goals=goals,
        rounds=3,
        last_round_at=STAMP,
        backoff_s=backoff_s,
        last_error=last_error,
        executor="local",
    )


def test_the_header_names_embedded_and_external_loops_with_backoff_and_error() -> None:
    embedded = status("here", 10, ["goal-a"], actor="alice")
    external = status("build-2", 4242, ["goal-b", "goal-c"], backoff_s=4, last_error="goal goal-b: lease [busy]")
    text = header_content(
        HeaderState(root="R", actor="alice", services=(embedded, external), own_service=("here", 10))
    ).plain
    line = text.splitlines()[1]
    assert line.startswith(
        "serve embedded 1 goal; bob@build-2:4242 2 goals, backing off 4 s, error: goal goal-b: lease [busy]"
    ), line
    assert "⚠" not in text


def test_the_header_warns_when_loops_on_two_hosts_enroll_the_same_goal() -> None:
    here, there = status("alpha", 1, ["goal-a", "goal-b"]), status("beta", 2, ["goal-b"])
    line = header_content(HeaderState(root="R", actor="alice", services=(here, there))).plain.splitlines()[1]
    assert line.startswith("⚠ serve loops on alpha, beta all enroll goal-b"), line


def test_a_plan_with_two_rounds_shows_every_round_and_what_changed(
    layout: Layout, console: Factory, snap_compare: Any
) -> None:
    """Plan history of goal-08-revised: the approval card shows the revised steps (probe, then fix after probe);
    `Review rounds  2 rounds, 1 revision`; Round 0 with its candidate (Patch the parser…), one step, the review
    `outcome revise` with the blocking finding `no failing sample`; Round 1 with `revision asked: …Reproduce it
    first.`, `changed: rationale rewritten; added step probe; changed step fix: dependencies` and its candidate's two
    steps (its review, `outcome approved`, follows below the fold)."""
    s.revised_goal(layout)

    async def show_plans(pilot: Any) -> None:
        await pilot.press("4")
        await pilot.pause()

    assert snap_compare(console(), terminal_size=(120, 40), run_before=show_plans)


def test_the_header_with_an_external_service(everything: Layout, console: Factory, snap_compare: Any) -> None:
    """The header's second line: `serve bob@build-2:4242 2 goals, backing off 4 s, error: goal goal-02-attention:
    lease busy`, the rest of the screen as at start."""

    async def with_service(pilot: Any) -> None:
        app = pilot.app
        app.services = (
            status(
                "build-2",
                4242,
                ["goal-01-plan", "goal-02-attention"],
                backoff_s=4,
                last_error="goal goal-02-attention: lease busy",
            ),
        )
        app.refresh_header()
        await pilot.pause()

    assert snap_compare(console(), terminal_size=(120, 40), run_before=with_service)


async def test_reopen_is_offered_on_a_completed_mission_and_its_form_dispatches(
    layout: Layout, tmp_path: Path, console: Factory
) -> None:
    files = tmp_path / "files"
    files.mkdir()
    goal_id = completed_mission(layout, files)
    plan_id = show_goal(layout, goal_id).plans[-1].id
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await goals_select(pilot, goal_id)
        await pilot.press("4")
        await pilot.pause()
        assert app.main.check_action("reopen_plan", ())
        assert not app.main.check_action("retry_plan", ())
        await pilot.press("o")
        await pilot.pause()
        await pilot.press(*"Plan the disk-full milestone.")
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: any(e["event"] == "plan.reopened" for e in plan_events(layout, goal_id, plan_id)), timeout=10
        )
        await wait_until(pilot, lambda: app.main.goal is not None and app.main.goal.latest_plan_status == "reopened")
        assert app.main.goal.next_action == "plan_milestone"  # type: ignore[union-attr]
        assert not app.main.check_action("reopen_plan", ()), "a reopened plan is not reopened again"


async def test_the_header_shows_live_loops_and_the_embedded_one_is_fed_by_the_console_watcher(
    layout: Layout, console: Factory, examples: Path
) -> None:
    s.attention_goal(layout)
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    external = layout.service / f"{safe_host()}-{sleeper.pid}.json"
    try:
        external.write_text(status(safe_host(), sleeper.pid, [s.ATTENTION_GOAL], actor="carol").model_dump_json())
        app = console(watch=True, supervisor=True)
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: "serve embedded" in header_text(app), timeout=20)
            assert f"carol@{safe_host()}:{sleeper.pid} 1 goal" in header_text(app)
            assert app.watcher is not None and len(app.watcher.subscribers) == 1
            assert "harn-serve-watch" not in {t.name for t in threading.enumerate()}, "no second watch"
            sleeper.kill()
            sleeper.wait()
            await wait_until(pilot, lambda: "carol@" not in header_text(app), timeout=10)
            own = layout.service / f"{safe_host()}-{os.getpid()}.json"
            assert own.exists()
            await pilot.press("s")
            await wait_until(pilot, lambda: not own.exists() and "serve embedded" not in header_text(app), timeout=15)
    finally:
        if sleeper.poll() is None:
            sleeper.kill()
            sleeper.wait()
