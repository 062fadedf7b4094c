"""Snapshots of each panel in its interesting states, at 120x40 and 80x24 (fixed clock and IDs, watcher,
presence and embedded supervisor off, theme pinned, cursor blink off). Each docstring says what to look for."""

from __future__ import annotations

from typing import Any

from textual.widgets import Input, Select, TextArea

from harn_tui.core.layout import Layout
from tests.tui import scenarios as s
from tests.tui.conftest import Factory
from tests.tui.widgets_access import goals_select

WIDE = (120, 40)
NARROW = (80, 24)


async def no_blink(pilot: Any) -> None:
    for widget in pilot.app.screen.query(Input):
        widget.cursor_blink = False
    for area in pilot.app.screen.query(TextArea):
        area.cursor_blink = False
    await pilot.pause()


def test_start_shows_the_approval_card_wide(everything: Layout, console: Factory, snap_compare: Any) -> None:
    """The first goal needing a human (goal-01-plan) is selected; the Plans tab shows plan-0002 as an approval
    card (APPROVAL NEEDED; If approved: replaces 1 ◌ waiting …-fix, keeps 2, adds 2 `+ new` with their titles;
    steps, review) whose rationale shows `[bold]…[/bold]`, `[link=…]` and `␛[31m` as
    plain characters; the goal graph shows the active root ◆root with the shared `fixtures` dependency marked
    `↗ shared` and generation 0 dimmed below; the footer offers only a/x (plus t, s, ^q)."""
    assert snap_compare(console(), terminal_size=WIDE)


def test_start_shows_the_approval_card_narrow(everything: Layout, console: Factory, snap_compare: Any) -> None:
    """The same start at 80x24: header, five goals with state words and glyphs, graph and approval card all
    visible without scrolling the screen; the footer still lists a Approve plan and x Reject plan."""
    assert snap_compare(console(), terminal_size=NARROW)


