"""CLI figures: `harn supervisor show GOAL --json` on L vs S (goal-scoped), `harn --help` start-up, the read verbs
and two transitions through the CLI on the small tree."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks.checkpoint import Checkpoint
from benchmarks.context import Context
from benchmarks.figures.transitions import governed_dirs
from benchmarks.measure import interleaved
from benchmarks.table import Figure, ms

SHOW_RATIO = 1.3
HELP_RATIO = 5.0
HELP_S = 0.025
READ_S = 0.150
TRANSITION_S = 0.200
NO_CACHE = {"HARN_NO_VIEW_CACHE": "1"}
UNSERVED = {"HARN_SERVER": "0"}
SERVER_WAIT_S = 60.0
CACHE_WAIT_S = 30.0


def _run(argv: list[str], env: dict[str, str] | None = None) -> float:
    started = time.perf_counter()
    subprocess.run(
        argv,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=None if env is None else {**os.environ, **env},
    )
    return time.perf_counter() - started


def warm_server(ctx: Context) -> None:
    """Start the warm CLI server as a user's first short command does, and wait until it serves: the figures
    are of the commands after the first (docs/design/cli-server.md)."""
    argv = [*ctx.harn_argv(), "--root", str(ctx.tree(ctx.small).root), "supervisor", "list", "--json"]
    deadline = time.monotonic() + SERVER_WAIT_S
    while time.monotonic() < deadline:
        done = subprocess.run(
            argv, capture_output=True, text=True, check=True, env={**os.environ, "HARN_SERVER_TRACE": "1"}
        )
        if "served by process" in done.stderr:
            return
        time.sleep(0.2)
    raise RuntimeError(f"the warm CLI server did not answer within {SERVER_WAIT_S:g} s")


def cache_holding(argv: list[str], base: Path, key: str) -> None:
    """Run `argv` until the view-cache entry `key` it reads holds. A read keeps no entry while a file it read
    changed within the last two seconds (`view_cache.SETTLED_NS`), as the goal the refresh group appends to has,
    and an entry an earlier run left may be stale until then."""
    from harn_tui.core.view_cache import ViewCache

    cache = ViewCache(base.absolute())
    deadline = time.monotonic() + CACHE_WAIT_S
    while time.monotonic() < deadline:
        _run(argv)
        if cache.get(key) is not None:
            return
        time.sleep(0.25)
    raise RuntimeError(f"{' '.join(argv)} kept no valid view-cache entry within {CACHE_WAIT_S:g} s")


def show(ctx: Context) -> Figure:
    harn = ctx.harn_argv()
    argvs = {}
    for size in (ctx.large, ctx.small):
        generated = ctx.tree(size)
        goal_id = generated.goals_of_kind("review")[0]["id"]
        argvs[size] = [*harn, "--root", str(generated.root), "supervisor", "show", goal_id, "--json"]
        cache_holding(argvs[size], generated.base, f"show~{goal_id}")
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
        note=f"median of {ctx.repeats} processes each, a goal of the same kind in both trees (100 and 10 items), "
        "served by the warm CLI server, the view cache holding in both (each read until its entry held)",
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
        f"median <= {HELP_S * 1000:g} ms, ratio <= {HELP_RATIO:g}",
        ctx.judge(help_s <= HELP_S and ratio <= HELP_RATIO),
        note="baseline is `python -c pass` with the interpreter `harn` runs on (not a pyenv shim)",
    )


def small_reads(ctx: Context) -> list[Figure]:
    """The read verbs on the small tree, as an operator runs them again and again on a tree that did not change
    (the view cache holds) and with the records read every time (`HARN_NO_VIEW_CACHE=1`), interleaved."""
    generated = ctx.tree(ctx.small)
    review = generated.goals_of_kind("review")[0]
    root = ["--root", str(generated.root)]
    verbs = {
        "supervisor show GOAL": ["supervisor", "show", review["id"], "--json"],
        "supervisor list": ["supervisor", "list", "--json"],
        "pending": ["pending", "--json"],
        "work show ID": ["work", "show", review["frontier_work_id"], "--json"],
    }
    harn = ctx.harn_argv()
    samplers: dict[str, Any] = {}
    for verb, argv in verbs.items():
        samplers[verb] = lambda argv=argv: _run([*harn, *root, *argv])
        samplers[f"{verb} (records)"] = lambda argv=argv: _run([*harn, *root, *argv], NO_CACHE)
    samples = interleaved(samplers, ctx.repeats)
    figures = []
    for verb in verbs:
        cached, read = samples[verb].median, samples[f"{verb} (records)"].median
        figures.append(
            Figure(
                f"`harn {verb} --json` ({ctx.small}, unchanged tree)",
                ms(cached),
                ms(read),
                cached / read,
                f"median <= {READ_S * 1000:g} ms",
                ctx.judge(cached <= READ_S),
                note=f"median of {ctx.repeats} processes; baseline: the records read every time (HARN_NO_VIEW_CACHE=1)",
            )
        )
    return figures


def small_transitions(ctx: Context) -> list[Figure]:
    """`plan approve` and `work accept` through the CLI on the small tree, undone after each sample."""
    generated = ctx.tree(ctx.small)
    harn = [*ctx.harn_argv(), "--root", str(generated.root)]
    proposed, review = generated.goals_of_kind("plan_proposed")[0], generated.goals_of_kind("review")[0]
    verbs = {
        "supervisor plan approve": (
            proposed,
            ["supervisor", "plan", "approve", proposed["id"], proposed["latest_plan_id"]],
        ),
        "work accept": (
            review,
            [
                "work",
                "accept",
                review["frontier_work_id"],
                "--dispose",
                "f1=fixed",
                "--dispose",
                "f2=deferred:next release",
            ],
        ),
    }
    figures = []
    for verb, (goal, argv) in verbs.items():
        watched = governed_dirs(generated.base, goal["id"])

        def sample(argv: list[str] = argv, watched: list[Any] = watched, env: dict[str, str] | None = None) -> float:
            checkpoint = Checkpoint(generated.base, watched)
            try:
                return _run([*harn, *argv, "--json"], {"HARN_ACTOR": "bench", **(env or {})})
            finally:
                checkpoint.restore()
                os.sync()

        samples = interleaved({verb: sample, f"{verb} (unserved)": partial(sample, env=UNSERVED)}, ctx.repeats)
        served, unserved = samples[verb].median, samples[f"{verb} (unserved)"].median
        figures.append(
            Figure(
                f"transition `harn {verb}` through the CLI ({ctx.small})",
                ms(served),
                ms(unserved),
                served / unserved,
                f"median <= {TRANSITION_S * 1000:g} ms",
                ctx.judge(served <= TRANSITION_S),
                note=f"median of {ctx.repeats} processes, fsync included, undone after each sample; served by the "
                "warm CLI server; baseline: the same with HARN_SERVER=0 (the command in its own process)",
            )
        )
    return figures


def measure(ctx: Context) -> list[Figure]:
    warm_server(ctx)
    return [show(ctx), help_startup(ctx), *small_reads(ctx), *small_transitions(ctx)]
