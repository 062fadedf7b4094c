"""The goal list a console keeps for the next one: what it keeps, when a console starts from it, and that a
damaged, forged or foreign file is ignored (the console then reads the whole tree, as with nothing kept)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from harn_tui.console import kept as kept_module
from harn_tui.console.kept import KEY, keep_goals, kept_goals
from harn_tui.console.model import ConsoleModel
from harn_tui.core import sharing, view_cache
from harn_tui.core.layout import Layout
from harn_tui.core.transitions import approve_plan
from harn_tui.core.view_cache import DISABLE_ENV, ViewCache
from tests.tui import scenarios as s


@pytest.fixture(autouse=True)
def _clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARN_FIXED_NOW", "2026-07-16T10:00:00Z")
    monkeypatch.delenv(DISABLE_ENV, raising=False)


@pytest.fixture
def kept(layout: Layout) -> Path:
    """A tree with every kind of goal, its list kept as if reading it had taken 4 s; the kept file's path."""
    s.everything(layout)
    keep_goals(layout, ConsoleModel.load(layout).goal_list(), read_seconds=4.0)
    return ViewCache(layout.base).path(KEY)


def test_the_kept_rows_are_the_goal_list_as_it_was_read(layout: Layout, kept: Path) -> None:
    found = kept_goals(layout)
    assert found is not None and found.read_seconds == 4.0
    rows = {row.id: row for row in found.rows}
    model = ConsoleModel.load(layout)
    assert set(rows) == set(model.goals)
    plan = rows[s.PLAN_GOAL]
    view = model.goals[s.PLAN_GOAL]
    assert (plan.title, plan.state, plan.next_action, plan.reason) == (
        view.title,
        view.state,
        view.next_action,
        view.reason,
    )
    assert plan.attempts == f"{view.attempts_used}/{view.attempts_remaining}"
    assert rows[s.CORRUPT_GOAL].state == "corrupt" and rows[s.CORRUPT_GOAL].attempts == "—"
    assert kept.stat().st_mode & 0o077 == 0  # this account's own


def test_a_console_starts_from_the_kept_rows_only_when_the_whole_tree_is_slow_to_read(
    layout: Layout, kept: Path
) -> None:
    opened = ConsoleModel.opening(layout)
    assert not opened.complete and opened.unread == set(opened.goals)
    keep_goals(layout, ConsoleModel.load(layout).goal_list(), read_seconds=0.1)
    assert ConsoleModel.opening(layout).complete  # read whole at once: a kept list would only flicker


def test_a_goal_read_from_a_started_model_is_the_records_not_its_kept_row(layout: Layout, kept: Path) -> None:
    approve_plan(layout, s.PLAN_GOAL, s.PENDING_PLAN, actor="bob")  # after the list was kept
    whole = ConsoleModel.load(layout)
    started = ConsoleModel.opening(layout)
    assert started.goals[s.PLAN_GOAL].state == "awaiting_attention"  # as last seen
    assert started.read_goal(s.PLAN_GOAL)
    assert s.PLAN_GOAL not in started.unread and s.PLAN_GOAL not in started.kept_rows()
    read = started.goals[s.PLAN_GOAL]
    assert read.state == whole.goals[s.PLAN_GOAL].state != "awaiting_attention"
    assert read.work == whole.goals[s.PLAN_GOAL].work
    assert not started.read_goal(s.PLAN_GOAL)  # once


def test_a_started_model_leaves_alone_what_it_has_not_read(layout: Layout, kept: Path) -> None:
    """A change to a goal not read yet is read with the whole tree; one to a goal read is seen at once."""
    started = ConsoleModel.opening(layout)
    started.read_goal(s.REVIEW_GOAL)
    approve_plan(layout, s.PLAN_GOAL, s.PENDING_PLAN, actor="bob")
    update = started.apply([layout.plan(s.PLAN_GOAL, s.PENDING_PLAN) / "events.jsonl"])
    assert update.empty and s.PLAN_GOAL not in started.tree.goals
    assert started.goals[s.PLAN_GOAL].state == "awaiting_attention"  # still the kept row, still marked unread
    assert started.standalone is None


def test_a_goal_removed_since_the_list_was_kept_leaves_the_list_when_read(layout: Layout, kept: Path) -> None:
    started = ConsoleModel.opening(layout)
    os.rename(layout.goal(s.APPROVAL_GOAL), layout.base / "gone")
    assert started.read_goal(s.APPROVAL_GOAL)
    assert s.APPROVAL_GOAL not in started.goals


