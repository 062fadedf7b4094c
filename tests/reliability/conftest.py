"""Reliability figures: each suite counts what it tried (kill points, raced transitions, corruptions, hostile
inputs) and the session prints them at the end, for docs/guide/reliability.md to quote."""

from __future__ import annotations

from collections import Counter

import pytest

_FIGURES: Counter[str] = Counter()


class Figures:
    """Counts one kind of trial, e.g. `figures.add("crash matrix: kill points tried")`."""

    def add(self, name: str, count: int = 1) -> None:
        _FIGURES[name] += count


@pytest.fixture(scope="session")
def figures() -> Figures:
    return Figures()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if not _FIGURES:
        return
    terminalreporter.section("reliability figures (all with nothing lost)")
    for name in sorted(_FIGURES):
        terminalreporter.write_line(f"{_FIGURES[name]:>8}  {name}")
