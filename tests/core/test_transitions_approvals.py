"""Approval decisions: first decision wins, the same verdict is a repeat, a different one is refused, and an
approval whose attempt is no longer parked on it is moot."""

from __future__ import annotations

import json
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.errors import CorruptJournal, NotFound, Refused, UsageError
from harn_tui.core.layout import Layout
from harn_tui.core.runner import run_work
from harn_tui.core.transitions import cancel_work, decide_approval, reopen_work
from tests.conftest import tree_bytes
from tests.plan_builders import MODAL_TEMPLATE, write_template

WORK = "work-deploy"


@pytest.fixture
def approval(layout: Layout, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A standalone work item parked on its first approval."""
    monkeypatch.setenv("TEMPLATE_MODE", "park")
    template = write_template(tmp_path / "templates", "modal.py", MODAL_TEMPLATE)
    create_work(layout, title="Deploy", template=template, objective="Deploy.", work_id=WORK, actor="tester")
    parked = run_work(layout, WORK, actor="alice", retry=False)
    assert parked.approval_id is not None
    return parked.approval_id


def refused(layout: Layout, call: Callable[[], object], match: str, error: type[Exception] = Refused) -> None:
    before = tree_bytes(layout.root)
    with pytest.raises(error, match=match):
        call()
    assert tree_bytes(layout.root) == before


def test_approve_writes_the_decision_once(layout: Layout, approval: str) -> None:
    outcome = decide_approval(layout, approval, verdict="approve", actor="alice", reason=" ship it ")
    path = layout.approval(approval) / "decision.json"
    decision = json.loads(path.read_text())
    assert outcome.to_json() == {"outcome": "applied", "event": decision}
    assert {k: decision[k] for k in ("approval_id", "verdict", "actor", "reason")} == {
        "approval_id": approval,
        "verdict": "approve",
        "actor": "alice",
        "reason": "ship it",
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    before = tree_bytes(layout.root)
    repeat = decide_approval(layout, approval, verdict="approve", actor="bob", reason="another reason")
    assert (repeat.outcome, repeat.to_json()["event"]) == ("already_done", decision)
    assert tree_bytes(layout.root) == before
    refused(
        layout,
        lambda: decide_approval(layout, approval, verdict="deny", actor="bob"),
        f"approval {approval} is already decided: approved by alice",
    )


def test_deny_compares_its_reason(layout: Layout, approval: str) -> None:
    decide_approval(layout, approval, verdict="deny", actor="alice", reason="not today")
    assert decide_approval(layout, approval, verdict="deny", actor="bob", reason="not today").outcome == "already_done"
    refused(
        layout,
        lambda: decide_approval(layout, approval, verdict="deny", actor="bob", reason="never"),
        "already denied with a different reason",
    )
    refused(
        layout,
        lambda: decide_approval(layout, approval, verdict="approve", actor="bob"),
        "already decided: denied by alice",
    )


def test_a_cancelled_attempt_makes_the_approval_moot(layout: Layout, approval: str) -> None:
    cancel_work(layout, WORK, actor="alice")
    refused(
        layout,
        lambda: decide_approval(layout, approval, verdict="approve", actor="alice"),
        f"approval {approval} is moot: work {WORK} is cancelled",
    )
    reopen_work(layout, WORK, actor="alice")
    refused(
        layout,
        lambda: decide_approval(layout, approval, verdict="approve", actor="alice"),
        f"approval {approval} is moot: work {WORK} is ready and its attempt is no longer parked on it",
    )


def test_approval_addresses(layout: Layout, approval: str) -> None:
    refused(
        layout, lambda: decide_approval(layout, "apr/../x", verdict="approve", actor="a"), "not a valid ID", UsageError
    )
    refused(
        layout, lambda: decide_approval(layout, approval, verdict="maybe", actor="a"), "approve or deny", UsageError
    )
    refused(
        layout,
        lambda: decide_approval(layout, approval, verdict="deny", actor="a", reason="x" * 2001),
        "at most 2000",
        UsageError,
    )
    refused(
        layout, lambda: decide_approval(layout, "apr-none-1", verdict="approve", actor="a"), "does not exist", NotFound
    )
    (layout.approval(approval) / "request.json").write_text("{}")
    refused(
        layout, lambda: decide_approval(layout, approval, verdict="approve", actor="a"), "request.json", CorruptJournal
    )
