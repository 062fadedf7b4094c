"""CLI figures: `harn supervisor show GOAL --json` on L vs S (goal-scoped), and `harn --help` start-up."""

from __future__ import annotations

import subprocess
import sys
import time

from benchmarks.context import Context
from benchmarks.measure import interleaved
from benchmarks.table import Figure, ms

SHOW_RATIO = 1.3
HELP_RATIO = 5.0


def _run(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def show(ctx: Context) -> Figure:
    harn = ctx.harn_argv()
    argvs = {}
    for size in (ctx.large, ctx.small):
        generated = ctx.tree(size)
        goal_id = generated.goals_of_kind("review")[0]["id"]
        argvs[size] = [*harn, "--root", str(generated.root), "supervisor", "show", goal_id, "--json"]
    samples = interleaved({size: (lambda argv=argv: _run(argv)) for size, argv in argvs.items()}, ctx.repeats)
    large, small = samples[ctx.large].median, samples[ctx.small].median
    ratio = large / small
    return Figure(
        f"`harn supervisor show GOAL --json`, {ctx.large}/{ctx.small}",
        ms(large),
        ms(small),
        ratio,
        f"ratio <= {SHOW_RATIO:g}",
        ctx.judge(ratio <= SHOW_RATIO),
        note=f"median of {ctx.repeats} processes each, a goal of the same kind in both trees",
    )


def help_startup(ctx: Context) -> Figure:
    samples = interleaved(
        {
            "help": lambda: _run([*ctx.harn_argv(), "--help"]),
            "pass": lambda: _run([sys.executable, "-c", "pass"]),
        },
        ctx.repeats,
    )
    help_s, pass_s = samples["help"].median, samples["pass"].median
    ratio = help_s / pass_s
    return Figure(
        "`harn --help`",
        ms(help_s),
        ms(pass_s),
        ratio,
        f"ratio <= {HELP_RATIO:g}",
        ctx.judge(ratio <= HELP_RATIO),
        note="baseline is `python -c pass` with the interpreter `harn` runs on (not a pyenv shim)",
    )


def measure(ctx: Context) -> list[Figure]:
    return [show(ctx), help_startup(ctx)]
