"""Console figures from one real `harn tui --no-supervisor` on a 120x40 pseudo-terminal over the L tree.

First paint (panels filled) cold (nothing kept: every goal listed unread, the selected one read) and warm (from
the goal list an earlier console kept), every goal read behind a cold first paint, peak memory, keypress ->
re-render, another process's append -> screen updated (the real watcher), and the bytes one live state change
writes to the terminal.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from pathlib import Path

from benchmarks.context import Context
from benchmarks.figures.refresh import reopen_line
from benchmarks.measure import Samples
from benchmarks.pty_session import PtySession
from benchmarks.table import Figure, ms

COLUMNS, ROWS = 120, 40
FIRST_PAINT_SLACK_S = 0.3
PAINT_ROUNDS = 9
WARM_ROUNDS = 8  # `--no-supervisor`: an embedded loop would run attempts on the shared tree (the serve group's
# rows run it, on a scratch copy; it starts once the whole tree is read, after the first frame)
WARM_S, WARM_CHANGED_S = 1.0, 1.5
KEYPRESS_S = 0.020
WATCH_MEDIAN_S, WATCH_P95_S = 0.100, 0.250
MEMORY_MB = 300
LIVE_BYTES = 8 * 1024
BURST_QUIET_S = 0.1
KEYS = {"down": b"\x1b[B", "graph": b"2", "plans": b"4"}


def spawn(ctx: Context, root: Path, *, kept: bool = False, supervisor: bool = False) -> PtySession:
    """`harn tui` on a pty. Without `kept` the view cache is off (HARN_NO_VIEW_CACHE): the console reads the whole
    tree before its first frame, every time, and keeps no goal list; with it, it starts from the kept list."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARN_")}
    env.update(TERM="xterm-256color", HARN_ACTOR="bench", COLUMNS=str(COLUMNS), LINES=str(ROWS))
    if not kept:
        env["HARN_NO_VIEW_CACHE"] = "1"
    flags = [] if supervisor else ["--no-supervisor"]
    return PtySession([*ctx.harn_argv(), "--root", str(root), "tui", *flags], COLUMNS, ROWS, env)


def burst_after(session: PtySession, mark: int, started: float, timeout: float = 5.0) -> tuple[float, float, int]:
    """(first byte, last byte, bytes) of what the program wrote after `mark` until it was quiet."""
    session.wait_for(lambda: len(session.since(mark)) > 0, timeout)
    session.wait_quiet(BURST_QUIET_S, timeout)
    chunks = session.since(mark)
    if not chunks:
        return started + timeout, started + timeout, 0
    return chunks[0][0], chunks[-1][0], sum(len(data) for _, data in chunks)


def settle(session: PtySession) -> None:
    """Wait for a moment right after the console's own periodic writes (heartbeat, clock), so a measured burst
    is the one the measured action caused."""
    session.wait_quiet(0.3, 30)


def keypresses(session: PtySession, key: bytes, count: int) -> list[float]:
    taken = []
    for _ in range(count):
        settle(session)
        mark = session.mark()
        sent = session.send(key)
        _, last, written = burst_after(session, mark, sent)
        if written:
            taken.append(last - sent)
    return taken


def live_changes(session: PtySession, path: Path, count: int) -> tuple[list[float], list[int]]:
    """Append a reopen (and then undo it) from another process; time to the screen's update and its bytes."""
    original = path.stat().st_size
    events = sum(1 for _ in path.open("rb"))
    latencies: list[float] = []
    written: list[int] = []
    try:
        for number in range(count):
            settle(session)
            mark = session.mark()
            if number % 2 == 0:
                with open(path, "ab") as handle:
                    handle.write(reopen_line(events + 1))
            else:
                os.truncate(path, original)
            changed = time.monotonic()
            first, _, size = burst_after(session, mark, changed)
            latencies.append(first - changed)
            written.append(size)
    finally:
        os.truncate(path, original)
    return latencies, written


APPENDER = """
import os, sys, time
path, line = sys.argv[1], sys.argv[2].encode() + b"\\n"
size = os.path.getsize(path)
for command in sys.stdin:
    if command.strip() == "append":
        with open(path, "ab") as handle:
            handle.write(line)
    else:
        os.truncate(path, size)
    print(time.monotonic(), flush=True)
"""


