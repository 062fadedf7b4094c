"""The console on a real full disk (a tmpfs the test fills): presence says it is off and why, a transition form
says writes are refused before the operator types, the refusal is shown verbatim, the embedded supervisor's
io error is a notice and it goes on serving; with space back, the same form submit is recorded."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from harn_tui.core.creation import init_tree
from harn_tui.core.layout import Layout
from harn_tui.core.queries import show_goal
from harn_tui.tui.app import HarnConsole
from harn_tui.tui.forms.reason import ReasonForm
from harn_tui.tui.widgets.header import HeaderBar
from tests.goal_kit import GoalKit, make_root
from tests.reliability.io_kit import Disk
from tests.tui import scenarios as s
from tests.tui.conftest import notices, open_form, settle, wait_until

pytestmark = pytest.mark.anyio
APPROVAL = "apr-run-migrate-1-1"
NO_SPACE = "No space left on device (ENOSPC)"


def tree_on(disk: Disk) -> Layout:
    root = disk.mount / "root"
    root.mkdir()
    init_tree(root)
    return Layout(root)


def console_on(layout: Layout, **options: object) -> HarnConsole:
    app = HarnConsole(layout, actor="alice", watch=False, root_label="ROOT", **options)  # type: ignore[arg-type]
    app.theme = "textual-dark"
    return app


def header_text(app: HarnConsole) -> str:
    return str(app.main.query_one(HeaderBar).content)


async def test_a_full_disk_turns_presence_off_and_the_form_says_writes_are_refused(disk: Disk) -> None:
    layout = tree_on(disk)
    s.approval_goal(layout)
    app = console_on(layout, presence=True)
    decision = layout.approval(APPROVAL) / "decision.json"
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, app.heartbeat.path.exists)
        with disk.full():
            await wait_until(pilot, lambda: app.presence_off is not None, timeout=10)
            assert app.presence_off is not None and app.presence_off.endswith(NO_SPACE)
            assert "presence off: cannot write" in header_text(app)
            form = await open_form(pilot, app, "x", ReasonForm)
            banner = str(form.query_one("#writes-refused", Static).content)
            assert banner.startswith(f"writes are refused: cannot write {layout.base}") and banner.endswith(NO_SPACE)
            form.query_one("#reason", Input).value = "not now"
            await pilot.press("enter")
            await settle(pilot, app)
            refused = notices(app)[-1]
            assert refused == (f"error|refused: deny request {APPROVAL}|cannot write {decision}: {NO_SPACE}")
            assert not decision.exists()
        # the same submit once space returns: recorded, and presence comes back
        form = await open_form(pilot, app, "x", ReasonForm)
        assert str(form.query_one("#writes-refused", Static).content) == ""
        form.query_one("#reason", Input).value = "not now"
        await pilot.press("enter")
        await settle(pilot, app)
        assert json.loads(decision.read_text())["verdict"] == "deny"
        await wait_until(pilot, lambda: app.presence_off is None, timeout=10)
        assert "presence off" not in header_text(app)


async def test_the_embedded_supervisor_reports_an_io_error_and_serves_on_once_space_returns(
    disk: Disk, tmp_path: Path
) -> None:
    layout = tree_on(disk)
    kit = GoalKit(layout, tmp_path)
    goal_id = kit.create(
        root_work=make_root(layout, template=kit.directory / "templates" / "implement.py", accept=("it works",)),
        options={"retry_blocked": True},
    )
    app = console_on(layout, presence=False, supervisor=True)
    disk.fill()  # before the console starts: its supervisor's first tick finds the disk full
    async with app.run_test(size=(120, 40)) as pilot:
        try:
            await wait_until(pilot, lambda: any("|embedded supervisor|" in n for n in notices(app)), timeout=15)
            [shown] = [n for n in notices(app) if "|embedded supervisor|" in n]
            assert shown.startswith(f"error|embedded supervisor|cannot write {layout.base}") and NO_SPACE in shown
            assert app.supervisor_running and app.supervisor_status == "on"
        finally:
            disk.free()
        await wait_until(pilot, lambda: show_goal(layout, goal_id).next_action == "review", timeout=30)
        assert app.supervisor_running
