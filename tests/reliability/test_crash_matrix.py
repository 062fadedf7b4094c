"""Crash matrix (issue 7): every writing transition of SPEC 8 and four kinds of supervisor tick, killed at every
fault point the command reaches, every time it reaches it (`<point>:<n>`, learned from `HARN_FAULT_TRACE`).

After each kill: `verify` reports nothing but torn tails, nothing acknowledged before the command is lost, no
goal projects corrupt and no plan projects applied unless every item is materialized. Then the same command is
repeated: it completes exactly once (see `transitions_under_test`) and the tree verifies clean.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from harn_tui.core.faults import FAULT_POINTS
from tests.reliability.conftest import Figures
from tests.reliability.crash_kit import Transition, prepare, run_matrix
from tests.reliability.transitions_under_test import TRANSITIONS

# transition name -> the fault points its matrix reached (filled by the matrix tests, read by the coverage test)
_REACHED: dict[str, Counter[str]] = {}


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    """A directory on tmpfs when there is one: a process kill leaves the page cache as it was, so what a kill
    leaves is the same as on disk, and the hundreds of fsyncs of the matrix cost nothing."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(prefix="harn-crash-matrix-", dir=shm))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@pytest.mark.parametrize("transition", TRANSITIONS, ids=[t.name for t in TRANSITIONS])
def test_a_kill_at_every_reached_fault_point_loses_nothing_and_the_repeat_completes_once(
    transition: Transition, workdir: Path, figures: Figures
) -> None:
    result = run_matrix(transition, workdir)
    _REACHED[transition.name] = result.reached
    figures.add("crash matrix: kill points tried", len(result.cases))
    figures.add("crash matrix: transitions and tick kinds killed", 1)
    assert result.cases, f"{transition.name} reached no fault point"
    assert result.failures == [], "\n\n".join(result.failures)


def test_the_matrix_reaches_every_fault_point_harn_lists(workdir: Path) -> None:
    """Every name `harn fault-points` prints is reached by some transition of the matrix (a point no command
    reaches would be a kill the matrix never tries). Reuses the matrix tests' traces when they ran."""
    reached: Counter[str] = Counter()
    for number, transition in enumerate(TRANSITIONS):
        if transition.name not in _REACHED:
            _REACHED[transition.name] = prepare(transition, workdir / str(number))[3]
        reached.update(_REACHED[transition.name])
    assert [point for point in FAULT_POINTS if not reached[point]] == []
    assert set(reached) <= set(FAULT_POINTS), set(reached) - set(FAULT_POINTS)
