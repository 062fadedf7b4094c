"""The single-attempt runner: the template contract of SPEC 7 (no shell, HARN_* env, scratch cwd, proof intake,
bounded transcript, timeout of the whole process group, park/resume) and the run/retry rules."""

from __future__ import annotations

import hashlib
import json
import stat
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.errors import Refused
from harn_tui.core.layout import Layout
from harn_tui.core.projection import WorkResolver, WorkView
from harn_tui.core.runner import resume_attempt, run_work, start_attempt
from harn_tui.core.transitions import decide_approval, reopen_work
from harn_tui.core.tree import Tree
from tests.conftest import tree_bytes
from tests.plan_builders import MODAL_TEMPLATE, events_of, record_attempt, write_template

Mode = Callable[..., None]  # the `mode` fixture: sets the template's behaviour for the next attempt

WORK = "work-item"


@pytest.fixture
def template(tmp_path: Path) -> Path:
    return write_template(tmp_path / "templates", "modal.py", MODAL_TEMPLATE)


@pytest.fixture
def work(layout: Layout, template: Path) -> str:
    create_work(
        layout,
        title="Item",
        template=template,
        objective="Do it.",
        acceptance=["done", "tested"],
        work_id=WORK,
        actor="tester",
        max_attempts=3,
    )
    return WORK


@pytest.fixture
def mode(monkeypatch: pytest.MonkeyPatch) -> Mode:
    def set_mode(value: str, **extra: str) -> None:
        monkeypatch.setenv("TEMPLATE_MODE", value)
        for key, item in extra.items():
            monkeypatch.setenv(key, item)

    return set_mode


def view(layout: Layout, work_id: str = WORK) -> WorkView:
    found = WorkResolver(Tree.load(layout)).view(work_id)
    assert found is not None
    return found


def transcript(layout: Layout, run_id: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in (layout.run(run_id) / "transcript.jsonl").read_text().splitlines()]


def manifest(layout: Layout, run_id: str) -> dict[str, object]:
    return json.loads((layout.run(run_id) / "manifest.json").read_text())  # type: ignore[no-any-return]


def test_a_passing_attempt_reaches_review(layout: Layout, work: str, template: Path, mode: Mode) -> None:
    mode("pass")
    result = run_work(layout, work, actor="alice", retry=False)
    document = result.to_json()
    assert {k: document[k] for k in ("work_id", "attempt", "trigger", "status", "class", "reason", "work")} == {
        "work_id": work,
        "attempt": 1,
        "trigger": "initial",
        "status": "passed",
        "class": None,
        "reason": None,
        "work": {"state": "in_review", "next_action": "review"},
    }
    run_dir = layout.run(result.run_id)
    assert stat.S_IMODE(run_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE((run_dir / "proof.json").stat().st_mode) == 0o600
    proof = json.loads((run_dir / "proof.json").read_text())
    assert (proof["run_id"], proof["status"]) == (result.run_id, "succeeded")
    assert manifest(layout, result.run_id) == {
        "schema_version": 1,
        "run_id": result.run_id,
        "goal_id": None,
        "work": {
            "schema_version": 1,
            "id": work,
            "title": "Item",
            "objective": "Do it.",
            "acceptance": ["done", "tested"],
        },
        "attempt": {
            "number": 1,
            "trigger": "initial",
            "prior": None,
            "findings": [],
            "workspaces": {"prior": None, "dependencies": []},
        },
        "template": {"path": str(template), "sha256": hashlib.sha256(template.read_bytes()).hexdigest()},
        "team": {},
        "created_at": manifest(layout, result.run_id)["created_at"],
    }
    lines = transcript(layout, result.run_id)
    assert [(e["seq"], e["stream"], e["line"]) for e in lines] == [(1, "stdout", "attempt 1 initial")]
    assert [(e["event"], e["actor"], e.get("attempt"), e.get("status")) for e in events_of(layout, work)[1:]] == [
        ("attempt.started", "alice", 1, None),
        ("attempt.finished", "alice", None, "passed"),
    ]


def test_the_template_gets_the_documented_environment(
    layout: Layout, work: str, mode: Mode, monkeypatch: pytest.MonkeyPatch
) -> None:
    mode("env")
    monkeypatch.setenv("HARN_APPROVAL", "/stale/decision.json")
    monkeypatch.setenv("HARN_APPROVAL_REQUEST", "/stale/request.json")
    monkeypatch.setenv("HARN_FAULT", "no.such.point:1")
    before = datetime.now(UTC)
    result = run_work(layout, work, actor="alice", retry=False, timeout_s=600)
    scratch = layout.run(result.run_id) / "scratch"
    seen = json.loads((scratch / "env.json").read_text())
    deadline = seen.pop("HARN_DEADLINE")
    assert deadline.endswith("Z")
    left = datetime.fromisoformat(deadline.replace("Z", "+00:00")) - before
    assert 590 <= left.total_seconds() <= 610, "HARN_DEADLINE is the attempt's start plus its timeout"
    assert seen == {
        "HARN_MANIFEST": str(layout.run(result.run_id) / "manifest.json"),
        "HARN_RUN_DIR": str(scratch),
        "HARN_PROOF": str(scratch / "proof.json"),
        "HARN_RUN_ID": result.run_id,
        "cwd": str(scratch),
        "stdin": "",
    }


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        ("noproof", "no proof ($HARN_PROOF)"),
        ("badproof", "acceptance must list each of the work's criteria exactly once"),
        ("wrongrun", "run_id 'run-someone-else' is not this run"),
        ("exit3", "the template exited with code 3"),
    ],
)
def test_a_bad_ending_is_a_charged_failure_with_a_host_written_proof(
    layout: Layout, work: str, mode: Mode, behaviour: str, reason: str
) -> None:
    mode(behaviour)
    result = run_work(layout, work, actor="alice", retry=False)
    assert (result.status, result.class_, result.work_state, result.next_action) == ("failed", None, "blocked", "retry")
    assert reason in (result.reason or "")
    proof = json.loads((layout.run(result.run_id) / "proof.json").read_text())
    assert (proof["status"], proof["summary"], proof["class"]) == ("failed", result.reason, None)
    assert [c["status"] for c in proof["acceptance"]] == ["unknown", "unknown"]
    assert view(layout).charged_attempts == 1


