"""One event appended to a work log -> that goal re-projected (Tree.refresh_path + project_goal), L vs S."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import records
from benchmarks.context import Context
from benchmarks.measure import interleaved
from benchmarks.table import Figure, ms

TARGET_S = 0.005
TARGET_RATIO = 2.0


def reopen_line(seq: int) -> bytes:
    finding = {"id": "f1", "statement": "The benchmark reopened this item.", "actor": "bench"}
    body = records.event(
        seq, records.iso_at(records.BASE_EPOCH + 10**8), "work.reopened", "bench", findings=[finding], reason=None
    )
    return records.event_line(body)


def append_bytes(path: Path, line: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def refresh_sampler(ctx: Context, size: str) -> Callable[[], float]:
    """A sampler of the cost of noticing one appended event in an in-review item and re-projecting its goal."""
    from harn_tui.core.layout import Layout
    from harn_tui.core.projection import project_goal
    from harn_tui.core.tree import Tree

    generated = ctx.tree(size)
    layout = Layout(generated.root)
    tree = Tree.load(layout)
    goal = generated.goals_of_kind("review")[0]
    goal_id, work_id = goal["id"], goal["frontier_work_id"]
    path = layout.work(work_id) / "events.jsonl"
    original = path.stat().st_size
    project_goal(tree, goal_id)

    def sample() -> float:
        append_bytes(path, reopen_line(len(tree.work[work_id].events) + 1))
        try:
            started = time.perf_counter()
            changed = tree.refresh_path(path)
            view = project_goal(tree, goal_id)
            elapsed = time.perf_counter() - started
            item = view.work_item(work_id)
            assert changed and item is not None and item.state == "ready", (changed, item)
        finally:
            os.truncate(path, original)
        tree.refresh_path(path)
        project_goal(tree, goal_id)
        return elapsed

    return sample


def measure(ctx: Context) -> list[Figure]:
    samplers = {size: refresh_sampler(ctx, size) for size in (ctx.large, ctx.small)}
    samples = interleaved(samplers, ctx.repeats * 10, warmup=20)
    large, small = samples[ctx.large], samples[ctx.small]
    ratio = large.median / small.median
    return [
        Figure(
            f"appended event -> goal re-projected ({ctx.large})",
            ms(large.median),
            "-",
            None,
            f"<= {TARGET_S * 1000:g} ms",
            ctx.judge(large.median <= TARGET_S),
            note=f"median of {len(large.values)}; Tree.refresh_path + project_goal on a loaded tree",
        ),
        Figure(
            f"appended event -> goal re-projected, {ctx.large}/{ctx.small}",
            ms(large.median),
            ms(small.median),
            ratio,
            f"ratio <= {TARGET_RATIO:g}",
            ctx.judge(ratio <= TARGET_RATIO),
        ),
    ]
