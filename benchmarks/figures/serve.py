"""`harn supervisor serve` idle on the L tree, an append waking its goal, and the console with its embedded
supervisor on. Both write to the tree they serve, so they run on a freshly generated scratch copy of L.

- idle CPU: serve's first round ticks every goal (the ready ones run their attempts); once its rounds stop, the
  process's CPU time (every thread: /proc/<pid>/stat) over a window (60 s with the targets, shorter in a smoke
  run) divided by the window;
- append -> tick start: another process appends a reopen to a goal's in-review item; the time until serve
  reaches `tick.start` (its `HARN_FAULT_TRACE`), and how many goals that one append made it tick;
- the console with the embedded supervisor on (the default): first paint against a cold load, and keypresses,
  as the `--no-supervisor` rows measure them, and when its loop started after that first paint.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from benchmarks.context import Context
from benchmarks.figures import console
from benchmarks.figures.refresh import append_bytes, reopen_line
from benchmarks.measure import Samples
from benchmarks.pty_session import PtySession
from benchmarks.table import Figure, ms
from benchmarks.trees import ensure_tree

IDLE_SHARE = 0.02
IDLE_WINDOW_S = 60.0
SMOKE_WINDOW_S = 3.0
WAKE_S = 0.250
PAINT_ROUNDS = 6  # even: each side goes first in half of them
SIDES = ("on", "off")
CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of every thread of `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def service_rounds(base: Path, pid: int) -> int | None:
    for path in (base / "service").glob(f"*-{pid}.json"):
        try:
            return int(json.loads(path.read_text())["rounds"])
        except (OSError, ValueError, KeyError):
            return None
    return None


def wait_idle(base: Path, pid: int, trace: Path, quiet_s: float, timeout_s: float = 900.0) -> float:
    """Wait until serve's first round is done and nothing was traced for `quiet_s`; returns the wait."""
    started = time.monotonic()
    while (service_rounds(base, pid) or 0) < 1:
        if time.monotonic() - started > timeout_s:
            raise TimeoutError("serve never finished its first round")
        time.sleep(0.2)
    size, still = -1, time.monotonic()
    while time.monotonic() - still < quiet_s:
        now_size = trace.stat().st_size if trace.exists() else 0
        if now_size != size:
            size, still = now_size, time.monotonic()
        if time.monotonic() - started > timeout_s:
            raise TimeoutError("serve never went idle")
        time.sleep(0.1)
    return time.monotonic() - started


