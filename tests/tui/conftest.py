"""Console fixtures: a pinned clock and theme, scenario trees, and a console factory with the watcher off."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from textual.screen import Screen

from harn_tui.core.layout import Layout
from harn_tui.tui.app import HarnConsole
from tests.tui import scenarios

FIXED_NOW = "2026-07-16T10:00:00Z"
S = TypeVar("S", bound=Screen[Any])


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _pinned(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Fixed clock (deterministic events and snapshots), no theme leaking in, a short lease wait."""
    monkeypatch.setenv("HARN_FIXED_NOW", FIXED_NOW)
    monkeypatch.setenv("HARN_LEASE_TIMEOUT_S", "10")
    monkeypatch.delenv("TEXTUAL_THEME", raising=False)
    monkeypatch.delenv("HARN_POLL", raising=False)
    yield


@pytest.fixture
def everything(layout: Layout) -> Layout:
    scenarios.everything(layout)
    return layout


Factory = Callable[..., HarnConsole]


@pytest.fixture
def console(layout: Layout) -> Factory:
    """`console(actor=..., watch=..., presence=...)`: a console on the test tree, quiet by default."""

    def make(**options: Any) -> HarnConsole:
        settings: dict[str, Any] = {"actor": "alice", "watch": False, "presence": False, "root_label": "ROOT"}
        settings.update(options)
        app = HarnConsole(layout, **settings)
        app.theme = "textual-dark"
        app.animation_level = "none"
        return app

    return make


async def settle(pilot: Any, app: HarnConsole) -> None:
    """Wait for dispatch workers (not the never-ending watcher) and the messages they post to be handled."""
    pending = [w for w in app.workers if w.group == "dispatch"]
    if pending:  # an empty list would mean "every worker", the watcher included
        await app.workers.wait_for_complete(pending)
    await pilot.pause()
    await pilot.pause()


async def wait_until(pilot: Any, condition: Callable[[], bool], timeout: float = 3.0) -> float:
    """Pause until `condition()` holds; returns the seconds it took (fails the test on timeout)."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    while not condition():
        if loop.time() - start > timeout:
            raise AssertionError(f"condition not met within {timeout} s")
        await pilot.pause(0.02)
    return loop.time() - start


def plan_events(layout: Layout, goal_id: str, plan_id: str) -> list[dict[str, Any]]:
    import json

    path = layout.plan(goal_id, plan_id) / "events.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def work_events(layout: Layout, work_id: str) -> list[dict[str, Any]]:
    import json

    return [json.loads(line) for line in (layout.work(work_id) / "events.jsonl").read_text().splitlines()]


def notices(app: HarnConsole) -> list[str]:
    return [f"{n.severity}|{n.title}|{n.message}" for n in app.notices]


def root_of(layout: Layout) -> Path:
    return layout.root


async def open_form(pilot: Any, app: HarnConsole, key: str, form_type: type[S]) -> S:
    """Press `key` and return the form it opened, which must be a `form_type`."""
    await pilot.press(key)
    await pilot.pause()
    form = app.screen
    assert isinstance(form, form_type), form
    return form
