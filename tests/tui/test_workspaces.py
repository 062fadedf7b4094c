"""Agents' work in the console: each attempt's git workspace line, `d` for its diff (literal, scrollable, only
offered when there is one), a running attempt's transcript following live, and an ask-first plan as the
approval's details. Real attempts of a real template in a real git repository."""

from __future__ import annotations

import asyncio
import functools
import json
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.layout import Layout
from harn_tui.core.runner import AttemptResult, start_attempt
from harn_tui.tui.app import HarnConsole
from harn_tui.tui.screens.diff import DiffScreen
from harn_tui.tui.text import visible
from harn_tui.tui.widgets.diff_view import MAX_LINES, DiffView, shown_lines
from harn_tui.tui.widgets.graph import GraphPanel
from harn_tui.tui.widgets.item import ItemDetail
from tests.tui import builders as b
from tests.tui import git_attempts as g
from tests.tui import scenarios as s
from tests.tui.conftest import Factory, wait_until
from tests.tui.test_start import active_keys

pytestmark = pytest.mark.anyio

GOAL = "goal-agents"
WORK = "feature"


def agent_goal(layout: Layout, tmp_path: Path) -> None:
    """A goal whose root item runs the git test template."""
    create_work(
        layout,
        title="Add the feature",
        template=g.template(tmp_path / "templates"),
        objective="Add it",
        acceptance=["it is added"],
        work_id=WORK,
        actor="alice",
    )
    b.goal(layout, GOAL, root=WORK, title="Ship the feature")


def attempt(layout: Layout, monkeypatch: pytest.MonkeyPatch, mode: str, **env: str) -> AttemptResult:
    monkeypatch.setenv("GIT_TEMPLATE_MODE", mode)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return start_attempt(layout, WORK, actor="alice", goal_id=GOAL)


