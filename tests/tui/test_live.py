"""Live updates through the real watcher: another process's transition shows within a second, in place."""

from __future__ import annotations

import asyncio

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.transitions import reopen_work
from harn_tui.tui.widgets.graph import GraphPanel
from tests.conftest import Harn
from tests.tui import scenarios as s
from tests.tui.conftest import Factory, notices, wait_until

pytestmark = pytest.mark.anyio


async def watching(pilot: object, app: object) -> None:
    """Wait until the watcher is armed: it starts after the first paint, in a process of its own, whose start on a
    loaded machine is not what these tests time."""
    await pilot.pause()  # type: ignore[attr-defined]
    watcher = app.watcher  # type: ignore[attr-defined]
    assert watcher is not None
    assert await asyncio.to_thread(watcher.ready.wait, 10.0), "the watcher did not arm within 10 s"


async def test_a_cli_transition_appears_within_a_second_keeping_the_cursor(
    everything: Layout, harn: Harn, console: Factory
) -> None:
    app = console(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        graph = app.main.query_one(GraphPanel)
        assert graph.select_key("item:fixtures")
        await watching(pilot, app)
        result = await asyncio.to_thread(harn, "supervisor", "plan", "approve", s.PLAN_GOAL, s.PENDING_PLAN)
        assert result.returncode == 0, result.stderr
        took = await wait_until(
            pilot,
            lambda: app.main.goal is not None and app.main.goal.active_root == f"{s.PENDING_PLAN}-verify",
            timeout=2.0,
        )
        assert took < 1.0
        assert graph.cursor_key == "item:fixtures"
        assert "item:fixtures" in graph.layout_rows and graph.layout_rows["item:fixtures"].active
        await wait_until(pilot, lambda: any("tester applied plan" in n for n in notices(app)))
        assert f"information|tester|tester applied plan {s.PENDING_PLAN} (goal {s.PLAN_GOAL})" in notices(app)


async def test_polling_fallback_follows_a_core_call_from_another_thread(
    monkeypatch: pytest.MonkeyPatch, layout: Layout, console: Factory
) -> None:
    monkeypatch.setenv("HARN_POLL", "1")
    s.review_goal(layout)
    app = console(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.watcher is not None and app.watcher.mode == "polling"
        await watching(pilot, app)
        await asyncio.to_thread(reopen_work, layout, "docs", actor="bob", findings=["tighten the intro"])
        took = await wait_until(
            pilot,
            lambda: app.main.goal is not None and app.main.goal.work_item("docs").state == "ready",  # type: ignore[union-attr]
            timeout=3.0,
        )
        assert took < 1.5
        assert any(n.endswith(f"bob reopened work docs (goal {s.REVIEW_GOAL})") for n in notices(app))


async def test_a_burst_of_changes_coalesces_into_few_refreshes(layout: Layout, console: Factory) -> None:
    from tests.tui import builders as b

    s.review_goal(layout)
    app = console(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await watching(pilot, app)
        applied: list[int] = []
        original = app.apply_paths

        async def counting(paths: object) -> object:
            applied.append(1)
            return await original(paths)  # type: ignore[arg-type]

        app.apply_paths = counting  # type: ignore[method-assign,assignment]
        for number in range(2, 12):
            await asyncio.to_thread(b.reopen, layout, "docs", f"finding {number}", actor="bob")

        def shows_the_last_finding() -> bool:
            goal = app.main.goal
            docs = goal.work_item("docs") if goal is not None else None
            return docs is not None and docs.open_findings[0].statement == "finding 11"

        await wait_until(pilot, shows_the_last_finding)
        assert 1 <= len(applied) < 10
