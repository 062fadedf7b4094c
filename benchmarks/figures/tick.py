"""`tick` starting one template that exits at once, against starting that template with `subprocess.run`."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks.context import Context
from benchmarks.figures.transitions import sampler
from benchmarks.measure import interleaved
from benchmarks.table import Figure, ms

TARGET_RATIO = 1.5
# pairs per run, as a multiple of --repeats: a pair takes about 60 ms, and this machine's speed drifts by a
# third within seconds (the template alone takes 20 to 30 ms), so more pairs than the quick figures
PAIRS_PER_REPEAT = 3


def tick_sampler(ctx: Context) -> Callable[[], float]:
    """A tick of a goal with a ready item; it must start exactly that one attempt."""
    from harn_tui.core.supervisor import tick_goal

    return sampler(
        ctx, "ready", lambda layout, goal: tick_goal(layout, goal["id"]), done=lambda report: report.dispatches == 1
    )


def template_sampler(ctx: Context, scratch: Path) -> Callable[[], float]:
    """The same template, started directly with a manifest like the one a tick hands it."""
    generated = ctx.tree(ctx.large)
    template = Path(generated.targets["template"])
    manifest = scratch / "manifest.json"
    manifest.write_text(json.dumps({"run_id": "run-bench", "work": {"acceptance": ["it works"]}}))
    run_dir = scratch / "scratch"
    run_dir.mkdir()
    env = {
        **os.environ,
        "HARN_MANIFEST": str(manifest),
        "HARN_RUN_DIR": str(run_dir),
        "HARN_PROOF": str(run_dir / "proof.json"),
        "HARN_RUN_ID": "run-bench",
    }

    def sample() -> float:
        started = time.perf_counter()
        subprocess.run([str(template)], cwd=run_dir, env=env, check=True, stdin=subprocess.DEVNULL, capture_output=True)
        return time.perf_counter() - started

    return sample


def measure(ctx: Context) -> list[Figure]:
    scratch = Path(tempfile.mkdtemp(prefix="harn-bench-"))
    try:
        samples = interleaved(
            {"tick": tick_sampler(ctx), "template": template_sampler(ctx, scratch)},
            ctx.repeats * PAIRS_PER_REPEAT,
            warmup=2,
        )
    finally:
        shutil.rmtree(scratch)
    ticks, templates = samples["tick"], samples["template"]
    ratio = statistics.median(t / b for t, b in zip(ticks.values, templates.values, strict=True))
    return [
        Figure(
            f"`tick` starting a template that exits at once ({ctx.large})",
            ms(ticks.median),
            ms(templates.median),
            ratio,
            f"ratio <= {TARGET_RATIO:g}",
            ctx.judge(ratio <= TARGET_RATIO),
            note="supervisor tick_goal through the library (reads, manifest, events, proof, all fsynced) vs "
            f"subprocess.run of the same Python template; {len(ticks.values)} interleaved pairs, each tick "
            "undone after it; the ratio is the median of the pairs' ratios (the values are medians)",
        )
    ]
