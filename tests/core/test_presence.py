"""Presence heartbeats: written atomically with the contract's fields, stale and foreign files ignored."""

from __future__ import annotations

import json
import os

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.presence import Heartbeat, Presence, presence_file_name, read_presence, safe_host, write_presence


@pytest.fixture(autouse=True)
def _clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARN_FIXED_NOW", "2026-07-16T10:00:00Z")


def test_a_heartbeat_has_exactly_the_contract_fields_and_is_private(layout: Layout) -> None:
    beat = Heartbeat(layout, "alice", "host-1", 4242)
    beat.beat("goal-x", "plans")
    path = layout.presence / "alice@host-1-4242.json"
    assert json.loads(path.read_text()) == {
        "actor": "alice",
        "host": "host-1",
        "pid": 4242,
        "goal_id": "goal-x",
        "focus": "plans",
        "updated_at": "2026-07-16T10:00:00.000Z",
    }
    assert path.stat().st_mode & 0o777 == 0o600
    beat.beat("goal-y", None)
    assert json.loads(path.read_text())["goal_id"] == "goal-y"
    assert [p.name for p in layout.presence.iterdir()] == [path.name]
    beat.remove()
    beat.remove()
    assert not path.exists()


def test_others_are_listed_and_self_stale_and_junk_are_not(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    me = Heartbeat(layout, "alice", "h", 1)
    me.beat(None, None)
    Heartbeat(layout, "bob", "h", 2).beat("goal-x", "graph work-1")
    old = Presence(actor="carol", host="h", pid=3, updated_at="2026-07-16T09:59:40.000Z")
    write_presence(layout.presence / old.name, old)
    fresh_enough = Presence(actor="dave", host="h", pid=4, updated_at="2026-07-16T09:59:50.000Z")
    write_presence(layout.presence / fresh_enough.name, fresh_enough)
    (layout.presence / "eve@h-5.json").write_text("{not json")
    misnamed = Presence(actor="mallory", host="h", pid=6, updated_at="2026-07-16T10:00:00.000Z")
    write_presence(layout.presence / "someone-else@h-7.json", misnamed)
    (layout.presence / ".bob@h-2.json.tmp-abc").write_text("{}")
    seen = me.others()
    assert [(p.actor, p.goal_id, p.focus) for p in seen] == [("bob", "goal-x", "graph work-1"), ("dave", None, None)]
    assert [p.actor for p in read_presence(layout)] == ["alice", "bob", "dave"]


def test_host_names_are_reduced_to_id_characters() -> None:
    assert safe_host("my host/../x") == "my-host-..-x"
    assert safe_host("") == "host"
    assert presence_file_name("alice", safe_host("a b"), 7) == "alice@a-b-7.json"


def test_a_missing_presence_directory_reads_as_nobody(tmp_path: object) -> None:
    from pathlib import Path

    assert read_presence(Layout(Path(str(tmp_path)))) == []
    assert os.getpid() > 0


def test_a_heartbeat_of_a_dead_process_on_this_host_is_stale_at_once_and_removed(layout: Layout) -> None:
    """A console killed without cleaning up (SIGKILL, a closed terminal) leaves a fresh-looking heartbeat: on
    its own host its pid is probed, so nobody sees it for the 15 s it would otherwise look fresh."""
    import subprocess
    import sys

    from harn_tui.core.presence import remove_dead_here

    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead_pid = int(gone.stdout)
    here = safe_host()
    dead = Heartbeat(layout, "carol", here, dead_pid)
    dead.beat("goal-x", "plans")
    alive = Heartbeat(layout, "bob", here, os.getppid())
    alive.beat("goal-y", None)
    elsewhere = Heartbeat(layout, "dave", "another-host", dead_pid)
    elsewhere.beat(None, None)
    me = Heartbeat.for_this_process(layout, "alice")
    me.beat(None, None)
    assert [p.actor for p in read_presence(layout)] == ["alice", "bob", "dave"]
    assert [p.actor for p in me.others()] == ["bob", "dave"]
    assert not dead.path.exists() and alive.path.exists() and elsewhere.path.exists()
    assert remove_dead_here(layout) == []
