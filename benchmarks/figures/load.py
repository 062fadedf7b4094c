"""Cold load: load the whole tree and project every goal, against reading and `json.loads`-ing every record."""

from __future__ import annotations

from benchmarks.context import Context
from benchmarks.measure import interleaved
from benchmarks.table import Figure, ms

TARGET_RATIO = 2.5


def measure(ctx: Context) -> list[Figure]:
    tree = ctx.tree(ctx.large)
    samples = interleaved(
        {
            "load": lambda: float(ctx.probe("cold-load", tree.root)["seconds"]),
            "baseline": lambda: float(ctx.probe("baseline", tree.root)["seconds"]),
        },
        ctx.heavy_repeats,
    )
    load, baseline = samples["load"].median, samples["baseline"].median
    ctx.shared["cold_load_s"] = load
    ratio = load / baseline
    return [
        Figure(
            f"cold load + project every goal ({ctx.large})",
            ms(load),
            ms(baseline),
            ratio,
            f"ratio <= {TARGET_RATIO}",
            ctx.judge(ratio <= TARGET_RATIO),
            note=f"median of {ctx.heavy_repeats} fresh processes each; baseline reads and json.loads every record",
        )
    ]