def committed(layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> AttemptResult:
    repo = g.repository(tmp_path / "repo")
    agent_goal(layout, tmp_path)
    result = attempt(layout, monkeypatch, "commit", TEMPLATE_REPO=str(repo), TEMPLATE_FILES=json.dumps(files))
    assert result.status == "passed", result
    return result


def _shows(item: ItemDetail, line: str) -> bool:
    return line in item.text.splitlines()


async def show_item(pilot: object, app: HarnConsole) -> ItemDetail:
    """Focus the graph on the feature item: its detail is the Item tab."""
    await pilot.press("2")  # type: ignore[attr-defined]
    assert app.main.query_one(GraphPanel).select_key(f"item:{WORK}")
    await pilot.pause()  # type: ignore[attr-defined]
    item: ItemDetail = app.main.query_one(ItemDetail)
    assert item.shown_work == WORK
    return item


async def test_the_item_tab_shows_each_attempts_workspace_line(
    layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, console: Factory
) -> None:
    result = committed(layout, tmp_path, monkeypatch, {"app.py": "def main():\n    return 2\n", "new.py": "x = 1\n"})
    commit = g.git(tmp_path / "repo", "rev-parse", f"harn/{WORK}/{result.run_id}").strip()
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        item = await show_item(pilot, app)
        shown = [line.strip() for line in item.text.splitlines()]
        assert f"workspace: harn/{WORK}/{result.run_id} {commit[:7]} +2 -1 in 2 files" in shown


async def open_diff(pilot: object, app: HarnConsole) -> DiffView:
    await pilot.press("d")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    assert isinstance(app.screen, DiffScreen)
    view = app.screen.query_one(DiffView)
    await wait_until(pilot, lambda: app.screen.loaded is not None)  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    return view


def screen_lines(view: DiffView) -> list[str]:
    """What the view puts on the terminal, line by line."""
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


async def test_d_opens_the_attempts_diff_and_it_scrolls(
    layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, console: Factory
) -> None:
    body = "".join(f"line {n}\n" for n in range(1, 81))
    committed(layout, tmp_path, monkeypatch, {"app.py": "def main():\n    return 2\n", "notes.txt": body})
    app = console()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await show_item(pilot, app)
        assert active_keys(app)["d"] == "show_diff"
        view = await open_diff(pilot, app)
        top = screen_lines(view)
        assert top[0] == "diff --git a/app.py b/app.py".ljust(len(top[0]))
        assert "-    return 1" in [line.rstrip() for line in top] and "+    return 2" in [line.rstrip() for line in top]
        assert "+line 80" not in [line.rstrip() for line in top]
        await pilot.press("end")
        await pilot.pause()
        assert view.scroll_y > 0
        assert [line.rstrip() for line in screen_lines(view)][-1] == "+line 80"
        assert "escape" in active_keys(app) and "d" not in active_keys(app)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is app.main and app.main.context() == "graph"


async def test_a_diff_shows_markup_and_escapes_as_characters(
    layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, console: Factory
) -> None:
    committed(layout, tmp_path, monkeypatch, {"hostile.txt": f"{b.HOSTILE}\n\tindented\x07\n"})
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await show_item(pilot, app)
        view = await open_diff(pilot, app)
        shown = [line.rstrip() for line in screen_lines(view)]
        assert "+[bold]not bold[/bold] [link=http://x]click[/link] ␛[31mred␛[0m [ABC] [$var] end" in shown
        assert "+   indented␇" in shown
        assert "\x1b" not in view.text and "\x07" not in view.text


async def test_d_is_offered_only_for_an_item_with_a_git_workspace(
    layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, console: Factory
) -> None:
    agent_goal(layout, tmp_path)
    (tmp_path / "gate").mkdir()
    for number in (1, 2, 3):
        (tmp_path / "gate" / str(number)).touch()
    assert attempt(layout, monkeypatch, "follow", TEMPLATE_GATE=str(tmp_path / "gate")).status == "passed"
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        item = await show_item(pilot, app)
        assert "workspace:" not in item.text
        assert "d" not in active_keys(app) and "a" in active_keys(app)
        await pilot.press("d")
        await pilot.pause()
        assert app.screen is app.main
        assert not app.main.check_action("show_diff", ())


async def test_a_running_attempts_transcript_follows_live(
    layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, console: Factory
) -> None:
    agent_goal(layout, tmp_path)
    gate = tmp_path / "gate"
    gate.mkdir()
    app = console(watch=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        item = await show_item(pilot, app)
        await pilot.pause(0.3)  # the watcher arms after the first paint
        running = asyncio.create_task(
            asyncio.to_thread(attempt, layout, monkeypatch, "follow", TEMPLATE_GATE=str(gate))
        )
        await wait_until(pilot, lambda: "running: follows live" in item.text, timeout=10)
        run_id = next(line.split()[2] for line in item.text.splitlines() if line.startswith("Output of run-"))
        for number in (1, 2, 3):
            (gate / str(number)).touch()
            shown = f"  stdout: line {number} of the agent's work"
            await wait_until(pilot, functools.partial(_shows, item, shown), timeout=10)
        result = await running
        assert result.status == "passed" and result.run_id == run_id
        await wait_until(pilot, lambda: f"Last output of {run_id}" in item.text, timeout=10)
        size = (layout.run(run_id) / "transcript.jsonl").stat().st_size
        assert 0 < app.model.transcripts.bytes_read <= size  # type: ignore[union-attr]  # each byte read once


STEPS = (
    "Read app.py and find where the greeting is built",
    "Add a name parameter to main() and pass it through " + "from the command line, keeping the old default "
    "when no name is given, so existing callers keep working; " + b.HOSTILE + " and then run the tests again",
    "Add a test for the greeting with and without a name",
)


async def test_an_ask_first_approval_shows_the_agents_steps_as_its_details(
    layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, console: Factory
) -> None:
    agent_goal(layout, tmp_path)
    details = "\n".join(f"{n}. {step}" for n, step in enumerate(STEPS, 1)) + "\n\nRationale: small steps, tested."
    assert attempt(layout, monkeypatch, "park", TEMPLATE_DETAILS=details).status == "parked"
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert app.main.context() == "graph" and active_keys(app)["a"] == "approve_request"
        item = app.main.query_one(ItemDetail)
        shown = [item.render_line(y).text.rstrip() for y in range(item.scrollable_content_region.height)]
        start = shown.index("  details:")
        assert shown[start - 1] == "  question: Approve the agent's plan for Add the feature?"
        for number, step in enumerate(STEPS, 1):
            first = next(i for i, line in enumerate(shown) if line.startswith(f"    {number}. "))
            rest = []
            for line in shown[first + 1 :]:
                if not line.startswith("       ") or line[7] == " ":
                    break
                rest.append(line.strip())
            assert " ".join([shown[first].strip(), *rest]) == f"{number}. {visible(step)}"
        assert len([line for line in shown if line.startswith("       ")]) >= 2  # the long step wrapped
        assert "    Rationale: small steps, tested." in shown


async def test_brackets_step_through_the_attempts_and_an_unreadable_diff_says_why(
    layout: Layout, console: Factory
) -> None:
    s.agents_goal(layout)
    app = console()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        assert app.main.query_one(GraphPanel).select_key("item:greet")
        await pilot.pause()
        view = await open_diff(pilot, app)
        heading = str(app.screen.query_one("#diff-heading").render())
        assert f"attempt #2 {s.AGENT_RUNS[1]} · 1 of 2 with a workspace" in heading
        assert "left_square_bracket" in active_keys(app) and "right_square_bracket" not in active_keys(app)
        await pilot.press("left_square_bracket")
        await wait_until(pilot, lambda: app.screen.loaded is not None and app.screen.index == 1)  # type: ignore[attr-defined]
        await pilot.pause()
        assert f"attempt #1 {s.AGENT_RUNS[0]} · 2 of 2" in str(app.screen.query_one("#diff-heading").render())
        assert "-    return 1" in view.lines and "right_square_bracket" in active_keys(app)
        (layout.root / ".git").rename(layout.root / ".git-moved")  # the repository is gone
        await pilot.press("right_square_bracket")
        await wait_until(pilot, lambda: app.screen.loaded is not None and app.screen.index == 0)  # type: ignore[attr-defined]
        await pilot.pause()
        assert view.lines[0].startswith("the diff bd40b5c") and "cannot be read" in view.lines[0]
        assert "cannot be read" in str(view.border_title)


def test_a_diff_past_the_line_bound_ends_with_where_to_read_the_rest() -> None:
    diff = "".join(f"+line {n}\n" for n in range(MAX_LINES + 5))
    lines, kinds = shown_lines("@@ -0,0 +1 @@\n" + diff, "harn work diff w --run r prints all of it")
    assert len(lines) == MAX_LINES + 1 and kinds[1] == "added"
    assert lines[-1] == "… 6 more lines not shown: harn work diff w --run r prints all of it"