def test_a_template_that_cannot_start_is_a_failure(layout: Layout, tmp_path: Path) -> None:
    broken = tmp_path / "no-interpreter.sh"
    broken.write_text("#!/no/such/interpreter\n")
    broken.chmod(0o755)
    create_work(layout, title="Item", template=broken, objective="Do it.", work_id="broken", actor="tester")
    result = run_work(layout, "broken", actor="alice", retry=False)
    assert result.status == "failed"
    assert "could not start" in (result.reason or "")


def test_a_template_that_lost_its_execute_bit_is_refused_before_the_attempt(
    layout: Layout, work: str, template: Path
) -> None:
    template.chmod(0o600)
    before = tree_bytes(layout.root)
    with pytest.raises(Refused, match="is no longer executable"):
        run_work(layout, work, actor="alice", retry=False)
    assert tree_bytes(layout.root) == before


def test_an_upstream_failure_is_uncharged(layout: Layout, work: str, mode: Mode) -> None:
    mode("fail:upstream")
    result = run_work(layout, work, actor="alice", retry=False)
    assert (result.status, result.class_, result.reason) == ("failed", "upstream", "failed with class upstream")
    assert (view(layout).charged_attempts, view(layout).next_action) == (0, "retry")


def test_a_timeout_kills_the_whole_process_group(layout: Layout, work: str, mode: Mode) -> None:
    mode("sleep")
    started = time.monotonic()
    result = start_attempt(layout, work, actor="alice", timeout_s=1.0)
    assert time.monotonic() - started < 10
    assert result.status == "failed"
    assert "timeout: the template ran longer than 1 s" in (result.reason or "")
    child = int((layout.run(result.run_id) / "scratch" / "child.pid").read_text())
    for _ in range(100):
        if not alive(child):
            break
        time.sleep(0.02)
    else:
        pytest.fail("the template's child outlived the timeout")


