"""History figures: `show --at` against `show` on the large tree's goal, and the console's scale keys.

`--at` runs as `harn` processes, interleaved with `supervisor show` of the same goal. The console figures come
from one real `harn tui --no-supervisor` on a 120x40 pseudo-terminal, measured as the console group's keypress
figure is: key written -> last byte of the frame it caused.
"""

from __future__ import annotations

from benchmarks.context import Context
from benchmarks.figures.cli import NO_CACHE, _run
from benchmarks.figures.console import every_goal_read, first_paint, keypresses, spawn
from benchmarks.measure import Samples, interleaved
from benchmarks.table import Figure, ms

AT_RATIO = 2.0
FILTER_S = 0.050
NEXT_S = 0.050
HISTORY_OPEN_S = 0.150
HISTORY_SCROLL_S = 0.020
UP, DOWN = b"\x1b[A", b"\x1b[B"
FILTER = "ew "  # three characters; `review` goals' reasons and titles keep some goals, not all


def at_against_show(ctx: Context, goal_id: str, middle: int) -> Figure:
    generated = ctx.tree(ctx.large)
    show = [*ctx.harn_argv(), "--root", str(generated.root), "supervisor", "show", goal_id, "--json"]
    samples = interleaved(
        {"at": lambda: _run([*show, "--at", f"event:{middle}"]), "show": lambda: _run(show, NO_CACHE)}, ctx.repeats
    )
    at, now = samples["at"].median, samples["show"].median
    ratio = at / now
    return Figure(
        f"`harn supervisor show GOAL --at event:K` / `show GOAL` ({ctx.large})",
        ms(at),
        ms(now),
        ratio,
        f"ratio <= {AT_RATIO:g}",
        ctx.judge(ratio <= AT_RATIO),
        note=f"median of {ctx.repeats} processes each, interleaved; K = {middle}, half way from "
        "the goal's creation to now; both read the records (`show` with HARN_NO_VIEW_CACHE=1: a "
        "past is never served from the view cache, and a cached present is the cli group's row)",
    )


def console_samples(ctx: Context) -> dict[str, Samples]:
    """Keys on a real `harn tui` over the large tree (a 120x40 pty): key written -> last byte of its frame."""
    generated = ctx.tree(ctx.large)
    goal = generated.goals_of_kind("review")[0]
    session = spawn(ctx, generated.root)
    taken: dict[str, list[float]] = {"filter": [], "next": [], "open": [], "scroll": [], "reference": []}
    try:
        first_paint(session, generated.targets["goals"].index(goal), "Generation 4 step")
        every_goal_read(session)  # the decision queue (`n`) is the whole tree's
        keypresses(session, b"2", 1)
        taken["reference"] = keypresses(session, DOWN, ctx.repeats)  # the console group's keypress, for scale
        keypresses(session, b"1", 1)
        for _ in range(ctx.repeats):
            keypresses(session, b"/", 1)
            keypresses(session, FILTER[:-1].encode(), 1)
            taken["filter"] += keypresses(session, FILTER[-1].encode(), 1)
            keypresses(session, b"\x1b", 1)
        taken["next"] = keypresses(session, b"n", ctx.repeats)
        for _ in range(ctx.repeats):  # each `n` lands on another goal, whose history has not been read yet
            keypresses(session, b"n", 1)
            taken["open"] += keypresses(session, b"7", 1)
        taken["scroll"] = keypresses(session, UP, ctx.repeats)  # the newest entry is selected: move up from it
    finally:
        session.close()
    return {name: Samples(tuple(values)) for name, values in taken.items()}


def measure(ctx: Context) -> list[Figure]:
    from harn_tui.core.history import load_goal_over_time
    from harn_tui.core.layout import Layout

    generated = ctx.tree(ctx.large)
    goal_id = generated.goals_of_kind("review")[0]["id"]
    over = load_goal_over_time(Layout(generated.root), goal_id)
    entries = len(over.history)
    large = ctx.large
    at = at_against_show(ctx, goal_id, (over.created_position() + entries) // 2)
    console = console_samples(ctx)
    note = (
        f"`harn tui` on a 120x40 pty, {ctx.repeats} samples: key written -> last byte of the new frame; in the "
        f"same session the graph's down-arrow (the console group's keypress figure) took "
        f"{ms(console['reference'].median)}"
    )
    return [
        at,
        Figure(
            f"console `/` filter, third character -> goal list re-rendered ({large})",
            ms(console["filter"].median),
            "-",
            None,
            f"median <= {FILTER_S * 1000:g} ms",
            ctx.judge(console["filter"].median <= FILTER_S),
            note=f"{note}; filter {FILTER!r}",
        ),
        Figure(
            f"console `n` -> next decision selected and its panel focused ({large})",
            ms(console["next"].median),
            "-",
            None,
            f"median <= {NEXT_S * 1000:g} ms",
            ctx.judge(console["next"].median <= NEXT_S),
            note=note,
        ),
        Figure(
            f"console History tab of a goal with {entries} entries opens ({large})",
            ms(console["open"].median),
            "-",
            None,
            f"median <= {HISTORY_OPEN_S * 1000:g} ms",
            ctx.judge(console["open"].median <= HISTORY_OPEN_S),
            note=f"{note}; each on a goal whose history was not read yet (`n`, then `7`)",
        ),
        Figure(
            f"console History tab, arrow key -> cursor moved ({large})",
            ms(console["scroll"].median),
            "-",
            None,
            f"median <= {HISTORY_SCROLL_S * 1000:g} ms",
            ctx.judge(console["scroll"].median <= HISTORY_SCROLL_S),
            note=note,
        ),
    ]
