"""Operator transitions through the library on an L tree goal (plan approve, plan retry, work accept), incl. fsync."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.checkpoint import Checkpoint
from benchmarks.context import Context
from benchmarks.measure import repeat
from benchmarks.table import Figure, ms

TARGET_S = 0.030
ACTOR = "bench"


def governed_dirs(base: Path, goal_id: str) -> list[Path]:
    """The goal's directory and the directories of every work item it governs (plan work and original graph)."""
    from harn_tui.core.layout import Layout
    from harn_tui.core.queries import show_goal

    view = show_goal(Layout(base.parent), goal_id)
    return [base / "supervisors" / goal_id, *(base / "work" / work_id for work_id in view.governed_work_ids)]


def read_before(layout: Any, goal_id: str) -> None:
    """What a warm process has done before it acts on a goal (the console showed it, the supervisor ticked it):
    read and projected the goal, so the process holds its scoped tree (`harn_tui.core.held`). Untimed."""
    from harn_tui.core.held import scoped_tree
    from harn_tui.core.projection import project_goal

    with scoped_tree(layout, goal_id) as tree:
        project_goal(tree, goal_id)


def applied(outcome: object) -> bool:
    return getattr(outcome, "outcome", None) == "applied"


def sampler(
    ctx: Context, kind: str, act: Callable[[Any, dict[str, Any]], object], done: Callable[[Any], bool] = applied
) -> Callable[[], float]:
    """Round-robin over the goals of `kind`; each sample times one `act` (a transition, a tick), checks it did
    its work (`done`) and then undoes it. The undo is flushed to disk before the next sample (untimed): on ext4
    an fsync commits the whole journal, so the next sample's first fsync would otherwise also commit the undo's
    truncations and removals, work the measured code never asked for."""
    from harn_tui.core.layout import Layout

    generated = ctx.tree(ctx.large)
    layout = Layout(generated.root)
    goals = generated.goals_of_kind(kind)
    watched = {goal["id"]: governed_dirs(generated.base, goal["id"]) for goal in goals[: ctx.repeats]}
    turn = [0]

    def sample() -> float:
        goal = goals[turn[0] % len(watched)]
        turn[0] += 1
        checkpoint = Checkpoint(generated.base, watched[goal["id"]])
        read_before(layout, goal["id"])
        try:
            started = time.perf_counter()
            outcome = act(layout, goal)
            elapsed = time.perf_counter() - started
            assert done(outcome), outcome
        finally:
            checkpoint.restore()
            os.sync()
        return elapsed

    return sample


def measure(ctx: Context) -> list[Figure]:
    from harn_tui.core.transitions import accept_work, approve_plan, parse_disposition, retry_plan

    verbs: dict[str, tuple[str, Callable[[Any, dict[str, Any]], object]]] = {
        "plan approve": (
            "plan_proposed",
            lambda layout, goal: approve_plan(layout, goal["id"], goal["latest_plan_id"], actor=ACTOR),
        ),
        "plan retry": (
            "plan_attention",
            lambda layout, goal: retry_plan(
                layout, goal["id"], goal["latest_plan_id"], actor=ACTOR, reason="Try the smaller design."
            ),
        ),
        "work accept": (
            "review",
            lambda layout, goal: accept_work(
                layout,
                goal["frontier_work_id"],
                actor=ACTOR,
                dispositions=[parse_disposition("f1=fixed"), parse_disposition("f2=deferred:next release")],
            ),
        ),
    }
    figures = []
    for verb, (kind, act) in verbs.items():
        samples = repeat(sampler(ctx, kind, act), ctx.repeats, warmup=2)
        figures.append(
            Figure(
                f"transition `{verb}` through the library ({ctx.large})",
                ms(samples.median),
                "-",
                None,
                f"median <= {TARGET_S * 1000:g} ms",
                ctx.judge(samples.median <= TARGET_S),
                note=f"median of {len(samples.values)}, fsync included, undone after each sample; warm process "
                "(it read the goal before, as the console has)",
            )
        )
    return figures
