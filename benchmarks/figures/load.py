"""Cold load: load the whole tree and project every goal, against reading and `json.loads`-ing every record."""

from __future__ import annotations

from benchmarks.context import Context
from benchmarks.measure import interleaved
from benchmarks.table import Figure, ms

TARGET_RATIO = 2.0


def measure(ctx: Context) -> list[Figure]:
    tree = ctx.tree(ctx.large)

    def probe(name: str) -> float:
        ctx.warm_page_cache(ctx.large)
        return float(ctx.probe(name, tree.root)["seconds"])

    samples = interleaved(
        {"load": lambda: probe("cold-load"), "baseline": lambda: probe("baseline")}, ctx.heavy_repeats
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
            note=f"median of {ctx.heavy_repeats} fresh processes each, the page cache warmed before each; baseline "
            "reads and json.loads every record",
        )
    ]