def alive(pid: int) -> bool:
    """Running and not a zombie waiting to be reaped."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def test_an_oversized_line_is_truncated_with_its_size_and_digest(layout: Layout, work: str, mode: Mode) -> None:
    mode("longline")
    result = run_work(layout, work, actor="alice", retry=False)
    long, short = transcript(layout, result.run_id)[1:3]
    assert long["line"] == "x" * 4000
    assert (long["truncated"], long["size"], long["sha256"]) == (True, 10000, hashlib.sha256(b"x" * 10000).hexdigest())
    assert short["line"] == "short" and "truncated" not in short


def test_a_changed_template_refuses_to_run_and_records_nothing(layout: Layout, work: str, template: Path) -> None:
    with template.open("a") as handle:
        handle.write("# changed\n")
    before = tree_bytes(layout.root)
    with pytest.raises(Refused, match=f"the template of work {work} .* changed"):
        run_work(layout, work, actor="alice", retry=False)
    assert tree_bytes(layout.root) == before
    assert not any(layout.runs.iterdir())


def test_run_needs_ready_and_retry_needs_blocked(layout: Layout, work: str, mode: Mode) -> None:
    with pytest.raises(Refused, match=f"work {work} is ready, not blocked"):
        run_work(layout, work, actor="alice", retry=True)
    mode("exit3")
    run_work(layout, work, actor="alice", retry=False)
    before = tree_bytes(layout.root)
    with pytest.raises(Refused, match=f"work {work} is blocked/retry, not ready"):
        run_work(layout, work, actor="alice", retry=False)
    assert tree_bytes(layout.root) == before


def test_retry_carries_a_synopsis_of_the_failed_attempt(layout: Layout, work: str, mode: Mode) -> None:
    mode("fail:")
    first = run_work(layout, work, actor="alice", retry=False)
    mode("pass")
    second = run_work(layout, work, actor="alice", retry=True)
    assert (second.attempt, second.trigger, second.status) == (2, "retry", "passed")
    assert manifest(layout, second.run_id)["attempt"] == {
        "number": 2,
        "trigger": "retry",
        "findings": [],
        "workspaces": {"prior": None, "dependencies": []},
        "prior": {
            "run_id": first.run_id,
            "summary": "failed with class None",
            "unsatisfied": ["done", "tested"],
            "class": None,
        },
    }


def test_retry_is_refused_once_charged_attempts_reach_the_limit(layout: Layout, template: Path, mode: Mode) -> None:
    create_work(
        layout, title="Once", template=template, objective="Once.", max_attempts=1, work_id="work-once", actor="tester"
    )
    mode("exit3")
    run_work(layout, "work-once", actor="alice", retry=False)
    with pytest.raises(Refused, match="is blocked/none and cannot be retried"):
        run_work(layout, "work-once", actor="alice", retry=True)


def test_retry_is_refused_after_a_decision_failure(layout: Layout, work: str, mode: Mode) -> None:
    mode("fail:decision")
    run_work(layout, work, actor="alice", retry=False)
    with pytest.raises(Refused, match="cannot be retried: attempt 1 failed on a decision"):
        run_work(layout, work, actor="alice", retry=True)


def test_only_an_operator_retries_after_three_uncharged_failures(layout: Layout, work: str, mode: Mode) -> None:
    for _ in range(3):
        record_attempt(layout, work, passed=False, class_="environment")
    assert (view(layout).state, view(layout).next_action) == ("blocked", "none")
    with pytest.raises(Refused, match="cannot be retried"):
        start_attempt(layout, work, actor="supervisor", retry=True)
    mode("pass")
    result = run_work(layout, work, actor="alice", retry=True)
    assert (result.trigger, result.status) == ("retry", "passed")


def test_open_findings_reach_the_manifest_on_any_trigger(layout: Layout, work: str, mode: Mode) -> None:
    mode("pass")
    run_work(layout, work, actor="alice", retry=False)
    reopen_work(layout, work, actor="alice", findings=["throws on big input"])
    mode("exit3")
    reopened = run_work(layout, work, actor="alice", retry=False)
    mode("pass")
    retried = run_work(layout, work, actor="alice", retry=True)
    finding = {"id": "f1", "statement": "throws on big input", "actor": "alice"}
    first = manifest(layout, reopened.run_id)["attempt"]
    second = manifest(layout, retried.run_id)["attempt"]
    assert (first["trigger"], first["findings"], first["prior"]) == ("reopen", [finding], None)  # type: ignore[index]
    assert (second["trigger"], second["findings"]) == ("retry", [finding])  # type: ignore[index]


def test_park_then_resume_under_the_same_run_id(layout: Layout, work: str, mode: Mode) -> None:
    mode("park", TEMPLATE_PARKS="2")
    parked = run_work(layout, work, actor="alice", retry=False)
    approval = f"apr-{parked.run_id}-1"
    assert (parked.status, parked.approval_id, parked.work_state, parked.next_action) == (
        "parked",
        approval,
        "awaiting_approval",
        "resolve_approval",
    )
    request = json.loads((layout.approval(approval) / "request.json").read_text())
    assert {k: request[k] for k in ("id", "run_id", "work_id", "goal_id", "question", "details")} == {
        "id": approval,
        "run_id": parked.run_id,
        "work_id": work,
        "goal_id": None,
        "question": "May I deploy? (1)",
        "details": "prod",
    }
    with pytest.raises(Refused, match="awaiting_approval/resolve_approval, not ready"):
        run_work(layout, work, actor="alice", retry=False)
    decide_approval(layout, approval, verdict="approve", actor="bob")
    again = run_work(layout, work, actor="alice", retry=False)
    assert (again.run_id, again.resumed, again.status, again.approval_id) == (
        parked.run_id,
        True,
        "parked",
        f"apr-{parked.run_id}-2",
    )
    decide_approval(layout, again.approval_id or "", verdict="approve", actor="bob")
    done = run_work(layout, work, actor="alice", retry=False)
    assert (done.run_id, done.attempt, done.status, done.work_state) == (parked.run_id, 1, "passed", "in_review")
    kinds = [(e["event"], e.get("status")) for e in events_of(layout, work)[1:]]
    assert kinds == [
        ("attempt.started", None),
        ("attempt.finished", "parked"),
        ("attempt.resumed", None),
        ("attempt.finished", "parked"),
        ("attempt.resumed", None),
        ("attempt.finished", "passed"),
    ]
    assert [line["seq"] for line in transcript(layout, parked.run_id)] == [1, 2, 3]
    assert view(layout).attempts_used == 1


def test_a_denied_approval_resumes_into_the_templates_decision(layout: Layout, work: str, mode: Mode) -> None:
    mode("park")
    parked = run_work(layout, work, actor="alice", retry=False)
    decide_approval(layout, parked.approval_id or "", verdict="deny", actor="bob", reason="not today")
    done = resume_attempt(layout, work, actor="supervisor")
    assert (done.status, done.class_, done.reason) == ("failed", "decision", "denied: not today")
    assert (done.work_state, done.next_action) == ("blocked", "none")
