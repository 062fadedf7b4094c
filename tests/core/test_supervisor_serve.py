"""`serve` in a background thread, as the console embeds it: wakes on an operator transition within a second,
stops promptly, skips unreadable goals, backs off on errors then recovers, and leaves alone a goal with no reason
to tick (an idle goal is not read again; a change or a freed lease wakes only its goal)."""

from __future__ import annotations

import importlib
import json
import logging
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from harn_tui.core.layout import Layout
from harn_tui.core.leases import hold_lease
from harn_tui.core.queries import show_goal
from harn_tui.core.supervisor import TickReport, serve
from harn_tui.core.transitions import approve_plan, reopen_work
from tests.goal_kit import LOOP, GoalKit, apply_reply, item, lose_attempt, make_root, scripted


@pytest.fixture
def kit(layout: Layout, tmp_path: Path) -> GoalKit:
    directory = tmp_path / "files"
    directory.mkdir()
    return GoalKit(layout, directory)


class Served:
    """A serve loop running in a thread, with the reports it produced."""

    def __init__(self, layout: Layout, goal_ids: list[str], wake_interval_s: float) -> None:
        self.stop = threading.Event()
        self.reports: list[tuple[str, TickReport]] = []
        self.thread = threading.Thread(
            target=serve, args=(layout, goal_ids, wake_interval_s, self.stop, self._collect), daemon=True
        )

    def _collect(self, goal_id: str, report: TickReport) -> None:
        self.reports.append((goal_id, report))

    def halt(self, within_s: float = 3.0) -> float:
        started = time.monotonic()
        self.stop.set()
        self.thread.join(within_s)
        assert not self.thread.is_alive(), "serve did not stop"
        return time.monotonic() - started


@pytest.fixture
def served() -> Iterator[Callable[..., Served]]:
    loops: list[Served] = []

    def start(layout: Layout, goal_ids: list[str] | None = None, wake_interval_s: float = 30.0) -> Served:
        loop = Served(layout, goal_ids or [], wake_interval_s)
        loops.append(loop)
        loop.thread.start()
        return loop

    yield start
    for loop in loops:
        loop.stop.set()
        loop.thread.join(10)


def wait_for(condition: Callable[[], bool], timeout: float = 10.0, step: float = 0.01) -> float:
    started = time.monotonic()
    while not condition():
        assert time.monotonic() - started < timeout, "condition not reached in time"
        time.sleep(step)
    return time.monotonic() - started


def started_attempts(layout: Layout, work_id: str) -> int:
    path = layout.work(work_id) / "events.jsonl"
    return path.read_text().count('"attempt.started"') if path.exists() else 0


def test_serve_reacts_to_an_operator_transition_within_a_second(kit: GoalKit, served: Callable[..., Served]) -> None:
    kit.team["planner"] = scripted(kit.directory, "planner", apply_reply(item("fresh")))
    goal_id = kit.create(root_work=make_root(kit.layout, template=LOOP / "fail.py"))
    loop = served(kit.layout, wake_interval_s=30.0)
    wait_for(lambda: show_goal(kit.layout, goal_id).next_action == "review_plan")
    time.sleep(0.4)
    plan_id = show_goal(kit.layout, goal_id).pending_plan_id
    assert plan_id is not None
    approve_plan(kit.layout, goal_id, plan_id, actor="alice")
    reacted = wait_for(lambda: started_attempts(kit.layout, f"{plan_id}-fresh") == 1, timeout=5)
    assert reacted < 1.0, f"serve took {reacted:.2f} s to start the approved plan's work"
    wait_for(lambda: show_goal(kit.layout, goal_id).next_action == "review")
    assert any(r.dispatches for _, r in loop.reports)
    assert loop.halt() < 1.0


def test_serve_wakes_on_its_interval_and_enrolls_new_goals(kit: GoalKit, served: Callable[..., Served]) -> None:
    loop = served(kit.layout, wake_interval_s=0.2)
    time.sleep(0.3)
    goal_id = kit.create(root_work=make_root(kit.layout))
    wait_for(lambda: show_goal(kit.layout, goal_id).next_action == "review", timeout=5)
    loop.halt()


def test_serve_skips_an_unreadable_goal_and_serves_the_others(
    kit: GoalKit, served: Callable[..., Served], caplog: pytest.LogCaptureFixture
) -> None:
    broken = kit.layout.goal("goal-broken")
    broken.mkdir(parents=True)
    (broken / "goal.json").write_text("{not json")
    goal_id = kit.create(root_work=make_root(kit.layout))
    with caplog.at_level(logging.WARNING, logger="harn_tui.supervisor"):
        loop = served(kit.layout, wake_interval_s=0.2)
        wait_for(lambda: show_goal(kit.layout, goal_id).next_action == "review", timeout=5)
        loop.halt()
    assert "goal-broken is unreadable" in caplog.text
    assert "backing off" not in caplog.text


