"""The console at scale: `/` filters the goal list, `h` hides quiet goals, `n` / `N` walk the decision queue,
and a new decision rings the bell once and shows in the header's count."""

from __future__ import annotations

from typing import Any

import pytest

from harn_tui.console.graph import graph_rows
from harn_tui.core.layout import Layout
from harn_tui.core.queries import pending
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.findings import FindingsPanel
from harn_tui.tui.widgets.goals import GoalsPanel
from harn_tui.tui.widgets.graph import GraphPanel
from harn_tui.tui.widgets.plans import history_content
from tests.tui import builders as b
from tests.tui import scenarios as s
from tests.tui.conftest import Factory
from tests.tui.test_start import active_keys

pytestmark = pytest.mark.anyio
DONE_GOAL = "goal-08-done"


def listed(app: Any) -> list[str]:
    return list(app.main.query_one(GoalsPanel)._order)


def header(app: Any) -> str:
    return str(app.main.query_one("#header").content)


def done_goal(layout: Layout) -> None:
    b.work(layout, "shipped", title="Ship the release")
    b.attempt(layout, "shipped", "run-shipped-1", status="passed")
    b.accept(layout, "shipped", "run-shipped-1")
    b.goal(layout, DONE_GOAL, root="shipped", title="Release 1.0")


async def test_slash_filters_the_goal_list_and_esc_clears_it(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        every = listed(app)
        await pilot.press("slash")
        await pilot.pause()
        assert app.main.query_one("#goal-filter").has_focus
        await pilot.press(*"sta")  # the attention goal's title: "Deploy to staging"
        await pilot.pause()
        assert listed(app) == [s.ATTENTION_GOAL]
        assert "showing 1 · /sta" in str(app.main.query_one(GoalsPanel).border_subtitle)
        await pilot.press("enter")
        await pilot.pause()
        assert app.main.query_one(GoalsPanel).has_focus and app.main.goal_id == s.ATTENTION_GOAL
        assert "escape" in active_keys(app), "esc clears the filter, offered in the footer"
        for needle, expected in (
            ("corrupt", [s.CORRUPT_GOAL]),
            ("resolve_appr", [s.APPROVAL_GOAL]),
            ("GOAL-03", [s.REVIEW_GOAL]),
            ("passed and awaits", [s.REVIEW_GOAL]),
        ):
            app.main.query_one("#goal-filter").value = needle
            await pilot.pause()
            assert listed(app) == expected, needle
        await pilot.press("escape")
        await pilot.pause()
        assert listed(app) == every and not app.main.query_one("#goal-filter").display
        assert "escape" not in active_keys(app)


async def test_h_hides_the_goals_that_need_nothing(everything: Layout, console: Factory) -> None:
    done_goal(everything)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert DONE_GOAL in listed(app)
        await pilot.press("1", "h")
        await pilot.pause()
        assert DONE_GOAL not in listed(app) and s.PLAN_GOAL in listed(app)
        assert "quiet hidden (h)" in str(app.main.query_one(GoalsPanel).border_subtitle)
        await pilot.press("h")
        await pilot.pause()
        assert DONE_GOAL in listed(app)


async def test_n_and_shift_n_walk_the_decisions_in_pending_order(everything: Layout, console: Factory) -> None:
    app = console()
    queue = [(row["kind"], row["goal_id"], row["work_id"]) for row in pending(everything)["pending"]]
    assert [kind for kind, _, _ in queue] == ["review_plan", "retry_plan", "review_work", "approval"]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("1")
        seen = []
        for _ in queue:
            await pilot.press("n")
            await pilot.pause(0.3)  # the selection rests: the next decision's goal is built ahead
            seen.append((app.main.goal_id, app.main.context()))
            goal = app.main.goal
            assert goal is not None
            graph = app.main.query_one(GraphPanel)
            assert graph._order == [row.key for row in graph_rows(goal)], "the graph of the goal `n` went to"
            if app.main.context() == "plans":
                diff = app.main.over_time.proposal_diff(app.main.model.tree, goal)
                assert app.main.query_one("#plans-body", ContentView).text == history_content(goal, diff).plain
        assert seen == [
            (s.PLAN_GOAL, "plans"),
            (s.ATTENTION_GOAL, "attention"),
            (s.REVIEW_GOAL, "findings"),
            (s.APPROVAL_GOAL, "graph"),
        ]
        assert app.main.query_one(GraphPanel).work_id_at_cursor == "migrate"
        assert active_keys(app).get("a") == "approve_request", "the decision's own keys decide it"
        await pilot.press("N")
        await pilot.pause()
        assert (app.main.goal_id, app.main.context()) == (s.REVIEW_GOAL, "findings")
        selected = app.main.query_one(FindingsPanel).selected
        assert selected is not None and selected.id == "docs"
        await pilot.press("n", "n")
        await pilot.pause()
        assert app.main.goal_id == s.PLAN_GOAL, "the queue wraps round"


async def test_n_jumps_past_a_filter_that_hides_the_decision(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("slash", *"review", "enter")
        await pilot.pause()
        assert s.PLAN_GOAL not in listed(app) or s.ATTENTION_GOAL not in listed(app)
        await pilot.press("n", "n")
        await pilot.pause()
        assert app.main.goal_id == s.ATTENTION_GOAL and s.ATTENTION_GOAL in listed(app)
        assert app.main.filter_text == ""


@pytest.mark.parametrize("bell", [True, False], ids=["bell", "no-bell"])
async def test_a_new_decision_rings_once_and_counts_in_the_header(
    everything: Layout, console: Factory, bell: bool
) -> None:
    app = console(bell=bell)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "4 decisions waiting" in header(app) and app.bells == 0
        b.work(everything, "hotfix", title="Hotfix the login page")
        b.attempt(everything, "hotfix", "run-hotfix-1", status="passed")
        await app.apply_paths([everything.work("hotfix") / "events.jsonl", everything.run("run-hotfix-1")])
        await pilot.pause()
        assert "5 decisions waiting" in header(app)
        assert app.bells == (1 if bell else 0)
        await app.apply_paths([everything.work("hotfix") / "events.jsonl"])
        b.reopen(everything, "docs", "the intro is too long", actor="bob")
        await app.apply_paths([everything.work("docs") / "events.jsonl"])
        await pilot.pause()
        assert "4 decisions waiting" in header(app) and app.bells == (1 if bell else 0), "a decision gone rings not"


async def test_the_goal_list_says_its_budgets_are_used_and_left(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        table = app.main.query_one(GoalsPanel)
        labels = [str(column.label) for column in table.columns.values()]
        assert "Attempts used/left" in labels and "Replans used/left" in labels
        row = table.get_row(s.ATTENTION_GOAL)
        assert str(row[labels.index("Attempts used/left")]) == "1/99"
