"""Every transition from the keyboard (and the palette), through its form, into the real core.

Each test asserts what lands on disk (the event, its actor and arguments) and what the operator is told.
"""

from __future__ import annotations

import json

import pytest
from textual.widgets import Button, Input, Select, Static

from harn_tui.core.errors import HarnError
from harn_tui.core.layout import Layout
from harn_tui.core.transitions import approve_plan, reject_plan
from harn_tui.tui import dispatch as requests
from harn_tui.tui.forms.accept import AcceptForm
from harn_tui.tui.forms.reason import ReasonForm
from harn_tui.tui.forms.reopen import ReopenForm
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.goals import GoalsPanel
from harn_tui.tui.widgets.graph import GraphPanel
from harn_tui.tui.widgets.plans import PlanHistory
from tests.tui import scenarios as s
from tests.tui.conftest import Factory, notices, open_form, plan_events, settle, work_events

pytestmark = pytest.mark.anyio


async def focus_goal(app: object, pilot: object, goal_id: str, panel_key: str) -> None:
    goals = app.main.query_one(GoalsPanel)  # type: ignore[attr-defined]
    goals.focus()
    goals.select_key(goal_id)
    await pilot.pause()  # type: ignore[attr-defined]
    await pilot.press(panel_key)  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]


async def test_approve_from_the_keyboard_applies_the_plan_and_updates_the_panels(
    everything: Layout, console: Factory
) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("a")
        await settle(pilot, app)
        applied = [e for e in plan_events(everything, s.PLAN_GOAL, s.PENDING_PLAN) if e["event"] == "plan.applied"]
        assert len(applied) == 1 and applied[0]["actor"] == "alice"
        assert f"information|done|approve plan {s.PENDING_PLAN}: applied" in notices(app)
        goal = app.main.goal
        assert goal is not None and goal.active_root == f"{s.PENDING_PLAN}-verify"
        plans = app.main.query_one(PlanHistory)
        assert plans.body.text.startswith(f"✔ applied  {s.PENDING_PLAN}")
        assert "APPROVAL NEEDED" not in plans.body.text and not app.main.query_one("#plan-buttons").display
        assert "approve_plan" not in {b.binding.action for b in app.screen.active_bindings.values()}
        # a repeat of the same approval is idempotent: already done, nothing written
        before = plan_events(everything, s.PLAN_GOAL, s.PENDING_PLAN)
        app.dispatch(requests.approve_plan(s.PLAN_GOAL, s.PENDING_PLAN))
        await settle(pilot, app)
        assert notices(app)[-1] == (
            f"information|already done|approve plan {s.PENDING_PLAN}: already done, nothing written"
        )
        assert plan_events(everything, s.PLAN_GOAL, s.PENDING_PLAN) == before


async def test_approve_from_the_command_palette(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"appr p")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await settle(pilot, app)
        events = [e["event"] for e in plan_events(everything, s.PLAN_GOAL, s.PENDING_PLAN)]
        assert events[-1] == "plan.applied"


