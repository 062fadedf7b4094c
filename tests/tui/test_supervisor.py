"""The embedded supervisor: `serve` in the background under the core's leases, visible in the header, toggled
with `s`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.layout import Layout
from harn_tui.tui.widgets.header import HeaderBar, HeaderState
from tests.tui import builders as b
from tests.tui.conftest import Factory, wait_until
from tests.tui.test_pairing import header_text

pytestmark = pytest.mark.anyio


async def test_embedded_supervisor_runs_ready_work_and_can_be_switched_off(
    layout: Layout, examples: Path, console: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[str] = []  # the supervisor status of every header the console rendered, in order
    show = HeaderBar.show

    def recording(header: HeaderBar, state: HeaderState) -> None:
        shown.append(state.supervisor)
        show(header, state)

    monkeypatch.setattr(HeaderBar, "show", recording)
    create_work(
        layout,
        title="Build it",
        template=examples / "templates" / "implement.py",
        objective="Build",
        acceptance=["it builds"],
        work_id="build",
        actor="alice",
    )
    b.goal(layout, "goal-embedded", root="build")
    b.work(layout, "docs", title="Write the guide")  # a goal the loop checks after, that never acts: in review
    b.attempt(layout, "docs", "run-docs-1", status="passed")
    b.goal(layout, "goal-zz-review", root="docs")
    app = console(watch=True, supervisor=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()

        def in_review() -> bool:
            goal = app.model.goals.get("goal-embedded") if app.model is not None else None
            item = goal.work_item("build") if goal is not None else None
            return item is not None and item.state == "in_review"

        await wait_until(pilot, in_review, timeout=20)
        assert app.supervisor_running and app.supervisor_status == "on"
        assert "supervisor on" in header_text(app)
        # the loop starts after the first frame, which already says it is coming, never "off"
        assert shown[0] == "starting" and "off" not in shown, shown
        attempt = app.model.goals["goal-embedded"].work_item("build").latest_attempt  # type: ignore[union-attr]
        assert attempt is not None and attempt.started_by == "supervisor" and attempt.status == "passed"
        await wait_until(
            pilot,
            lambda: "last tick goal-embedded: needs_human after 1 cycle: 1 dispatch," in header_text(app),
            timeout=10,
        )
        deadline = time.monotonic() + 2  # the idle goal's checks that follow never take the line over
        while time.monotonic() < deadline:
            assert "last tick goal-embedded" in header_text(app), header_text(app)
            await pilot.pause(0.1)
        await pilot.press("s")
        await wait_until(pilot, lambda: app.supervisor_status == "off", timeout=15)
        assert not app.supervisor_running and "supervisor off" in header_text(app)
        await pilot.press("s")
        await wait_until(pilot, lambda: app.supervisor_status == "on", timeout=5)
