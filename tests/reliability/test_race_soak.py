"""The race soak, short: workers, a serve loop and two headless consoles race for ~20 s; every invariant holds.

The long run is `python -m tests.reliability.soak --seconds 300 --workers 6` (see soak.py). `HARN_SOAK_SECONDS`
lengthens this one. The second test shows the checker bites: forged damage of each kind is reported.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from harn_tui.core.journal import JsonlTail
from harn_tui.core.layout import Layout
from harn_tui.core.leases import hold_lease
from harn_tui.core.records import AttemptStarted, WorkAccepted
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER
from harn_tui.core.writer import append_event
from tests.reliability.conftest import Figures
from tests.reliability.soak import run_soak
from tests.reliability.soak_check import check_soak
from tests.reliability.soak_log import CommandLog
from tests.reliability.soak_tree import build_soak_tree

SECONDS = float(os.environ.get("HARN_SOAK_SECONDS", "20"))


@pytest.mark.timeout(SECONDS + 280)  # ~40 s on 2 idle cores; a loaded runner is slower to start 9 processes
def test_racing_transitions_lose_nothing_double_nothing_and_let_nothing_through(
    tmp_path: Path, figures: Figures
) -> None:
    result = run_soak(
        seconds=SECONDS, workers=4, consoles=2, goals=4, spawn_every=8, seed=11, directory=tmp_path / "soak"
    )
    report = result.report
    assert result.process_problems == []
    assert report.violations == [], "\n".join(report.violations[:40])
    counts = report.counts
    consoles = [result.outputs[f"console-{n}"] for n in (1, 2)]
    assert all(isinstance(c, dict) and c["keys"] > 0 and c["model_diverged"] == [] for c in consoles), consoles
    assert counts["transitions"] >= 40 and counts["legal"] >= 5 and counts["illegal"] >= 5, report.summary()
    assert counts["via console"] >= 1 and counts["via subprocess"] >= 1, report.summary()
    figures.add("race soak: transitions raced", counts["transitions"])
    figures.add("race soak: legal transitions accepted", counts["legal"])
    figures.add("race soak: illegal transitions refused", counts["illegal"])
    figures.add("race soak: transitions from headless consoles", counts["via console"])
    figures.add("race soak: events checked", counts["events"])
    print(report.summary())


def test_the_checker_reports_forged_damage(tmp_path: Path) -> None:
    """An accept past open findings, an acknowledged event the journal lacks, an unacknowledged operator event,
    a retry past max_attempts on superseded work, a doubled line, a crash: each is reported (so a clean soak
    means something)."""
    root, logs = tmp_path / "tree", tmp_path / "logs"
    logs.mkdir()
    build_soak_tree(root, goals=0)
    layout = Layout(root)
    assert check_soak(root, logs).violations == []
    work = "api-rate-limit"  # the demo's work in review with two open findings
    with hold_lease(layout.goal("demo-3-rate-limit") / "lease", "test"):
        log = JsonlTail(layout.work(work) / "events.jsonl", WORK_EVENTS_ADAPTER)
        run_id = json.loads((layout.work(work) / "events.jsonl").read_text().splitlines()[-1])["run_id"]
        forged = append_event(log, WorkAccepted, "w9", run_id=run_id, proof_sha256="0" * 64, dispositions=[])
    with hold_lease(layout.goal("demo-5-flaky-test") / "lease", "test"):  # its original root, superseded
        log = JsonlTail(layout.work("checkout-test-retry") / "events.jsonl", WORK_EVENTS_ADAPTER)
        append_event(log, AttemptStarted, "w9", run_id="run-20260101T000000Z-abcdef", attempt=2, trigger="retry")
    entries = CommandLog(logs / "w1.log.jsonl", "w1")
    ghost = forged.model_dump(mode="json", by_alias=True) | {"seq": 99}
    entries.write(
        via="cli",
        verb="work accept",
        target=work,
        goal=None,
        argv=[],
        exit=0,
        doc={"outcome": "applied", "event": ghost},
    )
    entries.write(via="cli", verb="work cancel", target=work, goal=None, argv=[], exit=1, doc={"stderr": "boom"})
    CommandLog(logs / "w9.log.jsonl", "w9").write(
        via="cli",
        verb="work run",
        target="x",
        goal=None,
        argv=[],
        exit=3,
        doc={"error": {"code": "refused", "message": "no"}},
    )
    plans = sorted((layout.goal("demo-1-job-queue") / "plans").iterdir())
    events = plans[0] / "events.jsonl"
    events.write_bytes(events.read_bytes() + events.read_bytes().splitlines(keepends=True)[-1])
    shutil.copy(events, events.with_name(".events.jsonl.tmp-dead"))
    found = "\n".join(check_soak(root, logs).violations)
    assert "accepted at seq" in found and "open findings ['f1', 'f2']" in found
    assert "accepted proof digest does not match" in found
    assert "acknowledged work.accepted seq 99 is not in the journal" in found
    assert "work.accepted by w9 at seq" in found and "never acknowledged" in found
    assert "exit 1" in found
    assert f"{events}:" in found and "where" in found
    assert "temporary file left behind" in found
    assert "verify exit 5" in found
    assert "checkout-test-retry: attempt.started run-20260101T000000Z-abcdef" in found
    assert "(superseded work dispatched)" in found and "with 1/1 charged" in found
