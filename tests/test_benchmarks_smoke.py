"""The benchmark harness never rots: a small tree is generated in the core's format and every figure runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from benchmarks.generator import generate_tree
from benchmarks.shapes import SIZES
from harn_tui.core.fsio import event_line, record_bytes
from harn_tui.core.records import (
    ApprovalDecision,
    ApprovalRequest,
    AttemptManifest,
    GoalIntent,
    PlanRequest,
    Proof,
    Proposal,
    ReviewReceipt,
    WorkIntent,
)
from harn_tui.core.records.events import PLAN_EVENT_ADAPTER, WORK_EVENT_ADAPTER

REPO = Path(__file__).resolve().parent.parent
MODELS: dict[str, type[BaseModel]] = {
    "goal.json": GoalIntent,
    "intent.json": WorkIntent,
    "manifest.json": AttemptManifest,
    "proof.json": Proof,
    "request.json": PlanRequest,
    "proposal.json": Proposal,
    "candidate.json": Proposal,
    "review.json": ReviewReceipt,
    "decision.json": ApprovalDecision,
}
FIGURE_GROUPS = (
    "cold load",
    "re-projected",
    "supervisor show",
    "harn --help",
    "transition",
    "tick",
    "first paint",
    "keypress",
    "append by another process",
    "peak memory",
    "bytes to the terminal",
    "--at event:K",
    "History tab",
    "`/` filter",
    "`n`",
    "idle `serve`",
    "tick start",
    "embedded supervisor on",
)


def test_a_generated_tree_is_what_the_core_would_have_written(tmp_path: Path) -> None:
    """Every record re-serializes through the core's models to the same bytes, and `harn verify` is clean."""
    generate_tree(tmp_path, SIZES["S"])
    checked = 0
    for path in sorted((tmp_path / ".harnery").rglob("*")):
        if path.name == "events.jsonl":
            adapter = PLAN_EVENT_ADAPTER if "plans" in path.parts else WORK_EVENT_ADAPTER
            for line in path.read_bytes().splitlines(keepends=True):
                assert event_line(adapter.validate_json(line)) == line, path
                checked += 1
        elif path.name in MODELS:
            model = ApprovalRequest if "approvals" in path.parts and path.name == "request.json" else MODELS[path.name]
            body = path.read_bytes()
            assert record_bytes(model.model_validate_json(body)) == body, path
            checked += 1
    assert checked > 700
    verify = subprocess.run(
        [sys.executable, "-m", "harn_tui", "--root", str(tmp_path), "verify", "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert json.loads(verify.stdout) == {"ok": True, "problems": []}


@pytest.mark.timeout(300)  # every group, two consoles on a pty among them: about a minute on an idle machine
def test_the_benchmark_command_measures_every_figure_on_a_small_tree(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "benchmarks",
            "--large",
            "S",
            "--small",
            "S",
            "--repeats",
            "2",
            "--heavy-repeats",
            "1",
            "--no-enforce",
            "--cache-dir",
            str(tmp_path / "trees"),
            "--json",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=400,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    figures = json.loads(out.read_text())["figures"]
    names = " ".join(figure["name"] for figure in figures)
    for group in FIGURE_GROUPS:
        assert group in names, (group, names)
    assert all(figure["passed"] is None for figure in figures)
    assert all(figure["measured"] != "-" for figure in figures), figures
    assert "| figure" in result.stdout