def model_latencies(ctx: Context, count: int) -> list[float]:
    """Another process appends (or undoes) a reopen; time until the console's model shows the new state.

    The console runs headless in this process, set up as `harn tui` sets it up (the watcher process started
    before the load, the model loaded, collected objects frozen); the model is polled every 2 ms.
    """
    import asyncio
    import gc
    import subprocess

    from harn_tui.console.model import ConsoleModel
    from harn_tui.core.layout import Layout
    from harn_tui.tui.app import HarnConsole
    from harn_tui.tui.watcher import TreeWatcher

    generated = ctx.tree(ctx.large)
    goal = generated.goals_of_kind("review")[0]
    goal_id, work_id = goal["id"], goal["frontier_work_id"]
    layout = Layout(generated.root)
    path = layout.work(work_id) / "events.jsonl"
    original = path.stat().st_size
    line = reopen_line(sum(1 for _ in path.open("rb")) + 1).decode().rstrip("\n")
    watcher = TreeWatcher(layout.base).start()
    model = ConsoleModel.load(layout)
    gc.freeze()
    app = HarnConsole(layout, actor="bench", model=model, watcher=watcher, presence=False)
    appender = subprocess.Popen(
        [sys.executable, "-c", APPENDER, str(path), line], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert appender.stdin is not None and appender.stdout is not None

    def state() -> str | None:
        view = app.model.goals[goal_id].work_item(work_id) if app.model is not None else None
        return view.state if view is not None else None

    async def run() -> list[float]:
        taken: list[float] = []
        async with app.run_test(size=(COLUMNS, ROWS)) as pilot:
            await pilot.pause(1.0)
            for number in range(count):
                want = "ready" if number % 2 == 0 else "in_review"
                appender.stdin.write("append\n" if number % 2 == 0 else "undo\n")  # type: ignore[union-attr]
                appender.stdin.flush()  # type: ignore[union-attr]
                written = float(await asyncio.to_thread(appender.stdout.readline))  # type: ignore[union-attr]
                deadline = time.monotonic() + 5
                while state() != want and time.monotonic() < deadline:
                    await asyncio.sleep(0.002)
                taken.append(time.monotonic() - written)
                await pilot.pause(0.2)
        return taken

    try:
        return asyncio.run(run())
    finally:
        appender.stdin.close()
        appender.wait()
        os.truncate(path, original)
        watcher.close()


def sign(seconds: float) -> str:
    return f"+ {ms(seconds)}" if seconds >= 0 else f"- {ms(-seconds)}"


def first_paint(session: PtySession, number: int, frontier_title: str) -> float:
    """Seconds from spawning the console to the goal list and the goal's graph shown."""

    def shown(text: str) -> bool:
        return f"Synthetic goal {number}" in text and frontier_title in text

    if session.wait_for(lambda: shown(session.text()), 600) is None:
        raise TimeoutError("the console never showed its panels")
    painted = session.arrived(shown)
    assert painted is not None
    return painted - session.started


READING = "as last seen (~)"  # the goal list's subtitle while it shows kept rows
# the goal list's subtitle once every goal is read (no "… reading" after the counts)
EVERY_GOAL_READ = re.compile(r"\d+ goals? · \d+ needs? a human(?: · \d+ standalone items? too)? ─")


def every_goal_read(session: PtySession, timeout: float = 600) -> float:
    """Seconds from spawning the console to its goal list showing every goal read (at once on a tree read whole
    before the first frame; behind it on a large one). Keys are measured after it, as an operator's are once the
    list is whole: while the tree is read, the reading thread shares the interpreter with the keys."""
    if session.wait_for(lambda: EVERY_GOAL_READ.search(session.text()) is not None, timeout, step=0.05) is None:
        raise TimeoutError("the console never read every goal")
    read = session.arrived(lambda text: EVERY_GOAL_READ.search(text) is not None)
    assert read is not None
    return read - session.started


def keep_goal_list(ctx: Context, root: Path, number: int, frontier_title: str) -> None:
    """One console with the cache on that reads the whole tree (nothing kept yet) and closes: the goal list it
    keeps as it closes is what the warm starts start from (as after an operator's earlier console)."""
    kept = root / ".harnery" / "cache" / f"views-u{os.getuid()}" / "console-goals.json"
    kept.unlink(missing_ok=True)
    session = spawn(ctx, root, kept=True)
    try:
        first_paint(session, number, frontier_title)
        every_goal_read(session)  # the list is kept once it is the records' (and again as the console closes)
    finally:
        session.close()
    if not kept.is_file():
        raise AssertionError(f"the console kept no goal list at {kept}")


def warm_paints(ctx: Context, root: Path, number: int, frontier_title: str, changed: Path | None) -> list[float]:
    """First paint of consoles that start from the kept goal list; with `changed`, a reopen is appended to that
    log before each start (the selected goal changed since the list was kept)."""
    paints: list[float] = []
    for _ in range(WARM_ROUNDS if ctx.enforce else 2):
        original = changed.stat().st_size if changed is not None else 0
        if changed is not None:
            with open(changed, "ab") as handle:
                handle.write(reopen_line(sum(1 for _ in changed.open("rb")) + 1))
        try:
            ctx.warm_page_cache(ctx.large)
            session = spawn(ctx, root, kept=True)
            try:
                paints.append(first_paint(session, number, frontier_title))
                if ctx.enforce and READING not in session.text():  # a small tree is read whole at once
                    raise AssertionError("the console did not start from the kept goal list")
            finally:
                session.close()
        finally:
            if changed is not None:
                os.truncate(changed, original)
    return paints


def measure(ctx: Context) -> list[Figure]:
    generated = ctx.tree(ctx.large)
    goal = generated.goals_of_kind("review")[0]
    number = generated.targets["goals"].index(goal)
    frontier_title = "Generation 4 step"
    # First paint against the cold load, both timed from their process's spawn (interpreter start and imports
    # are in both), in pairs (a probe, then a console start, each on a warmed page cache), so a machine busy for
    # a while slows both sides of a pair: the judged figure is the median of the differences. (Not side by
    # side: this VM's two cores slow each other unevenly, by up to half.)
    colds: list[float] = []
    paints: list[float] = []
    wholes: list[float] = []

    def pair() -> PtySession:
        """One pair: a cold-load probe, then a console start; the console is left running, every goal read."""
        ctx.warm_page_cache(ctx.large)
        colds.append(float(ctx.probe("cold-load", generated.root)["since_spawn_seconds"]))
        ctx.warm_page_cache(ctx.large)
        started = spawn(ctx, generated.root)
        try:
            paints.append(first_paint(started, number, frontier_title))
            wholes.append(every_goal_read(started))
        except BaseException:
            started.close()
            raise
        return started

    for _ in range(PAINT_ROUNDS - 1):
        pair().close()
    session = pair()
    try:
        settle(session)
        moves = keypresses(session, KEYS["graph"], 1)
        moves = keypresses(session, KEYS["down"], ctx.repeats)
        keypresses(session, KEYS["plans"], 1)
        moves += keypresses(session, KEYS["down"], ctx.repeats)
        path = generated.base / "work" / goal["frontier_work_id"] / "events.jsonl"
        latencies, written = live_changes(session, path, max(ctx.repeats, 2))
        peak_mb = session.peak_rss_kb() / 1024
    finally:
        session.close()
    keep_goal_list(ctx, generated.root, number, frontier_title)
    warm = Samples(tuple(warm_paints(ctx, generated.root, number, frontier_title, None)))
    frontier_log = generated.base / "work" / goal["frontier_work_id"] / "events.jsonl"
    changed = Samples(tuple(warm_paints(ctx, generated.root, number, frontier_title, frontier_log)))
    over = statistics.median(paint - cold for paint, cold in zip(paints, colds, strict=True))
    whole_over = statistics.median(whole - cold for whole, cold in zip(wholes, colds, strict=True))
    paint, cold = statistics.median(paints), statistics.median(colds)
    keys = Samples(tuple(moves))
    screen = Samples(tuple(latencies))
    watch = Samples(tuple(model_latencies(ctx, max(ctx.repeats * 2, 4))))
    live = statistics.median(written)
    large = ctx.large
    return [
        Figure(
            f"console first paint, panels filled ({large})",
            f"{ms(paint)} (cold load {sign(over)})",
            f"{ms(cold)}",
            None,
            f"<= cold load + {FIRST_PAINT_SLACK_S:g} s",
            ctx.judge(over <= FIRST_PAINT_SLACK_S),
            note=f"from spawning `harn tui` with nothing kept (HARN_NO_VIEW_CACHE) on a pty (interpreter start and "
            "imports included) to every goal listed and the selected goal's graph shown (on a large tree the "
            "others are listed as not read yet and read behind the first frame), against a fresh process's cold "
            f"load + project, also from its spawn (interpreter start and core imports in both); {PAINT_ROUNDS} "
            "pairs, each a probe then a console start on a warmed page cache; judged on the median of the "
            "pairs' differences",
        ),
        Figure(
            f"console cold start, every goal read ({large})",
            f"{ms(statistics.median(wholes))} (cold load {sign(whole_over)})",
            f"{ms(cold)}",
            None,
            "(information)",
            None,
            note="the same consoles, from spawn to the goal list showing every goal read (the whole tree read in a "
            "thread behind the first frame, as the console's watcher arms and its first-frame work runs); the "
            "same pairs' cold loads",
        ),
        Figure(
            f"console warm start, first paint, tree unchanged ({large})",
            f"{ms(warm.median)} (max {ms(max(warm.values))})",
            "-",
            None,
            f"median <= {WARM_S:g} s",
            ctx.judge(warm.median <= WARM_S),
            note=f"{len(warm.values)} starts of `harn tui --no-supervisor` from the goal list an earlier console "
            "kept, spawn to goals and the selected goal's graph shown; the rest of the tree is read behind the "
            "first frame",
        ),
        Figure(
            f"console warm start, first paint, the selected goal changed ({large})",
            f"{ms(changed.median)} (max {ms(max(changed.values))})",
            "-",
            None,
            f"median <= {WARM_CHANGED_S:g} s",
            ctx.judge(changed.median <= WARM_CHANGED_S),
            note="the same, with an event appended to the selected goal's frontier item after the list was kept",
        ),
        Figure(
            f"keypress -> re-render, graph and plan lists ({large})",
            ms(keys.median),
            "-",
            None,
            f"median <= {KEYPRESS_S * 1000:g} ms",
            ctx.judge(keys.median <= KEYPRESS_S),
            note=f"{len(keys.values)} down-arrows on a 120x40 pty: key written -> last byte of the new frame",
        ),
        Figure(
            f"append by another process -> console model updated ({large})",
            f"{ms(watch.median)} (p95 {ms(watch.p95)})",
            "-",
            None,
            f"median <= {WATCH_MEDIAN_S * 1000:g} ms, p95 <= {WATCH_P95_S * 1000:g} ms",
            ctx.judge(watch.median <= WATCH_MEDIAN_S and watch.p95 <= WATCH_P95_S),
            note=f"{len(watch.values)} appends/undos by a helper process, real watcher, console headless in "
            "the benchmark process; write -> the model shows the new state",
        ),
        Figure(
            f"append by another process -> screen redrawn ({large})",
            f"{ms(screen.median)} (p95 {ms(screen.p95)})",
            "-",
            None,
            "(information)",
            None,
            note="the same through `harn tui` on the pty: write -> first byte of the redraw (model + render)",
        ),
        Figure(
            f"console peak memory ({large})",
            f"{peak_mb:.0f} MB",
            "-",
            None,
            f"<= {MEMORY_MB} MB",
            ctx.judge(peak_mb <= MEMORY_MB),
            note="VmHWM of the `harn tui` process after the session",
        ),
        Figure(
            "bytes to the terminal for one live state change (120x40)",
            f"{live / 1024:.1f} KB",
            "-",
            None,
            f"<= {LIVE_BYTES // 1024} KB",
            ctx.judge(live <= LIVE_BYTES),
            note=f"median of {len(written)} changes of the selected goal's item, written by another process",
        ),
    ]


if __name__ == "__main__":  # pragma: no cover - manual runs
    print(measure(Context(large=sys.argv[1] if len(sys.argv) > 1 else "S")))
