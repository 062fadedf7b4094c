"""Two consoles on one tree: presence heartbeats, each sees the other, and a race has one winner."""

from __future__ import annotations

import json

import pytest
from textual.widgets import Input

from harn_tui.core.layout import Layout
from harn_tui.tui import dispatch as requests
from harn_tui.tui.widgets.content_view import ContentView
from harn_tui.tui.widgets.header import HeaderBar
from tests.tui import scenarios as s
from tests.tui.conftest import Factory, notices, plan_events, settle, wait_until

pytestmark = pytest.mark.anyio


def header_text(app: object) -> str:
    return str(app.main.query_one(HeaderBar).content)  # type: ignore[attr-defined]


async def test_presence_heartbeat_is_written_seen_by_the_other_console_and_removed(
    everything: Layout, console: Factory
) -> None:
    alice = console(actor="alice", watch=True, presence=True)
    bob = console(actor="bob", watch=True, presence=True)
    async with alice.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await pa.pause()
        await pb.pause()
        mine = everything.presence / alice.heartbeat.name
        assert mine.name.startswith("alice@") and mine.name.endswith(f"-{alice.heartbeat.pid}.json")
        record = json.loads(mine.read_text())
        assert set(record) == {"actor", "host", "pid", "goal_id", "focus", "updated_at"}
        # the start writes where the cursor is, then the focus moves to the plan: that rewrite is throttled
        # (at most one per BEAT_AT_MOST_EVERY_S), so it may land half a second later
        await wait_until(pa, lambda: json.loads(mine.read_text())["focus"] == "plans")
        assert json.loads(mine.read_text())["goal_id"] == s.PLAN_GOAL
        assert oct(mine.stat().st_mode & 0o777) == "0o600"
        await pb.pause(0.3)
        alice.beat(s.PLAN_GOAL, "graph fixtures")
        await wait_until(
            pb, lambda: f"alice@{alice.heartbeat.host} on {s.PLAN_GOAL} › graph fixtures" in header_text(bob)
        )
        assert "1 other operator here" in header_text(bob)
        await wait_until(pa, lambda: "bob@" in header_text(alice))
        assert "alice@" not in header_text(alice)
    assert not (everything.presence / alice.heartbeat.name).exists()
    assert not list(everything.presence.iterdir())


async def test_two_consoles_racing_approve_and_reject_have_one_winner(everything: Layout, console: Factory) -> None:
    alice = console(actor="alice", watch=True)
    bob = console(actor="bob", watch=True)
    async with alice.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await pa.pause()
        await pb.pause()
        await pb.press("x")
        await pb.pause()
        bob.screen.query_one("#reason", Input).value = "the guard belongs in the parser"
        await pa.press("a")
        await pb.press("enter")
        await settle(pa, alice)
        await settle(pb, bob)
        outcomes = [
            e["event"]
            for e in plan_events(everything, s.PLAN_GOAL, s.PENDING_PLAN)
            if e["event"] in ("plan.applied", "plan.rejected")
        ]
        assert len(outcomes) == 1
        winner, loser = (alice, bob) if outcomes[0] == "plan.applied" else (bob, alice)
        assert any(n.title == "done" for n in winner.notices)
        refusals = [n for n in loser.notices if n.severity == "error"]
        assert len(refusals) == 1 and refusals[0].title.startswith("refused: ")
        assert "not proposed" in refusals[0].message or "already" in refusals[0].message
        verb = "applied" if outcomes[0] == "plan.applied" else "rejected"
        await wait_until(
            pa if loser is alice else pb, lambda: any(f"{winner.actor} {verb} plan" in n for n in notices(loser))
        )


async def test_two_consoles_racing_the_same_approve_apply_it_once(everything: Layout, console: Factory) -> None:
    alice = console(actor="alice")
    bob = console(actor="bob")
    async with alice.run_test(size=(120, 40)) as pa, bob.run_test(size=(120, 40)) as pb:
        await pa.pause()
        await pb.pause()
        alice.dispatch(requests.approve_plan(s.PLAN_GOAL, s.PENDING_PLAN))
        bob.dispatch(requests.approve_plan(s.PLAN_GOAL, s.PENDING_PLAN))
        await settle(pa, alice)
        await settle(pb, bob)
        applied = [e for e in plan_events(everything, s.PLAN_GOAL, s.PENDING_PLAN) if e["event"] == "plan.applied"]
        assert len(applied) == 1
        titles = sorted(n.title for app in (alice, bob) for n in app.notices if n.title in ("done", "already done"))
        assert titles == ["already done", "done"]
        body = bob.main.query_one("#attention-body", ContentView).text
        assert body