def spawn_serve(ctx: Context, root: Path, trace: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARN_")}
    env.update(HARN_ACTOR="bench", HARN_FAULT_TRACE=str(trace))
    return subprocess.Popen(
        [*ctx.harn_argv(), "--root", str(root), "supervisor", "serve"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wake_latencies(
    ctx: Context,
    root: Path,
    trace: Path,
    process: subprocess.Popen[bytes],
    goal: dict[str, object],
    count: int,
    quiet_s: float,
) -> tuple[list[float], list[int]]:
    """Append a reopen to the goal's in-review item, `count` times (each after serve is idle again): seconds
    from the append to `tick.start` in the trace, and how many ticks each append caused."""
    path = root / ".harnery" / "work" / str(goal["frontier_work_id"]) / "events.jsonl"
    latencies: list[float] = []
    ticks: list[int] = []
    for _ in range(count):
        wait_idle(root / ".harnery", process.pid, trace, quiet_s)
        before = trace.read_text().count("tick.start") if trace.exists() else 0
        events = sum(1 for _ in path.open("rb"))
        written = time.monotonic()
        append_bytes(path, reopen_line(events + 1))
        deadline = written + 10
        while (trace.read_text().count("tick.start") if trace.exists() else 0) == before:
            if time.monotonic() > deadline:
                raise TimeoutError(f"the append did not wake its goal; {watch_report(root, process.pid)}")
            time.sleep(0.002)
        latencies.append(time.monotonic() - written)
        wait_idle(root / ".harnery", process.pid, trace, quiet_s)
        ticks.append(trace.read_text().count("tick.start") - before)
    return latencies, ticks


def watch_report(root: Path, pid: int) -> str:
    """How many inotify watches `pid` holds for how many directories of the tree, and the limit: the limit is
    every process's of this user together, so consoles and serve loops on other large trees at the same time can
    leave this one's watch incomplete (one watch a directory; L has about 100,000)."""
    watches = 0
    for info in Path(f"/proc/{pid}/fdinfo").iterdir():
        with contextlib.suppress(OSError):
            watches += sum(1 for line in info.read_text().splitlines() if line.startswith("inotify wd:"))
    directories = sum(1 for _ in os.walk(root / ".harnery"))
    limit = Path("/proc/sys/fs/inotify/max_user_watches").read_text().strip()
    return f"serve holds {watches} inotify watches for {directories} directories; fs.inotify.max_user_watches {limit}"


def console_session(
    ctx: Context, root: Path, supervisor: bool, number: int, moves_each: int
) -> tuple[float, list[float], float | None]:
    """(first paint, keypresses, seconds from every goal read to its embedded loop's start) of one `harn tui` on
    `root`, with or without its embedded supervisor (None without it). Nothing is kept: the goals are listed
    unread at the first frame and the whole tree is read behind it; the loop starts once it is, and the keys are
    measured from then on."""
    ctx.warm_page_cache_at(root)
    session = console.spawn(ctx, root, supervisor=supervisor)
    try:
        paint = console.first_paint(session, number, "Generation 4 step")
        read = console.every_goal_read(session)
        console.settle(session)
        console.keypresses(session, console.KEYS["graph"], 1)
        moves = console.keypresses(session, console.KEYS["down"], moves_each)
        console.keypresses(session, console.KEYS["plans"], 1)
        moves += console.keypresses(session, console.KEYS["down"], moves_each)
        loop_after = loop_started_after(root, session, read) if supervisor else None
    finally:
        session.close()
    return paint, moves, loop_after


def loop_started_after(root: Path, session: PtySession, since_spawn: float) -> float:
    """Seconds from `since_spawn` (seconds after the console's spawn) to its embedded loop's start: the
    `started_at` of the loop's service file (written once the loop has imported the supervisor and listed the
    goals) against the wall-clock time of that moment."""
    path = next((root / ".harnery" / "service").glob(f"*-{session.pid}.json"))
    started = datetime.fromisoformat(json.loads(path.read_text())["started_at"].replace("Z", "+00:00")).timestamp()
    then = time.time() - (time.monotonic() - (session.started + since_spawn))
    return started - then


@dataclass
class Side:
    """One side of the console rows: first paint minus its cold-load probe, per round; keypresses; and (the
    supervisor on) its loop's start after first paint, per round."""

    overs: list[float] = field(default_factory=list)
    moves: list[float] = field(default_factory=list)
    loop_after: list[float] = field(default_factory=list)

    @property
    def over(self) -> float:
        return statistics.median(self.overs)


def consoles(ctx: Context, root: Path, targets: dict[str, object]) -> dict[str, Side]:
    """Per side ("on": the embedded supervisor, the default; "off": `--no-supervisor`, the baseline measured in
    the same run on the same tree). Each console is paired with a cold-load probe run right before it, both on a
    warmed page cache, as the `--no-supervisor` first-paint row pairs them, and the sides take turns going first:
    a machine busy for a while slows both halves of a pair, and neither side is always the one right after the
    other. (A round of one probe and then both consoles, `on` always first, put a side's place in the round into
    its figure: on a loaded machine two consoles started one after the other loaded L in 7 to 18 s.)"""
    goals = list(targets["goals"])  # type: ignore[call-overload]
    number = goals.index(next(g for g in goals if g["kind"] == "review"))
    rounds = PAINT_ROUNDS if ctx.enforce else 1
    moves_each = max(2, ctx.repeats // 3)
    sides = {side: Side() for side in SIDES}
    for index in range(rounds):
        for side in SIDES if index % 2 == 0 else SIDES[::-1]:
            ctx.warm_page_cache_at(root)
            cold = float(ctx.probe("cold-load", root)["since_spawn_seconds"])
            paint, keys, loop_after = console_session(ctx, root, side == "on", number, moves_each)
            sides[side].overs.append(paint - cold)
            sides[side].moves += keys
            if loop_after is not None:
                sides[side].loop_after.append(loop_after)
            ctx.log(f"console, supervisor {side}: first paint {paint:.2f} s, cold load {cold:.2f} s")
    return sides


def remove_later(directory: Path) -> None:
    """Remove the scratch tree in a process of its own, not waited for: a large tree's hundreds of thousands of
    files take minutes to unlink on a busy disk, and the figures are already taken."""
    subprocess.Popen(
        ["rm", "-rf", "--", str(directory)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def measure(ctx: Context) -> list[Figure]:
    scratch = Path(tempfile.mkdtemp(prefix="harn-bench-serve-"))
    try:
        started = time.perf_counter()
        generated = ensure_tree(ctx.large, scratch, fresh=True)
        ctx.log(f"generated a scratch {ctx.large} for serve in {time.perf_counter() - started:.1f} s")
        root, targets = generated.root, generated.targets
        trace = scratch / "trace"
        process = spawn_serve(ctx, root, trace)
        try:
            quiet = 3.0 if ctx.enforce else 1.0
            first_round = wait_idle(root / ".harnery", process.pid, trace, quiet)
            ctx.log(f"serve's first round done and idle after {first_round:.0f} s")
            window = IDLE_WINDOW_S if ctx.enforce else SMOKE_WINDOW_S
            before = cpu_seconds(process.pid)
            time.sleep(window)
            idle = (cpu_seconds(process.pid) - before) / window
            review = next(g for g in targets["goals"] if g["kind"] == "review")
            ctx.log(f"idle serve: {idle * 100:.2f}% of a core over {window:g} s")
            samples = max(3, ctx.repeats // 3) if ctx.enforce else 2
            latencies, ticks = wake_latencies(ctx, root, trace, process, review, samples, quiet)
        finally:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        ctx.log(f"append -> tick start: {[round(x * 1000) for x in latencies]} ms")
        sides = consoles(ctx, root, targets)
    finally:
        remove_later(scratch)
    wake = Samples(tuple(latencies))
    on, off = sides["on"], sides["off"]
    keys_on, keys_off = Samples(tuple(on.moves)), Samples(tuple(off.moves))
    rounds = len(on.overs)
    large = ctx.large
    return [
        Figure(
            f"idle `serve`, CPU share of one core ({large})",
            f"{idle * 100:.2f}%",
            "-",
            None,
            f"<= {IDLE_SHARE * 100:g}%",
            ctx.judge(idle <= IDLE_SHARE),
            note=f"CPU time of every thread of `harn supervisor serve` over {window:g} s once its first round "
            f"(which took {first_round:.0f} s) was done and nothing was traced for {quiet:g} s; a fresh "
            "scratch tree",
        ),
        Figure(
            f"append -> that goal's tick start, idle `serve` ({large})",
            f"{ms(wake.median)} (max {ms(max(wake.values))})",
            "-",
            None,
            f"<= {WAKE_S * 1000:g} ms",
            ctx.judge(max(wake.values) <= WAKE_S),
            note=f"{len(wake.values)} reopens appended by this process to one in-review item; write -> "
            f"`tick.start` in serve's HARN_FAULT_TRACE; ticks per append {ticks} (the goal, then its own "
            "writes once; no other goal)",
        ),
        Figure(
            f"console first paint, embedded supervisor on ({large})",
            f"cold load {console.sign(on.over)}",
            f"cold load {console.sign(off.over)}",
            None,
            f"<= cold load + {console.FIRST_PAINT_SLACK_S:g} s",
            ctx.judge(on.over <= console.FIRST_PAINT_SLACK_S),
            note="`harn tui` (its supervisor on, nothing kept) on the scratch tree once serve left it idle, from "
            "its spawn to goals and graph shown, minus a cold load probe's time run right before it; baseline: "
            f"`--no-supervisor` in the same rounds; median of {rounds} pair{'s' if rounds != 1 else ''} a side, "
            f"the sides taking turns to go first (on {spread(on.overs)}, off {spread(off.overs)}); the embedded "
            f"loop started {spread(on.loop_after)} after every goal was read",
        ),
        Figure(
            f"keypress -> re-render, embedded supervisor on ({large})",
            ms(keys_on.median),
            ms(keys_off.median),
            None,
            f"median <= {console.KEYPRESS_S * 1000:g} ms",
            ctx.judge(keys_on.median <= console.KEYPRESS_S),
            note=f"{len(keys_on.values)} down-arrows right after every goal was read, as the embedded loop starts; "
            "baseline: the same with `--no-supervisor`",
        ),
    ]


def spread(seconds: list[float]) -> str:
    """`min..max` of signed durations, in ms."""
    if not seconds:
        return "-"
    return f"{round(min(seconds) * 1000):+d}..{round(max(seconds) * 1000):+d} ms"