def test_serve_backs_off_on_errors_and_recovers(
    kit: GoalKit, served: Callable[..., Served], caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARN_LEASE_TIMEOUT_S", "0.2")
    goal_id = kit.create(root_work=make_root(kit.layout, template=LOOP / "fail.py"))
    lose_attempt(kit.layout, "root-work", goal_id)
    lease = kit.layout.goal(goal_id) / "lease"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX); "
            "print('held', flush=True); sys.stdin.read()",
            str(lease),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with caplog.at_level(logging.WARNING, logger="harn_tui.supervisor"):
            loop = served(kit.layout, wake_interval_s=0.05)
            wait_for(lambda: "backing off 1 s" in caplog.text, timeout=5)
            assert "busy" in caplog.text
            time.sleep(0.5)
            assert caplog.text.count("backing off") <= 2, "errors must not be retried in a hot loop"
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait()
    wait_for(lambda: show_goal(kit.layout, goal_id).next_action == "review_plan", timeout=10)
    loop.halt()


def _ticks(loop: Served) -> Counter[str]:
    return Counter(goal_id for goal_id, _ in loop.reports)


def _settled(loop: Served, quiet_s: float = 0.6) -> Counter[str]:
    """The tick counts once no goal has been ticked for `quiet_s` (a goal's own writes wake it once more)."""
    while True:
        before = _ticks(loop)
        time.sleep(quiet_s)
        if _ticks(loop) == before:
            return before


def test_an_unchanged_goal_that_needs_a_human_is_not_ticked_again_and_a_change_wakes_only_its_goal(
    kit: GoalKit, served: Callable[..., Served]
) -> None:
    first = kit.create(root_work=make_root(kit.layout, "root-a"), goal_id="goal-a")
    second = kit.create(root_work=make_root(kit.layout, "root-b"), goal_id="goal-b")
    loop = served(kit.layout, wake_interval_s=0.1)
    wait_for(lambda: all(show_goal(kit.layout, g).next_action == "review" for g in (first, second)))
    idle = _settled(loop)
    time.sleep(1.0)  # ten wake intervals with nothing changed
    assert _ticks(loop) == idle, "an idle goal that needs a human is not read again"
    reopen_work(kit.layout, "root-b", actor="alice", findings=["Handle the empty queue."])
    wait_for(lambda: started_attempts(kit.layout, "root-b") == 2, timeout=10)
    wait_for(lambda: _ticks(loop)[second] > idle[second], timeout=20)  # its run's report, once the attempt ends
    assert _settled(loop)[first] == idle[first], "the other goal was not ticked"
    loop.halt()


def test_a_run_lease_that_frees_wakes_its_goal_without_a_file_event(
    kit: GoalKit, served: Callable[..., Served]
) -> None:
    goal_id = kit.create(root_work=make_root(kit.layout))
    lose_attempt(kit.layout, "root-work", goal_id)
    log = kit.layout.work("root-work") / "events.jsonl"
    run_id = json.loads(log.read_text().splitlines()[-1])["run_id"]
    lease = kit.layout.run(run_id) / "lease"
    lease.parent.mkdir(parents=True)
    with hold_lease(lease, "a runner in another process"):
        loop = served(kit.layout, wake_interval_s=0.2)
        wait_for(lambda: [r.stop_reason for _, r in loop.reports] == ["running"])
        time.sleep(0.5)
        assert '"lost"' not in log.read_text()
    wait_for(lambda: '"lost"' in log.read_text(), timeout=3)  # the runner died: no event, the lease probe sees it
    loop.halt()


def test_a_native_watch_that_fails_falls_back_to_polling_says_so_and_misses_nothing(
    kit: GoalKit, served: Callable[..., Served], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The inotify limit cannot be exhausted here without starving every other process on the machine, so the
    native watch is made to fail as watchfiles does then (OSError at arming); polling is the real one."""
    from harn_tui.core.service import live_services

    serve_module = importlib.import_module("harn_tui.core.supervisor.serve")  # the package's `serve` is the loop

    real_watch = serve_module.watch

    def watch(*args: object, force_polling: bool = False, **kwargs: object) -> Iterator[object]:
        if not force_polling:
            raise OSError(28, "OS file watch limit reached")
        return real_watch(*args, force_polling=True, **kwargs)  # type: ignore[no-any-return]

    monkeypatch.setattr(serve_module, "watch", watch)
    monkeypatch.setattr(serve_module, "WATCH_POLL_MS", 100)
    goal_id = kit.create(root_work=make_root(kit.layout, "root-a"), goal_id="goal-a")
    served(kit.layout, wake_interval_s=30.0)
    wait_for(lambda: show_goal(kit.layout, goal_id).next_action == "review")
    wait_for(lambda: any("native file watch failed" in (s.last_error or "") for s in live_services(kit.layout)))
    reopen_work(kit.layout, "root-a", actor="alice", findings=["Handle the empty queue."])
    wait_for(lambda: started_attempts(kit.layout, "root-a") == 2, timeout=10)  # seen by polling, not the interval
