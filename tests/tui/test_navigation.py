"""Moving around by keyboard: tab cycles the panels in the order of 1..7, enter goes deeper, and which panel
holds the focus and which tab is shown read without colour (a ▶ title, a bracketed tab)."""

from __future__ import annotations

import pytest

from harn_tui.core.layout import Layout
from harn_tui.tui.widgets.tabs import TabLine
from tests.tui import scenarios as s
from tests.tui.conftest import Factory

pytestmark = pytest.mark.anyio


def marked(app: object) -> list[str]:
    """The panels whose border title carries the focus mark."""
    return [
        name
        for name in ("goals", "graph", "attention", "plans", "findings", "item", "history")
        if str(app.main.query_one(f"#{name}").border_title or "").startswith("▶ ")  # type: ignore[attr-defined]
    ]


def heavy(app: object) -> list[str]:
    """The panels drawn with the heavy border of the focused panel."""
    return [
        name
        for name in ("goals", "graph", "attention", "plans", "findings", "item", "history")
        if app.main.query_one(f"#{name}").styles.border_top[0] == "heavy"  # type: ignore[attr-defined]
    ]


async def test_tab_cycles_the_panels_in_key_order_and_marks_the_focused_one(
    everything: Layout, console: Factory
) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.main.context() == "plans" and marked(app) == ["plans"] == heavy(app)
        seen = []
        for _ in range(7):
            await pilot.press("tab")
            await pilot.pause()
            seen.append(app.main.context())
            assert marked(app) == [app.main.context()] == heavy(app)
        assert seen == ["findings", "item", "history", "goals", "graph", "attention", "plans"]
        await pilot.press("shift+tab")
        await pilot.pause()
        assert app.main.context() == "attention"
        tabs = str(app.main.query_one(TabLine).content)
        assert "[3 Attention]" in tabs and " 4 Plans " in tabs and "[" not in tabs.replace("[3 Attention]", "")


async def test_enter_on_a_goal_opens_its_graph_and_on_an_item_its_detail(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("1", "down")
        await pilot.pause()
        assert app.main.goal_id == s.ATTENTION_GOAL
        await pilot.press("enter")
        await pilot.pause()
        assert app.main.context() == "graph" and app.main.shown_goal == s.ATTENTION_GOAL
        assert app.main.query_one("#graph").work_id_at_cursor is not None
        await pilot.press("enter")
        await pilot.pause()
        assert app.main.context() == "item" and app.main.active_tab() == "item"
        assert app.main.query_one("#item").shown_work == app.main.query_one("#graph").work_id_at_cursor
