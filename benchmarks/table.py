"""One row per benchmark figure and the table `python -m benchmarks` prints."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Figure:
    """A measured figure. `ratio` is measured/baseline when the target is relative, else None.

    `passed` is None when no target applies (a smoke run) or the figure could not be measured.
    """

    name: str
    measured: str
    baseline: str
    ratio: float | None
    target: str
    passed: bool | None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def verdict(passed: bool | None) -> str:
    return {True: "pass", False: "FAIL", None: "-"}[passed]


def render(figures: list[Figure]) -> str:
    """A Markdown table (it reads well in a terminal and pastes into the README as is)."""
    header = ("figure", "measured", "baseline", "ratio", "target", "result")
    rows = [
        (f.name, f.measured, f.baseline, f"{f.ratio:.2f}" if f.ratio is not None else "-", f.target, verdict(f.passed))
        for f in figures
    ]
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]
    lines = ["| " + " | ".join(str(cell).ljust(w) for cell, w in zip(row, widths, strict=True)) + " |" for row in rows]
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    head = "| " + " | ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)) + " |"
    notes = [f"- {f.name}: {f.note}" for f in figures if f.note]
    return "\n".join([head, rule, *lines, *(["", *notes] if notes else [])])
