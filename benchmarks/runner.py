"""`python -m benchmarks`: generate (or reuse) the trees, measure every figure, print the table."""

from __future__ import annotations

import argparse
import compileall
import datetime
import importlib
import json
import os
import platform
import sys
import time
from pathlib import Path

from benchmarks.context import REPO, Context
from benchmarks.table import Figure, render

GROUPS = ("load", "refresh", "cli", "transitions", "tick", "console", "history", "serve")
# measured only when asked for (`--ray`): a Ray cluster's start-up would load the machine under the others
OPTIONAL_GROUPS = ("ray",)


def machine() -> str:
    """nproc, architecture, CPU model and Python version: what the README quotes beside the table."""
    model = platform.processor() or "unknown CPU"
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            model = next(line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"{os.cpu_count()} cores, {platform.machine()}, {model}, Python {platform.python_version()}"


def measure_group(ctx: Context, group: str) -> list[Figure]:
    """Every figure of one group; a group whose part of the project is missing reports why instead."""
    try:
        module = importlib.import_module(f"benchmarks.figures.{group}")
        figures: list[Figure] = module.measure(ctx)
    except MissingPart as missing:
        return [Figure(group, "-", "-", None, "-", None, note=f"not measured: {missing}")]
    return figures


class MissingPart(Exception):
    """A figure needs a part of the project that is not there yet (its message names the part)."""


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--large", default="L", help="tree the targets apply to (default L)")
    parser.add_argument("--small", default="S", help="reference tree of the L/S ratios (default S)")
    parser.add_argument("--repeats", type=int, default=15, help="samples per quick figure (default 15)")
    parser.add_argument("--heavy-repeats", type=int, default=5, help="samples per whole-tree load (default 5)")
    parser.add_argument("--only", default=",".join(GROUPS), help=f"comma-separated groups of {', '.join(GROUPS)}")
    parser.add_argument("--no-enforce", action="store_true", help="measure without judging (smoke runs)")
    parser.add_argument(
        "--ray",
        action="store_true",
        help="measure only the Ray executor's figures, on a two-node cluster it starts (needs ray)",
    )
    parser.add_argument("--json", type=Path, help="also write the figures as JSON to this file")
    parser.add_argument("--cache-dir", type=Path, help="where generated trees are cached")
    return parser.parse_args(argv)


def compile_bytecode() -> None:
    """Compile the project's modules as an installation does (pip compiles what it installs; an editable
    install writes bytecode on first import). Without it, a machine with PYTHONDONTWRITEBYTECODE set (this one
    has it) compiles every module from source at every start, and the figures that start processes measure
    the compiler."""
    for package in ("harn_tui", "benchmarks"):
        compileall.compile_dir(REPO / package, quiet=1)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    ctx = Context(
        large=args.large,
        small=args.small,
        repeats=args.repeats,
        heavy_repeats=args.heavy_repeats,
        enforce=not args.no_enforce and (args.large == "L" or args.ray),
    )
    if args.cache_dir is not None:
        ctx.cache_dir = args.cache_dir
    compile_bytecode()
    started = time.perf_counter()
    figures: list[Figure] = []
    groups = ["ray"] if args.ray else [g.strip() for g in args.only.split(",") if g.strip()]
    for group in groups:
        if group not in GROUPS + OPTIONAL_GROUPS:
            raise SystemExit(f"unknown group {group!r}; groups: {', '.join(GROUPS + OPTIONAL_GROUPS)}")
        ctx.log(f"measuring {group} ...")
        figures.extend(measure_group(ctx, group))
    elapsed = time.perf_counter() - started
    when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    print(f"Benchmarks {when}; {machine()}; {elapsed:.0f} s in all\n")
    print(render(figures))
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                {"date": when, "machine": machine(), "seconds": elapsed, "figures": [f.to_json() for f in figures]},
                indent=2,
            )
            + "\n"
        )
    return 1 if any(f.passed is False for f in figures) else 0