async def test_reject_needs_a_reason_and_records_it_verbatim(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        form = await open_form(pilot, app, "x", ReasonForm)
        await pilot.press("enter")
        await pilot.pause()
        assert "a reason is required" in str(form.query_one("#error", Static).content)
        assert app.screen is form
        form.query_one("#reason", Input).value = "  too risky: [red]x[/red] \x1b[2J  "
        await pilot.press("enter")
        await settle(pilot, app)
        rejected = plan_events(everything, s.PLAN_GOAL, s.PENDING_PLAN)[-1]
        assert rejected["event"] == "plan.rejected" and rejected["reason"] == "too risky: [red]x[/red] \x1b[2J"
        assert app.main.goal is not None and app.main.goal.latest_plan is not None
        assert app.main.goal.latest_plan.status == "rejected"


async def test_retry_shows_eligibility_first_and_counts_characters_live(layout: Layout, console: Factory) -> None:
    s.attention_goal(layout)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.main.context() == "attention"
        form = await open_form(pilot, app, "r", ReasonForm)
        context = str(form.context)
        assert "✔ eligible" in context and "fingerprint unchanged" in context and "replan slot left" in context
        field = form.query_one("#reason", Input)
        await pilot.press(*"abc")
        assert str(form.query_one("#counter", Static).content) == "3/2,000"
        field.value = "y" * 2001
        await pilot.pause()
        counter = form.query_one("#counter", Static)
        assert str(counter.content) == "2,001/2,000" and counter.has_class("-over")
        await pilot.press("enter")
        await pilot.pause()
        assert "at most 2,000" in str(form.query_one("#error", Static).content)
        assert [e["event"] for e in plan_events(layout, s.ATTENTION_GOAL, s.ATTENTION_PLAN)][-1] == "plan.attention"
        field.value = "staging is reachable again; try the network path"
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        last = plan_events(layout, s.ATTENTION_GOAL, s.ATTENTION_PLAN)[-1]
        assert last["event"] == "plan.retry_requested" and last["reason"].startswith("staging is reachable")


async def test_retry_that_is_not_eligible_is_not_offered_and_says_why(layout: Layout, console: Factory) -> None:
    s.attention_goal(layout, eligible=False)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        assert "r" not in app.screen.active_bindings
        body = str(app.main.query_one("#attention-body", ContentView).text)
        assert "✖ not eligible" in body and "✖ no  fingerprint unchanged" in body
        assert app.main.query_one("#attention-retry", Button).disabled
        await pilot.press("r")
        await settle(pilot, app)
        assert not isinstance(app.screen, ReasonForm)
        assert [e["event"] for e in plan_events(layout, s.ATTENTION_GOAL, s.ATTENTION_PLAN)][-1] == "plan.attention"


async def test_reopen_with_several_findings(layout: Layout, console: Factory) -> None:
    s.review_goal(layout)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.main.context() == "findings"
        form = await open_form(pilot, app, "o", ReopenForm)
        form.query_one("#finding-1", Input).value = "the [b]title[/b] is wrong"
        await pilot.press("enter")
        await pilot.pause()
        assert form.focused is form.query_one("#finding-2", Input)
        await pilot.press(*"the footer")
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        last = work_events(layout, "docs")[-1]
        assert last["event"] == "work.reopened" and last["actor"] == "alice"
        assert [(f["id"], f["statement"]) for f in last["findings"]] == [
            ("f1", "the [b]title[/b] is wrong"),
            ("f2", "the footer"),
        ]
        assert app.main.goal is not None and app.main.goal.work_item("docs").state == "ready"  # type: ignore[union-attr]


async def test_accept_disposes_every_open_finding(layout: Layout, console: Factory) -> None:
    s.review_goal(layout)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        form = await open_form(pilot, app, "a", AcceptForm)
        await pilot.press("ctrl+s")
        await pilot.pause()
        error = str(form.query_one("#error", Static).content)
        assert "f1: choose fixed or deferred" in error and "f2: choose fixed or deferred" in error
        form.query_one("#choice-f1", Select).value = "fixed"
        await pilot.pause()
        error = str(form.query_one("#error", Static).content)  # the mended problem goes at once; the other stays
        assert "f1: choose" not in error and "f2: choose fixed or deferred" in error
        form.query_one("#choice-f2", Select).value = "deferred"
        await pilot.pause()
        assert str(form.query_one("#error", Static).content) == "f2: deferring needs a reason"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "f2: deferring needs a reason" in str(form.query_one("#error", Static).content)
        form.query_one("#why-f2", Input).value = "next release: screenshots need the new theme"
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        last = work_events(layout, "docs")[-1]
        assert last["event"] == "work.accepted"
        assert last["dispositions"] == [
            {"id": "f1", "outcome": "fixed", "reason": None},
            {"id": "f2", "outcome": "deferred", "reason": "next release: screenshots need the new theme"},
        ]
        assert app.main.goal is not None and app.main.goal.state == "succeeded"


async def test_cancel_asks_to_confirm(layout: Layout, console: Factory) -> None:
    s.review_goal(layout)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        assert isinstance(app.screen, ReasonForm)
        await pilot.press("escape")
        await pilot.pause()
        assert work_events(layout, "docs")[-1]["event"] == "attempt.finished"
        await pilot.press("c")
        await pilot.pause()
        app.screen.query_one("#reason", Input).value = "superseded by the wiki"
        await pilot.press("enter")
        await settle(pilot, app)
        last = work_events(layout, "docs")[-1]
        assert last["event"] == "work.cancelled" and last["reason"] == "superseded by the wiki"


@pytest.mark.parametrize(("key", "verdict"), [("a", "approve"), ("x", "deny")])
async def test_approval_request_approve_and_deny(layout: Layout, console: Factory, key: str, verdict: str) -> None:
    s.approval_goal(layout)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.main.context() == "graph"
        await pilot.press(key)
        await pilot.pause()
        if verdict == "deny":
            assert isinstance(app.screen, ReasonForm)
            app.screen.query_one("#reason", Input).value = "not during business hours"
            await pilot.press("enter")
        await settle(pilot, app)
        decision = json.loads((layout.approval("apr-run-migrate-1-1") / "decision.json").read_text())
        assert decision["verdict"] == verdict and decision["actor"] == "alice"
        assert decision["reason"] == ("not during business hours" if verdict == "deny" else None)
        enabled = {key for key, active in app.screen.active_bindings.items() if active.enabled}
        assert {"a", "x"}.isdisjoint(enabled), "decided: neither is offered any more"


async def test_tick_runs_one_supervisor_cycle(layout: Layout, console: Factory) -> None:
    from tests.tui import builders as b

    b.work(layout, "build", title="Build it")
    b.goal(layout, "goal-tick", root="build")
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("t")
        for _ in range(200):
            await pilot.pause(0.05)
            if any(n.title == "done" for n in app.notices):
                break
        assert any(n.message.startswith("tick goal goal-tick: ") for n in app.notices if n.title == "done")
        started = [e for e in work_events(layout, "build") if e["event"] == "attempt.started"]
        assert len(started) == 1
        await pilot.pause()
        item = app.main.goal.work_item("build")  # type: ignore[union-attr]
        assert item is not None and item.attempts_used == 1


async def test_a_refusal_is_shown_verbatim(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        reject_plan(everything, s.PLAN_GOAL, s.PENDING_PLAN, actor="bob", reason="bob got there first")
        await pilot.press("a")
        await settle(pilot, app)
        with pytest.raises(HarnError) as refusal:
            approve_plan(everything, s.PLAN_GOAL, s.PENDING_PLAN, actor="alice")
        assert f"error|refused: approve plan {s.PENDING_PLAN}|{refusal.value.message}" in notices(app)
        assert f"information|bob|bob rejected plan {s.PENDING_PLAN} (goal {s.PLAN_GOAL})" in notices(app)
        assert app.main.goal is not None and app.main.goal.latest_plan.status == "rejected"  # type: ignore[union-attr]


async def test_graph_selection_shows_item_detail(everything: Layout, console: Factory) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        graph = app.main.query_one(GraphPanel)
        assert graph.select_key("item:investigate")
        await pilot.pause()
        body = str(app.main.query_one("#item", ContentView).text)
        assert "Investigate the crash" in body and "superseded (not dispatchable)" in body
        assert "Objective" in body and "Do investigate" in body
        assert "#1 initial ✖ failed run-investigate-1" in body and "segfault in the lexer" in body
        assert "History (seq · time · event · actor · reason)" in body
        assert "  1 2026-07-16T10:00:00.000Z work.created alice" in body


async def test_each_verb_repeated_is_already_done_and_a_conflicting_repeat_is_refused(
    everything: Layout, console: Factory
) -> None:
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        sequence = [
            requests.reject_plan(s.PLAN_GOAL, s.PENDING_PLAN, "not now"),
            requests.reject_plan(s.PLAN_GOAL, s.PENDING_PLAN, "not now"),
            requests.reject_plan(s.PLAN_GOAL, s.PENDING_PLAN, "a different reason"),
            requests.retry_plan(s.ATTENTION_GOAL, s.ATTENTION_PLAN, "look again"),
            requests.retry_plan(s.ATTENTION_GOAL, s.ATTENTION_PLAN, "look again"),
            requests.reopen_work("docs", ["one"], None),
            requests.reopen_work("docs", ["one"], None),
            requests.decide_request("apr-run-migrate-1-1", "deny", "no"),
            requests.decide_request("apr-run-migrate-1-1", "deny", "no"),
            requests.decide_request("apr-run-migrate-1-1", "approve", None),
            requests.cancel_work("migrate", None),
            requests.cancel_work("migrate", None),
        ]
        for request in sequence:
            app.dispatch(request)
            await settle(pilot, app)
        kinds = [n.title.split(":")[0] for n in app.notices]
        assert kinds == [
            "done",
            "already done",
            "refused",
            "done",
            "already done",
            "done",
            "already done",
            "done",
            "already done",
            "refused",
            "done",
            "already done",
        ]
        refusals = [n.message for n in app.notices if n.severity == "error"]
        assert "different reason" in refusals[0]
        assert "apr-run-migrate-1-1" in refusals[1]


async def test_the_approve_button_applies_the_plan(everything: Layout, console: Factory) -> None:
    """The card's Approve button (for the mouse) goes through the same gate and transition as `a`."""
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert await pilot.click("#card-approve")
        await settle(pilot, app)
        applied = [e for e in plan_events(everything, s.PLAN_GOAL, s.PENDING_PLAN) if e["event"] == "plan.applied"]
        assert len(applied) == 1 and applied[0]["actor"] == "alice"
