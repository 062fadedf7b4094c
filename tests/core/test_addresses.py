"""What a path under `.harnery/` addresses: the shapes every reader (tree refresh, console model, watcher filter,
serve's wake filter) agrees on, and a real tree whose every file is either addressed or one no reader reads."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harn_tui.core.addresses import Address, address_of
from harn_tui.core.changes import wakes_the_loop
from harn_tui.tui.watch_process import relevant

G, P, W, R, A = "goal-a", "plan-0001-abc", "work-a", "run-20261201T000000Z-abcdef", "apr-1"


@pytest.mark.parametrize(
    ("path", "address", "wakes"),
    [
        (f"supervisors/{G}", Address("goal", G), True),
        (f"supervisors/{G}/goal.json", Address("goal", G, "goal.json"), True),
        (f"supervisors/{G}/supervisor.lock", Address("goal", G, "supervisor.lock"), False),
        (f"supervisors/{G}/plans", Address("goal", G, "plans"), True),
        (f"supervisors/{G}/plans/{P}", Address("plan", G, plan=P), True),
        (f"supervisors/{G}/plans/{P}/events.jsonl", Address("plan", G, "events.jsonl", plan=P), True),
        (f"supervisors/{G}/plans/{P}/proposal.json", Address("plan", G, "proposal.json", plan=P), True),
        (f"supervisors/{G}/plans/{P}/revision-2/review.json", Address("revision", G, "review.json", P, 2), True),
        (f"work/{W}", Address("work", W), True),
        (f"work/{W}/intent.json", Address("work", W, "intent.json"), True),
        (f"work/{W}/events.jsonl", Address("work", W, "events.jsonl"), True),
        (f"runs/{R}/proof.json", Address("run", R, "proof.json"), True),
        (f"runs/{R}/lease", Address("run", R, "lease"), False),
        (f"runs/{R}/transcript.jsonl", Address("run", R, "transcript.jsonl"), False),
        (f"approvals/{A}/decision.json", Address("approval", A, "decision.json"), True),
        ("presence/alice-host-12.json", Address("presence", "alice-host-12.json"), False),
        ("service/host-12.json", Address("service", "host-12.json"), False),
    ],
)
def test_the_shapes_readers_read(path: str, address: Address, wakes: bool) -> None:
    parts = tuple(path.split("/"))
    assert address_of(parts) == address
    assert relevant(parts), "the console watches every addressed path"
    assert wakes_the_loop(parts) is wakes


@pytest.mark.parametrize(
    "path",
    [
        "cache/views.json",
        f"runs/{R}/scratch/proof.json",
        f"runs/{R}/manifest.json",
        f"work/{W}/lease",
        f"supervisors/{G}/lease",
        f"work/{W}/.intent.json.tmp-1",
        f"supervisors/{G}/plans/{P}/revision-0/review.json",
        f"supervisors/{G}/plans/{P}/revision-01/review.json",
        f"supervisors/{G}/plans/{P}/notes.txt",
        "work/../x",
        "work/Bad Id/intent.json",
        "presence/alice.txt",
        "presence/x/y.json",
        "supervisors",
        ".gitignore",
    ],
)
def test_what_no_reader_reads_is_not_addressed(path: str) -> None:
    parts = tuple(path.split("/"))
    assert address_of(parts) is None
    assert not relevant(parts) and not wakes_the_loop(parts)


UNREAD = {"manifest.json", "finish-note", ".gitignore", "planner-input.json", "reviewer-input.json"}  # read on demand


def test_every_file_of_a_real_tree_is_addressed_or_one_no_reader_reads(tmp_path: Path) -> None:
    """The demo tree has goals, plans with reviews, runs, parks and approvals: a record kind added without an
    address here would never be re-read by the console or wake serve."""
    root = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, "-m", "harn_tui", "demo", "--no-tui", str(root)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "HARN_ROOT": ""},
    )
    assert done.returncode == 0, done.stderr
    base = root / ".harnery"
    kinds: set[str] = set()
    for path in base.rglob("*"):
        parts = path.relative_to(base).parts
        address = address_of(parts)
        if address is not None:
            kinds.add(address.kind if address.name is None else f"{address.kind}/{address.name}")
            continue
        unread = (
            parts[0] in ("cache", "presence", "service")
            or "scratch" in parts
            or parts[-1] in UNREAD
            or (parts[-1] == "lease" and parts[0] in ("work", "supervisors"))
            or len(parts) == 1
        )
        assert unread, f"{'/'.join(parts)} is in the tree but no reader would see it change"
    assert {
        "goal/goal.json",
        "plan/events.jsonl",
        "plan/review.json",
        "work/intent.json",
        "work/events.jsonl",
        "run/proof.json",
        "run/transcript.jsonl",
        "approval/request.json",
    } <= kinds