def test_attention_with_retry_eligible(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """Attention tab: why the goal stopped, the planner rationale, and `Retry plan …: ✔ eligible` with six
    `✔ yes` check lines (the checks `plan retry` applies); the footer offers r Retry plan."""
    s.attention_goal(layout)
    assert snap_compare(console(), terminal_size=WIDE)


def test_attention_with_retry_not_eligible(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """Attention tab at 80x24 for a plan requested at another fingerprint: `✖ not eligible` and the failing
    check `✖ no  fingerprint unchanged: stale graph: …` (the refusal `plan retry` would give, word for word),
    listed right after why the goal stopped;
    the footer does not offer r (the transition is not legal now)."""
    s.attention_goal(layout, eligible=False)
    assert snap_compare(console(), terminal_size=NARROW)


def test_retry_form_with_counter(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """The retry form over the console: eligibility listed before the reason field, the typed reason, and the
    live counter `16/2,000`."""
    s.attention_goal(layout)

    async def open_form(pilot: Any) -> None:
        await pilot.press("r")
        await pilot.pause()
        await no_blink(pilot)
        await pilot.press(*"reach it via vpn")
        await pilot.pause()

    assert snap_compare(console(), terminal_size=NARROW, run_before=open_form)


def test_findings_being_disposed(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """The accept form for `docs`: one row per open finding (f1, f2 by bob), f1 marked fixed, f2 deferred
    with its reason typed; the Findings panel behind shows both open findings."""
    s.review_goal(layout)

    async def dispose(pilot: Any) -> None:
        await pilot.press("a")
        await pilot.pause()
        await no_blink(pilot)
        pilot.app.screen.query_one("#choice-f1", Select).value = "fixed"
        pilot.app.screen.query_one("#choice-f2", Select).value = "deferred"
        pilot.app.screen.query_one("#why-f2", Input).value = "next release"
        await pilot.pause()

    assert snap_compare(console(), terminal_size=WIDE, run_before=dispose)


def test_corrupt_goal_beside_sound_ones(everything: Layout, console: Factory, snap_compare: Any) -> None:
    """goal-04-corrupt selected: its row reads `⌧ corrupt` with the goal.json problem; the Attention tab says
    the records are unreadable; the graph shows the reason; no transition key in the footer."""

    async def pick(pilot: Any) -> None:
        await goals_select(pilot, s.CORRUPT_GOAL)

    assert snap_compare(console(), terminal_size=WIDE, run_before=pick)


def test_item_detail_of_a_superseded_item(everything: Layout, console: Factory, snap_compare: Any) -> None:
    """Graph focused (widened at 80 columns) on the dimmed superseded `investigate`; the Item tab shows its
    objective, acceptance, the failed attempt with its proof (`✖ unsatisfied`), and the event history."""

    async def pick(pilot: Any) -> None:
        await pilot.press("2")
        pilot.app.main.query_one("#graph").select_key("item:investigate")
        await pilot.pause()

    assert snap_compare(console(), terminal_size=NARROW, run_before=pick)


def test_approval_request_in_ansi_theme(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """16-colour theme (ansi-dark): the parked `migrate` item selected in the graph shows `◇ awaiting_approval`;
    the Item tab shows the approval question; the footer offers a Approve request and x Deny request."""
    s.approval_goal(layout)
    app = console()
    app.theme = "ansi-dark"
    assert snap_compare(app, terminal_size=NARROW)


def test_standalone_work_waiting_for_a_human(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """A goal in review and, last in the goal list, `Standalone work (no goal)` selected: the graph lists the
    standalone `hotfix` (◎ in_review) and `rotate` (◇ awaiting_approval) flat under their heading, focused on
    `rotate`; the Item tab shows its approval question; the footer offers y, n and c (no t: nothing to tick)."""
    s.review_goal(layout)
    s.standalone_work(layout)

    async def pick(pilot: Any) -> None:
        await goals_select(pilot, "(standalone)")
        await pilot.press("2")
        pilot.app.main.query_one("#graph").select_key("item:rotate")
        await pilot.pause()

    assert snap_compare(console(), terminal_size=NARROW, run_before=pick)


async def agents_item(pilot: Any) -> None:
    """The agent's item in the Item tab, focused and scrolled to its attempts."""
    await pilot.press("2")
    pilot.app.main.query_one("#graph").select_key("item:greet")
    await pilot.pause()
    await pilot.press("6")
    pilot.app.main.query_one("#item").scroll_to(y=10, animate=False, immediate=True)
    await pilot.pause()


async def agents_diff(pilot: Any) -> None:
    """`d` on the agent's item: the diff of its newest attempt, read."""
    await pilot.press("2")
    pilot.app.main.query_one("#graph").select_key("item:greet")
    await pilot.pause()
    await pilot.press("d")
    await pilot.pause()
    await pilot.app.workers.wait_for_complete([w for w in pilot.app.workers if w.group == "diff"])
    await pilot.pause()
    await pilot.pause()


def test_item_with_workspace_lines_wide(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """The Item tab of `greet` scrolled to its attempts: each proof is followed by its workspace line,
    `workspace: harn/greet/run-greet-2 4d5e6e2 +44 -1 in 2 files` and `... run-greet-1 bd40b5c +2 -2 in 1 file`;
    the footer offers d Diff beside a Accept and o Reopen."""
    s.agents_goal(layout)
    assert snap_compare(console(), terminal_size=WIDE, run_before=agents_item)


def test_item_with_workspace_lines_narrow(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """The same at 80x24: the workspace lines fit on their line (or wrap under `workspace:`), d Diff in the
    footer."""
    s.agents_goal(layout)
    assert snap_compare(console(), terminal_size=NARROW, run_before=agents_item)


def test_diff_of_an_attempt_wide(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """The diff screen for attempt #2: heading `Diff of greet · attempt #2 run-greet-2 · 1 of 2 with a
    workspace` and `harn/greet/run-greet-2  base bd40b5c → 4d5e6e2  +44 -1 in 2 files`; file headers, `@@` hunks,
    `-`/`+` lines each starting with the diff's own column; the added comment shows `[bold]…[/bold]`, `[link=…]`
    and `␛[31m` as characters and the tab as spaces; the footer offers esc Back and [ Older attempt."""
    s.agents_goal(layout)
    assert snap_compare(console(), terminal_size=WIDE, run_before=agents_diff)


def test_diff_of_an_attempt_narrow(layout: Layout, console: Factory, snap_compare: Any) -> None:
    """The same diff at 80x24: lines are cut at the edge, not wrapped (a horizontal scrollbar shows there is
    more to the right), so every line still starts with its `+`, `-` or space."""
    s.agents_goal(layout)
    assert snap_compare(console(), terminal_size=NARROW, run_before=agents_diff)