@pytest.mark.parametrize(
    "damage",
    [
        "truncated",
        "garbage",
        "bad id",
        "unknown state",
        "forged digest",
        "group writable",
        "other tree",
    ],
)
def test_a_damaged_or_foreign_kept_file_is_ignored(layout: Layout, kept: Path, damage: str) -> None:
    data = kept.read_bytes()
    header, _, body = data.partition(b"\n")
    entry = json.loads(body)
    if damage == "truncated":
        kept.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        kept.write_bytes(b"\x00\xff not a kept file")
    elif damage in ("bad id", "unknown state", "other tree"):
        if damage == "bad id":
            entry["document"]["goals"][0][0] = "../../etc"
        elif damage == "unknown state":
            entry["document"]["goals"][0][2] = "[bold]owned[/bold]"
        else:
            entry["base"] = "/somewhere/else/.harnery"
        kept.write_bytes(_rewritten(entry))
    elif damage == "forged digest":
        entry["document"]["goals"][0][1] = "forged"
        kept.write_bytes(header + b"\n" + json.dumps(entry).encode())
    else:
        kept.chmod(0o664)
    assert kept_goals(layout) is None
    assert ConsoleModel.opening(layout).complete  # read whole, as if nothing were kept


def test_nothing_is_kept_or_used_with_the_cache_off(
    layout: Layout, kept: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DISABLE_ENV, "1")
    assert kept_goals(layout) is None
    kept.unlink()
    keep_goals(layout, ConsoleModel.load(layout).goal_list(), read_seconds=4.0)
    assert not kept.exists()


def test_a_shared_tree_keeps_no_goal_list(layout: Layout, kept: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    layout.base.chmod(0o2770)  # what `init --shared` makes of the base: its group could forge the list
    monkeypatch.setattr(sharing, "_groups", {})  # as a new process finds it
    assert kept_goals(layout) is None


def _rewritten(entry: dict[str, object]) -> bytes:
    """An entry re-digested as the cache writes it: only the checks of its content can refuse it."""
    body = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()
    return view_cache._header(body) + b"\n" + body


def test_with_nothing_kept_a_large_tree_starts_from_its_goals_unread(
    layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    s.everything(layout)
    whole = ConsoleModel.load(layout)
    monkeypatch.setenv(DISABLE_ENV, "1")  # nothing kept can be read
    monkeypatch.setattr(kept_module, "UNREAD_START_WORK_ITEMS", len(whole.tree.work))
    model = ConsoleModel.opening(layout)
    assert not model.complete and model.kept is not None and model.kept.seen_at is None
    rows = model.kept_rows()
    assert set(rows) == set(whole.goals) == model.unread
    assert all(row.state is None for row in rows.values())
    # the title its goal file gives; a goal file that does not read gives none (the list shows its id)
    titles = {row.id: row.title for row in rows.values()}
    assert titles == {g.id: "" if g.state == "corrupt" else g.title for g in whole.goals.values()}
    assert model.read_goal(s.REVIEW_GOAL)
    assert model.goals[s.REVIEW_GOAL] == whole.goals[s.REVIEW_GOAL] and s.REVIEW_GOAL not in model.kept_rows()


def test_with_nothing_kept_a_smaller_tree_is_read_whole(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    s.everything(layout)
    monkeypatch.setenv(DISABLE_ENV, "1")
    works = len(ConsoleModel.load(layout).tree.work)
    monkeypatch.setattr(kept_module, "UNREAD_START_WORK_ITEMS", works + 1)
    assert ConsoleModel.opening(layout).complete


def test_an_unread_row_whose_goal_file_is_damaged_has_no_title(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    s.everything(layout)
    monkeypatch.setenv(DISABLE_ENV, "1")
    monkeypatch.setattr(kept_module, "UNREAD_START_WORK_ITEMS", 1)
    (layout.goal(s.REVIEW_GOAL) / "goal.json").write_bytes(b'{"title": "half a fi')
    model = ConsoleModel.opening(layout)
    assert model.kept_rows()[s.REVIEW_GOAL].title == ""
    assert model.read_goal(s.REVIEW_GOAL) and model.goals[s.REVIEW_GOAL].state == "corrupt"
