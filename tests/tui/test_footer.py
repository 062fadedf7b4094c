"""The footer and the palette offer only the keys legal for the focused item (one `check_action` gate)."""

from __future__ import annotations

import pytest

from harn_tui.core.layout import Layout
from harn_tui.tui.commands import COMMANDS, ConsoleCommands, action_name
from harn_tui.tui.widgets.goals import GoalsPanel
from harn_tui.tui.widgets.graph import GraphPanel
from tests.tui import scenarios as s
from tests.tui.conftest import Factory
from tests.tui.test_start import active_keys

pytestmark = pytest.mark.anyio

TRANSITION_KEYS = {"a", "x", "r", "o", "c"}


async def select(app: object, pilot: object, goal_id: str, panel: str) -> dict[str, str]:
    screen = app.main  # type: ignore[attr-defined]
    goals = screen.query_one(GoalsPanel)
    goals.focus()
    goals.select_key(goal_id)
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press(str(["goals", "graph", "attention", "plans", "findings", "item"].index(panel) + 1))  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    keys = active_keys(app)
    return {k: v for k, v in keys.items() if k in TRANSITION_KEYS}


async def test_each_focus_offers_exactly_its_legal_transitions(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert await select(app, pilot, s.PLAN_GOAL, "plans") == {"a": "approve_plan", "x": "reject_plan"}
        assert await select(app, pilot, s.PLAN_GOAL, "goals") == {"a": "approve_plan", "x": "reject_plan"}
        # the graph's first item is the waiting active root: only cancel is legal for it
        assert await select(app, pilot, s.PLAN_GOAL, "graph") == {"c": "cancel_work"}
        assert await select(app, pilot, s.ATTENTION_GOAL, "attention") == {"r": "retry_plan"}
        assert await select(app, pilot, s.ATTENTION_GOAL, "graph") == {"o": "reopen_work", "c": "cancel_work"}
        assert await select(app, pilot, s.REVIEW_GOAL, "findings") == {
            "a": "accept_work",
            "o": "reopen_work",
            "c": "cancel_work",
        }
        assert await select(app, pilot, s.REVIEW_GOAL, "plans") == {}
        assert await select(app, pilot, s.APPROVAL_GOAL, "graph") == {
            "a": "approve_request",
            "x": "deny_request",
            "c": "cancel_work",
        }
        assert await select(app, pilot, s.CORRUPT_GOAL, "graph") == {}


async def test_moving_the_graph_cursor_changes_the_legal_keys(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await select(app, pilot, s.PLAN_GOAL, "graph")
        graph = app.main.query_one(GraphPanel)
        assert graph.select_key(f"item:{s.APPLIED_PLAN}-lexer")
        await pilot.pause()
        keys = active_keys(app)
        assert keys.get("o") == "reopen_work" and keys.get("c") == "cancel_work" and "a" not in keys
        assert graph.select_key("item:fixtures")
        await pilot.pause()
        keys = active_keys(app)
        assert keys.get("o") == "reopen_work" and "c" not in keys


async def test_the_palette_lists_the_same_legal_commands(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        provider = ConsoleCommands(app.main)
        titles = [str(hit.prompt) async for hit in provider.discover()]
        legal = {c.title for c in COMMANDS if app.main.check_action(action_name(c), ())}
        assert {t.split("  [")[0] for t in titles} == legal
        assert any(t.startswith("Approve plan") for t in titles)
        assert not any(t.startswith("Accept work") or t.startswith("Retry plan") for t in titles)
