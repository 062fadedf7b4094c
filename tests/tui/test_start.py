"""On start the first goal needing a human is selected and its decision is on screen, with no key pressed."""

from __future__ import annotations

import pytest

from harn_tui.core.layout import Layout
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.goals import GoalsPanel
from harn_tui.tui.widgets.plans import PlanHistory
from tests.tui import builders as b
from tests.tui import scenarios as s
from tests.tui.conftest import Factory
from tests.tui.widgets_access import goals_select

pytestmark = pytest.mark.anyio


def active_keys(app: object) -> dict[str, str]:
    screen = app.screen  # type: ignore[attr-defined]
    return {key: active.binding.action for key, active in screen.active_bindings.items() if active.enabled}


async def test_start_selects_the_pending_plan_and_shows_its_approval_card(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.main
        assert screen.goal_id == s.PLAN_GOAL
        assert screen.active_tab() == "plans"
        body = screen.query_one(PlanHistory).body.text
        assert body.index(s.PENDING_PLAN) < body.index(s.APPLIED_PLAN)  # newest first
        assert body.startswith("APPROVAL NEEDED") and body.count("APPROVAL NEEDED") == 1
        assert "Add a bracket-depth guard" in body and "Verify the parser suite" in body
        assert screen.query_one("#plan-buttons").display
        keys = active_keys(app)
        assert keys["a"] == "approve_plan" and keys["x"] == "reject_plan"


async def test_untrusted_rationale_is_rendered_literally_without_crashing(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        body = app.main.query_one(PlanHistory).body.text
        assert "[bold]not bold[/bold] [link=http://x]click[/link] ␛[31mred␛[0m [ABC] [$var] end" in body
        assert "\x1b" not in body
        svg = app.export_screenshot()
        assert "[bold]not&#160;bold[/bold]" in svg or "[bold]not bold[/bold]" in svg
        assert "\x1b" not in svg


async def test_corrupt_goal_is_listed_with_its_reason_beside_the_sound_ones(
    everything: Layout, console: Factory
) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        goals = app.main.query_one(GoalsPanel)
        row = goals.get_row(s.CORRUPT_GOAL)
        assert row[0].plain == "⌧ corrupt"
        assert "goal.json" in row[-1].plain and "title" in row[-1].plain
        await goals_select(pilot, s.CORRUPT_GOAL)
        assert app.main.goal_id == s.CORRUPT_GOAL
        keys = active_keys(app)
        assert not {"a", "x", "r", "t"} & set(keys)
        attention = app.main.query_one("#attention-body", ContentView).text
        assert "unreadable" in attention
        await goals_select(pilot, s.ATTENTION_GOAL)
        assert active_keys(app)["r"] == "retry_plan"


async def test_no_goal_needing_a_human_selects_the_first_goal(layout: Layout, console: Factory) -> None:
    b.work(layout, "solo", title="Solo work")
    b.goal(layout, "goal-only", root="solo")
    app = console()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.main.goal_id == "goal-only"
        assert app.main.active_tab() == "attention"
        assert app.focused is app.main.query_one(GoalsPanel)


async def test_empty_tree_opens_with_a_hint(layout: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        assert app.main.goal_id is None
        assert "no goals yet" in str(app.main.query_one(GoalsPanel).border_subtitle)


async def test_a_one_step_plan_reads_in_the_singular(layout: Layout, console: Factory) -> None:
    b.work(layout, "root-item", title="Fix the build")
    b.attempt(
        layout, "root-item", "run-root-1", status="failed", summary="it broke", criteria=(("it works", "unsatisfied"),)
    )
    b.goal(layout, "goal-single", root="root-item", title="Fix the build")
    b.plan(
        layout, "goal-single", "plan-0001-aaaaaaaa", sequence=1, root_key="fix", steps=(b.step("fix", "Fix the build"),)
    )
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        history = app.main.query_one(PlanHistory)
        assert "Steps  1 work item, root fix" in history.body.text
        assert history.border_subtitle is not None and "1 plan, newest first" in str(history.border_subtitle)
