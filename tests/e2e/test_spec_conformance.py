"""Black-box conformance with SPEC.md: `harn` as a subprocess and the `.harnery/` tree read as files, the way tests
written outside the project see them (layout, modes, record and event fields, IDs, derived state, transitions,
idempotency, check order, documents, exit codes, the error document)."""

from __future__ import annotations

import hashlib
import json
import re
import stat
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Harn, harn_env, tree_bytes

UTC_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
STAMP = r"\d{8}T\d{6}Z"
WORK_ID = re.compile(rf"^work-{STAMP}-[0-9a-f]{{6}}$")
GOAL_ID = re.compile(rf"^goal-{STAMP}-[0-9a-f]{{6}}$")
RUN_ID = re.compile(rf"^run-{STAMP}-[0-9a-f]{{6}}$")
PLAN_ID = re.compile(r"^plan-\d{4}-[0-9a-f]{8}$")
EVENT_HEAD = ("schema_version", "seq", "ts", "event", "actor")
SHOW_FIELDS = {
    "id",
    "title",
    "state",
    "next_action",
    "reason",
    "root_work_id",
    "generation",
    "attempts_used",
    "attempts_remaining",
    "replans_used",
    "replans_remaining",
    "milestones_completed",
    "pending_plan_id",
    "attention_plan_id",
    "latest_plan_status",
    "governed_work_ids",
    "work",
    "plans",
    "problems",
}
WORK_FIELDS = {
    "id",
    "title",
    "state",
    "next_action",
    "active",
    "attempts_used",
    "max_attempts",
    "dependencies",
    "open_findings",
}
PLAN_FIELDS = {"id", "sequence", "trigger", "status", "reason", "root_work_id", "work_ids"}
FAIL_TEMPLATE = """#!/usr/bin/env python3
import json, os
m = json.load(open(os.environ["HARN_MANIFEST"]))
json.dump({"schema_version": 1, "run_id": m["run_id"], "status": "failed", "summary": "it broke",
           "acceptance": [{"criterion": c, "status": "unsatisfied", "evidence": "no"} for c in m["work"]["acceptance"]],
           "class": None, "finished_at": "2026-01-01T00:00:00+00:00"}, open(os.environ["HARN_PROOF"], "w"))
"""


# ----- helpers: the CLI as an outside test drives it


def call(harn: Harn, *args: str, expect: int = 0, env: dict[str, str] | None = None) -> Any:
    """One verb with --json: the exit code it must have and its document (the error document on failure; `verify`
    prints its own document whatever it finds)."""
    result = harn(*args, "--json", env=env)
    assert result.returncode == expect, (args, result.returncode, result.stdout, result.stderr)
    document = json.loads(result.stdout)
    if expect and args[0] != "verify":
        assert set(document) == {"error"} and set(document["error"]) == {"code", "message"}, document
        code = {2: "usage", 3: "refused", 4: "not_found", 5: "corrupt"}[expect]
        assert document["error"]["code"] == code and document["error"]["message"], document
    return document


def calls(harn: Harn, *requests: tuple[int, Sequence[str]]) -> list[Any]:
    """Independent verbs run concurrently (each is its own process): [(expected exit, args), ...]."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = [pool.submit(call, harn, *args, expect=expect) for expect, args in requests]
        return [future.result() for future in futures]


def error(harn: Harn, expect: int, *args: str) -> str:
    """A failing verb: its exit code, the error document, and a tree left byte for byte unchanged."""
    before = tree_bytes(harn.root)
    message = str(call(harn, *args, expect=expect)["error"]["message"])
    assert tree_bytes(harn.root) == before, args
    return message


def events(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def work_log(root: Path, work_id: str) -> list[dict[str, Any]]:
    return events(root / ".harnery" / "work" / work_id / "events.jsonl")


def record(path: Path) -> dict[str, Any]:
    document = json.loads(path.read_text())
    assert isinstance(document, dict)
    return document


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_tree(root: Path) -> None:
    """Every directory 0700 and file 0600; every log line a closed event with gapless seq and a UTC `Z` ts whose
    payload sits at the top level; every record `schema_version: 1`; no temporary file is left in sight."""
    base = root / ".harnery"
    for path in [base, *base.rglob("*")]:
        if "scratch" in path.parts or "cache" in path.parts:
            continue
        mode = stat.S_IMODE(path.stat().st_mode)
        assert mode == (0o700 if path.is_dir() else 0o600), (path, oct(mode))
        if path.name == "events.jsonl":
            data = path.read_bytes()
            assert data.endswith(b"\n"), path
            for number, event in enumerate(events(path), start=1):
                assert tuple(event)[:5] == EVENT_HEAD, (path, event)
                assert event["schema_version"] == 1 and event["seq"] == number, (path, event)
                assert UTC_Z.match(event["ts"]) and "data" not in event, (path, event)
        elif path.name == "transcript.jsonl":
            for number, line in enumerate(events(path), start=1):
                assert set(line) == {"seq", "ts", "stream", "line"} and line["seq"] == number, (path, line)
        elif path.suffix == ".json" and path.is_file():
            assert record(path)["schema_version"] == 1, path


def fingerprint(root: Path, goal: dict[str, Any]) -> str:
    """SPEC 5: sha256 of the canonical JSON of {root, generation, work: [{id, dependencies, state, last_seq}]}."""
    active = sorted((w for w in goal["work"] if w["active"]), key=lambda w: w["id"])
    work = [
        {
            "id": w["id"],
            "dependencies": w["dependencies"],
            "state": w["state"],
            "last_seq": work_log(root, w["id"])[-1]["seq"],
        }
        for w in active
    ]
    body = {"root": goal["root_work_id"], "generation": goal["generation"], "work": work}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    return "sha256:" + hashlib.sha256(canonical).hexdigest()


@pytest.fixture
def files(examples: Path) -> Path:
    """The example files plus a template whose proof always fails and scripted planners written by tests."""
    template = examples / "templates" / "fail.py"
    template.write_text(FAIL_TEMPLATE)
    template.chmod(0o755)
    return examples


def scripted_team(directory: Path, *replies: dict[str, Any], name: str = "team-scripted") -> Path:
    """A team whose planner answers plan sequence N with line N (SPEC 7, the `scripted` adapter)."""
    (directory / f"{name}.jsonl").write_text("".join(json.dumps(reply) + "\n" for reply in replies))
    team = {"planner": {"adapter": "scripted", "replies": f"{name}.jsonl", "instructions": "Plan as scripted."}}
    path = directory / f"{name}.json"
    path.write_text(json.dumps(team))
    return path


def plain_replanning(directory: Path, **extra: Any) -> Path:
    """A replanning file without reviewers, `implement` as the one (root-capable) template."""
    body = {"planner": "planner", "templates": {"implement": {"path": "templates/implement.py", "root": True}}, **extra}
    path = directory / "replanning-plain.json"
    path.write_text(json.dumps(body))
    return path


def failing_root(harn: Harn, files: Path, work_id: str, max_attempts: int = 1) -> None:
    call(
        harn,
        "work",
        "create",
        "Make the queue durable",
        str(files / "templates" / "fail.py"),
        "--objective",
        "No job is lost",
        "--accept",
        "crash test passes",
        "--max-attempts",
        str(max_attempts),
        "--id",
        work_id,
    )


# ----- section 2: the tree


def test_init_creates_the_layout_0700_and_is_idempotent(tmp_path: Path) -> None:
    target = tmp_path / "fresh"
    target.mkdir()
    for _ in range(2):
        result = Harn(target)("init", "--json")
        assert result.returncode == 0, result.stderr
    elsewhere = tmp_path / "from-env"
    elsewhere.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "harn_tui", "init", "--json"],
        capture_output=True,
        text=True,
        cwd=target,
        env={**harn_env(), "HARN_ROOT": str(elsewhere)},
        timeout=60,
    )
    assert result.returncode == 0 and (elsewhere / ".harnery/work").is_dir(), "init honours $HARN_ROOT"
    base = target / ".harnery"
    assert sorted(p.name for p in base.iterdir()) == [
        ".gitignore",
        "approvals",
        "cache",
        "presence",
        "runs",
        "service",
        "supervisors",
        "work",
    ]
    assert stat.S_IMODE(base.stat().st_mode) == 0o700
    assert (base / ".gitignore").read_text() == "*\n" and stat.S_IMODE((base / ".gitignore").stat().st_mode) == 0o600
    for path in base.iterdir():
        if path.name != ".gitignore":
            assert stat.S_IMODE(path.stat().st_mode) == 0o700 and not any(path.iterdir()), path


def test_no_tree_is_not_found(tmp_path: Path) -> None:
    assert call(Harn(tmp_path), "supervisor", "list", expect=4)["error"]["code"] == "not_found"
    result = Harn(tmp_path)("work", "list")
    assert result.returncode == 4 and result.stdout == "" and len(result.stderr.strip().splitlines()) == 1


# ----- sections 3, 4, 6: a standalone review cycle with findings (seed 003)


def test_standalone_review_cycle_records_events_findings_and_dispositions(harn: Harn, files: Path) -> None:
    root = harn.root
    created = call(
        harn,
        "work",
        "create",
        "Add a queue",
        str(files / "templates" / "implement.py"),
        "--objective",
        "Make a durable queue",
        "--accept",
        "tests pass",
        "--accept",
        "docs written",
    )
    work_id = created["id"]
    assert WORK_ID.match(work_id) and created["goal_id"] is None and set(created) >= WORK_FIELDS
    assert (created["state"], created["next_action"], created["attempts"]) == ("ready", "run", [])
    intent = record(root / ".harnery/work" / work_id / "intent.json")
    assert set(intent) == {
        "schema_version",
        "id",
        "title",
        "objective",
        "acceptance",
        "dependencies",
        "template",
        "max_attempts",
        "source",
        "created_at",
    }
    assert intent["source"] == {"kind": "human", "ref": None} and intent["max_attempts"] == 3
    assert intent["template"]["sha256"] == sha256(files / "templates" / "implement.py")

    first = call(harn, "work", "run", work_id)
    assert first["status"] == "passed" and RUN_ID.match(first["run_id"])
    run_dir = root / ".harnery/runs" / first["run_id"]
    manifest = record(run_dir / "manifest.json")
    assert set(manifest) == {"schema_version", "run_id", "goal_id", "work", "attempt", "template", "team", "created_at"}
    assert manifest["work"] == {
        "schema_version": 1,
        "id": work_id,
        "title": "Add a queue",
        "objective": "Make a durable queue",
        "acceptance": ["tests pass", "docs written"],
    }
    assert manifest["attempt"] == {
        "number": 1,
        "trigger": "initial",
        "prior": None,
        "findings": [],
        "workspaces": {"prior": None, "dependencies": []},
    }
    assert (manifest["goal_id"], manifest["team"]) == (None, {})
    proof = record(run_dir / "proof.json")
    assert [a["criterion"] for a in proof["acceptance"]] == ["tests pass", "docs written"]

    # reopen: findings f1..fN, trimmed; a repeat compares the ordered statements only (not the reason)
    reopened = call(
        harn,
        "--actor",
        "alice",
        "work",
        "reopen",
        work_id,
        "--finding",
        "  docs are thin  ",
        "--finding",
        "no crash test",
        "--reason",
        "needs more",
    )
    assert reopened["outcome"] == "applied"
    assert reopened["event"]["findings"] == [
        {"id": "f1", "statement": "docs are thin", "actor": "alice"},
        {"id": "f2", "statement": "no crash test", "actor": "alice"},
    ]
    again, swapped = calls(
        harn,
        (
            0,
            [
                "work",
                "reopen",
                work_id,
                "--finding",
                "docs are thin",
                "--finding",
                "no crash test",
                "--reason",
                "x",
                "--actor",
                "bob",
            ],
        ),
        (3, ["work", "reopen", work_id, "--finding", "no crash test", "--finding", "docs are thin"]),
    )
    assert again == {"outcome": "already_done", "event": reopened["event"]}
    assert "reopened" in swapped["error"]["message"]

    second = call(harn, "work", "run", work_id)
    assert (second["trigger"], second["attempt"]) == ("reopen", 2)
    attempt = record(root / ".harnery/runs" / second["run_id"] / "manifest.json")["attempt"]
    assert attempt["trigger"] == "reopen" and attempt["findings"] == reopened["event"]["findings"]

    # accept: every open finding disposed, no unknown id; REASON is everything after the first ':'
    before = tree_bytes(root)
    refusals = calls(
        harn,
        (3, ["work", "accept", work_id]),
        (3, ["work", "accept", work_id, "--dispose", "f1=fixed"]),
        (3, ["work", "accept", work_id, "--dispose", "f1=fixed", "--dispose", "f2=fixed", "--dispose", "f3=fixed"]),
        (3, ["work", "accept", work_id, "--dispose", "f1=fixed", "--dispose", "f2=fixed", "--dispose", "nope=fixed"]),
        (2, ["work", "accept", work_id, "--dispose", "f1=fixed", "--dispose", "f2=fixed", "--dispose", "no/pe=fixed"]),
        (2, ["work", "accept", work_id, "--dispose", "f1=fixd", "--dispose", "f2=fixed"]),
        (2, ["work", "accept", work_id, "--dispose", "f1=deferred", "--dispose", "f2=fixed"]),
        (2, ["work", "accept", work_id, "--dispose", "f1=deferred:  ", "--dispose", "f2=fixed"]),
        (2, ["work", "accept", work_id, "--dispose", "f1", "--dispose", "f2=fixed"]),
        (2, ["work", "accept", work_id, "--dispose", "f1=deferred:" + "r" * 2001, "--dispose", "f2=fixed"]),
    )
    assert "f2" in refusals[1]["error"]["message"] and "f3" in refusals[2]["error"]["message"]
    assert "unknown finding id nope" in refusals[3]["error"]["message"], "a well-formed id naming no finding: 3"
    assert tree_bytes(root) == before
    accepted = call(
        harn,
        "work",
        "accept",
        work_id,
        "--dispose",
        "f1=deferred:later: after v2",
        "--dispose",
        "f2=fixed",
        "--reason",
        "good enough",
    )
    event = accepted["event"]
    assert (event["event"], event["run_id"], event["reason"]) == ("work.accepted", second["run_id"], "good enough")
    assert event["proof_sha256"] == sha256(root / ".harnery/runs" / second["run_id"] / "proof.json")
    assert sorted(event["dispositions"], key=lambda d: d["id"]) == [
        {"id": "f1", "outcome": "deferred", "reason": "later: after v2"},
        {"id": "f2", "outcome": "fixed", "reason": None},
    ]
    repeat, different, cancel = calls(
        harn,
        (
            0,
            [
                "work",
                "accept",
                work_id,
                "--dispose",
                "f2=fixed",
                "--dispose",
                "f1=deferred:later: after v2",
                "--reason",
                "other",
                "--actor",
                "bob",
            ],
        ),
        (3, ["work", "accept", work_id, "--dispose", "f2=fixed", "--dispose", "f1=deferred:later"]),
        (3, ["work", "cancel", work_id]),
    )
    assert repeat == {"outcome": "already_done", "event": event}
    assert "different dispositions" in different["error"]["message"] and "succeeded" in cancel["error"]["message"]
    shown = call(harn, "work", "show", work_id)
    assert (shown["state"], shown["next_action"], shown["open_findings"]) == ("succeeded", "none", [])
    assert [e["event"] for e in shown["events"]] == [
        "work.created",
        "attempt.started",
        "attempt.finished",
        "work.reopened",
        "attempt.started",
        "attempt.finished",
        "work.accepted",
    ]
    assert shown["events"] == work_log(root, work_id)
    assert [(a["number"], a["trigger"], a["status"]) for a in shown["attempts"]] == [
        (1, "initial", "passed"),
        (2, "reopen", "passed"),
    ]
    for attempt_doc in shown["attempts"]:
        assert {"run_id", "number", "trigger", "status", "class", "summary", "started_at", "finished_at"} <= set(
            attempt_doc
        )
    started = work_log(root, work_id)[1]
    assert {k: started[k] for k in ("run_id", "attempt", "trigger")} == {
        "run_id": first["run_id"],
        "attempt": 1,
        "trigger": "initial",
    }
    finished = work_log(root, work_id)[2]
    assert set(finished) == {*EVENT_HEAD, "run_id", "status", "class", "reason", "approval_id"}
    check_tree(root)


# ----- section 6: the check order (usage 2, address 4, readable 5, repeat 0, rules 3)


def test_bounds_and_syntax_are_bad_input_before_the_address_is_looked_up(harn: Harn) -> None:
    """Every request here names an address that does not exist: bad input must win (2), else not found (4)."""
    before = tree_bytes(harn.root)
    long_reason, long_finding = "r" * 2001, "f" * 1001
    results = calls(
        harn,
        (2, ["work", "cancel", "w-none", "--reason", long_reason]),
        (2, ["work", "cancel", "w-none", "--reason", "   "]),
        (2, ["work", "reopen", "w-none", *[a for n in range(21) for a in ("--finding", f"finding {n}")]]),
        (2, ["work", "reopen", "w-none", "--finding", long_finding]),
        (2, ["work", "reopen", "w-none", "--finding", "  "]),
        (2, ["work", "accept", "w-none", "--dispose", "f1=deferred"]),
        (2, ["supervisor", "plan", "reject", "g-none", "p-none", "--reason", " "]),
        (2, ["supervisor", "plan", "retry", "g-none", "p-none"]),
        (2, ["approval", "deny", "a-none", "--reason", long_reason]),
        (2, ["work", "show", "../etc"]),
        (2, ["work", "show", "x" * 101]),
        (2, ["work", "show", "a\x01b"]),
        (2, ["work", "show", ".hidden"]),
        (2, ["supervisor", "show", "goal/x"]),
        (2, ["--actor", "bad actor", "work", "cancel", "w-none"]),
        (2, ["work", "cancel", "w-none", "--actor", "bad/actor"]),
        (4, ["work", "cancel", "w-none", "--reason", "r" * 2000]),
        (4, ["work", "reopen", "w-none", *[a for n in range(20) for a in ("--finding", f"finding {n}")]]),
        (4, ["work", "reopen", "w-none", "--finding", "f" * 1000]),
        (4, ["work", "show", "x" * 100]),
        (4, ["supervisor", "plan", "approve", "g-none", "p-none"]),
        (4, ["approval", "approve", "a-none"]),
    )
    assert "2001" in results[0]["error"]["message"]
    assert tree_bytes(harn.root) == before
    assert not (harn.root / ".harnery/work/w-none").exists()


# ----- sections 5, 6, 7: seed 001 through the CLI (fail, replan with a reviewer, approve, generation 1)


def test_replan_with_review_then_approve_materializes_a_new_generation(harn: Harn, files: Path) -> None:
    root = harn.root
    failing_root(harn, files, "w-root")
    created = call(
        harn,
        "supervisor",
        "create",
        "--team",
        str(files / "team.json"),
        "--replanning",
        str(files / "replanning.json"),
        "--root-work",
        "w-root",
        "--title",
        "Durable queue",
    )
    goal_id = created["id"]
    assert GOAL_ID.match(goal_id) and set(created) >= SHOW_FIELDS
    assert (created["state"], created["next_action"], created["generation"]) == ("ready", "run", 0)
    frozen = record(root / ".harnery/supervisors" / goal_id / "goal.json")
    assert {
        "id",
        "title",
        "created_at",
        "root_work_id",
        "mission",
        "team",
        "limits",
        "automation",
        "replanning",
    } <= set(frozen)
    assert frozen["limits"] == {
        "max_cycles": 50,
        "max_runtime_s": 14400,
        "max_parallel_work": 1,
        "max_total_attempts": 100,
    }
    assert frozen["automation"] == {"accept_passing_proof": False, "retry_blocked": False, "resume_approved": True}
    catalog = frozen["replanning"]["templates"]
    assert catalog["investigate"]["sha256"] == sha256(files / "templates" / "investigate.py")
    assert Path(catalog["implement"]["path"]).is_absolute() and catalog["implement"]["root"] is True

    ran = call(harn, "supervisor", "run", goal_id)
    assert {"stop_reason", "cycles", "dispatches", "acceptances", "replans", "outcomes", "goal"} <= set(ran)
    goal = ran["goal"]
    assert (goal["state"], goal["next_action"], goal["latest_plan_status"]) == (
        "awaiting_attention",
        "review_plan",
        "proposed",
    )
    plan_id = goal["pending_plan_id"]
    assert PLAN_ID.match(plan_id) and plan_id.startswith("plan-0001-") and goal["attention_plan_id"] is None
    assert goal["replans_used"] == 1 and goal["replans_remaining"] == 3 and goal["attempts_used"] == 1
    assert [(e["event"], e["actor"]) for e in work_log(root, "w-root")[1:]] == [
        ("attempt.started", "supervisor"),
        ("attempt.finished", "supervisor"),
    ]
    assert goal["plans"] == [
        {
            "id": plan_id,
            "sequence": 1,
            "trigger": "recovery",
            "status": "proposed",
            "reason": None,
            "root_work_id": None,
            "work_ids": [],
        }
    ]
    plan_dir = root / ".harnery/supervisors" / goal_id / "plans" / plan_id
    request = record(plan_dir / "request.json")
    assert request == {
        "schema_version": 1,
        "id": plan_id,
        "goal_id": goal_id,
        "sequence": 1,
        "trigger": "recovery",
        "graph_fingerprint": request["graph_fingerprint"],
        "prior_root_work_id": "w-root",
        "created_at": request["created_at"],
    }
    receipt = record(plan_dir / "review.json")
    assert receipt["candidate_sha256"] == sha256(plan_dir / "candidate.json") == sha256(plan_dir / "proposal.json")
    assert receipt["outcome"] == "approved" and [r["reviewer"] for r in receipt["reviews"]] == ["critic"]
    plan_log = events(plan_dir / "events.jsonl")
    assert [(e["event"], e["actor"]) for e in plan_log] == [
        ("plan.reviewed", "supervisor"),
        ("plan.proposed", "supervisor"),
    ]
    assert plan_log[0]["candidate_sha256"] == receipt["candidate_sha256"]
    planner_input = record(plan_dir / "planner-input.json")
    assert {
        "schema_version",
        "role",
        "plan_id",
        "sequence",
        "trigger",
        "goal",
        "instructions",
        "active_root_work_id",
        "generation",
        "budgets",
        "latest_plan",
        "templates",
        "work",
        "reply_schema",
    } <= set(planner_input)
    assert set(planner_input["budgets"]) == {
        "replans_remaining",
        "attempts_remaining",
        "max_work_items_per_plan",
        "work_items_remaining",
        "milestones_remaining",
    }
    assert planner_input["templates"] == {
        "implement": {"root": True, "max_attempts": 3},
        "investigate": {"root": False, "max_attempts": 2},
    }
    assert set(planner_input["work"][0]) == {
        "id",
        "title",
        "objective",
        "acceptance",
        "state",
        "attempts_used",
        "proof_summary",
    }

    # a tick of a goal that needs a human writes nothing outside cache/
    before = tree_bytes(root)
    tick, pending, shown, plan_doc = calls(
        harn,
        (0, ["supervisor", "tick", goal_id]),
        (0, ["pending"]),
        (0, ["supervisor", "show", goal_id]),
        (0, ["supervisor", "plan", "show", goal_id, plan_id]),
    )
    assert tree_bytes(root) == before and tick["dispatches"] == 0
    assert pending == {
        "pending": [
            {
                "kind": "review_plan",
                "goal_id": goal_id,
                "plan_id": plan_id,
                "work_id": None,
                "approval_id": None,
                "reason": shown["reason"],
            }
        ]
    }
    assert request["graph_fingerprint"] == fingerprint(root, shown), "the graph has not moved since the request"
    assert PLAN_FIELDS | {"request", "planner_input", "proposal", "review", "events"} <= set(plan_doc)
    assert plan_doc["request"] == request and plan_doc["events"] == plan_log
    assert plan_doc["proposal"] == record(plan_dir / "proposal.json") and plan_doc["review"] == receipt

    refusals = calls(
        harn,
        (4, ["supervisor", "plan", "approve", goal_id, "plan-0009-00000000"]),
        (3, ["supervisor", "plan", "retry", goal_id, plan_id, "--reason", "not an attention plan"]),
        (2, ["supervisor", "plan", "reject", goal_id, plan_id]),
    )
    assert "attention" in refusals[1]["error"]["message"]
    applied = call(harn, "supervisor", "plan", "approve", goal_id, plan_id, "--reason", "looks right")
    event = applied["event"]
    assert applied["outcome"] == "applied" and event["event"] == "plan.applied" and event["actor"] == "tester"
    assert event["root_work_id"] == f"{plan_id}-implement"
    assert event["work_ids"] == [f"{plan_id}-investigate", f"{plan_id}-implement"]
    repeat, late_reject, shown = calls(
        harn,
        (0, ["supervisor", "plan", "approve", goal_id, plan_id, "--reason", "another reason", "--actor", "bob"]),
        (3, ["supervisor", "plan", "reject", goal_id, plan_id, "--reason", "too late"]),
        (0, ["supervisor", "show", goal_id]),
    )
    assert repeat == {"outcome": "already_done", "event": event}
    assert "applied" in late_reject["error"]["message"]
    proposal = record(plan_dir / "proposal.json")
    for key in ("investigate", "implement"):
        intent = record(root / ".harnery/work" / f"{plan_id}-{key}" / "intent.json")
        assert intent["source"] == {"kind": "plan", "ref": f"{goal_id}/{plan_id}"}
        assert intent["created_at"] == proposal["proposed_at"]
        assert intent["template"] == {"path": catalog[key]["path"], "sha256": catalog[key]["sha256"]}
        assert intent["max_attempts"] == catalog[key]["max_attempts"]
    assert (shown["state"], shown["next_action"], shown["generation"]) == ("ready", "run", 1)
    assert shown["root_work_id"] == f"{plan_id}-implement"
    assert shown["governed_work_ids"] == ["w-root", f"{plan_id}-investigate", f"{plan_id}-implement"]
    assert [(w["id"], w["active"], w["state"]) for w in shown["work"]] == [
        (f"{plan_id}-implement", True, "waiting"),
        (f"{plan_id}-investigate", True, "ready"),
        ("w-root", False, "blocked"),
    ]
    assert shown["plans"][0]["status"] == "applied" and shown["plans"][0]["reason"] is None
    assert shown["plans"][0]["work_ids"] == event["work_ids"]
    superseded = error(harn, 3, "work", "run", "w-root")
    assert "superseded" in superseded or "active" in superseded
    check_tree(root)


# ----- seed 000: attention, retry with guidance, stale fingerprints, the replan budget


def test_attention_plans_retry_with_guidance_until_the_replan_budget_is_spent(harn: Harn, files: Path) -> None:
    root = harn.root
    unsure = {"decision": "attention", "rationale": "Which queue should replace the lock?", "work": []}
    still = {"decision": "attention", "rationale": "Still unsure.", "work": []}
    team_a = scripted_team(files, unsure, still, name="team-a")
    team_b = scripted_team(files, unsure, name="team-b")
    replanning = plain_replanning(files, max_replans=2)
    failing_root(harn, files, "w-a")
    failing_root(harn, files, "w-b")
    for goal_id, team, work_id in (("g-a", team_a, "w-a"), ("g-b", team_b, "w-b")):
        call(
            harn,
            "supervisor",
            "create",
            "--team",
            str(team),
            "--replanning",
            str(replanning),
            "--root-work",
            work_id,
            "--id",
            goal_id,
        )
    run_a, run_b = calls(harn, (0, ["supervisor", "run", "g-a"]), (0, ["supervisor", "run", "g-b"]))
    goal = run_a["goal"]
    plan_a = goal["attention_plan_id"]
    assert (goal["state"], goal["next_action"], goal["pending_plan_id"]) == ("awaiting_attention", "retry_plan", None)
    assert goal["plans"][0]["status"] == "attention" and goal["plans"][0]["reason"] == unsure["rationale"]
    plan_dir = root / ".harnery/supervisors/g-a/plans" / plan_a
    proposal = record(plan_dir / "proposal.json")
    assert (proposal["decision"], proposal["root"], proposal["work"]) == ("attention", None, [])
    assert [(e["event"], e.get("reason")) for e in events(plan_dir / "events.jsonl")] == [
        ("plan.proposed", None),
        ("plan.attention", unsure["rationale"]),
    ]
    pending = call(harn, "pending")["pending"]
    assert {(p["kind"], p["goal_id"], p["plan_id"]) for p in pending} == {
        ("retry_plan", "g-a", plan_a),
        ("retry_plan", "g-b", run_b["goal"]["attention_plan_id"]),
    }

    # seed 000 on g-b: the graph moved (an operator reopened the root), so the attention plan is stale
    plan_b = run_b["goal"]["attention_plan_id"]
    call(harn, "work", "reopen", "w-b")
    refusals = calls(
        harn,
        (3, ["supervisor", "plan", "approve", "g-a", plan_a]),
        (3, ["supervisor", "plan", "reject", "g-a", plan_a, "--reason", "no"]),
        (3, ["supervisor", "plan", "retry", "g-b", plan_b, "--reason", "go on"]),
        (0, ["supervisor", "show", "g-b"]),
    )
    assert "stale" in refusals[2]["error"]["message"]
    assert (refusals[3]["state"], refusals[3]["next_action"], refusals[3]["attention_plan_id"]) == (
        "ready",
        "run",
        None,
    )

    guidance = "Use the durable queue: the v2 one"
    retried = call(harn, "supervisor", "plan", "retry", "g-a", plan_a, "--reason", guidance)
    assert retried["outcome"] == "applied" and retried["event"]["event"] == "plan.retry_requested"
    repeat, different, shown = calls(
        harn,
        (0, ["supervisor", "plan", "retry", "g-a", plan_a, "--reason", guidance, "--actor", "bob"]),
        (3, ["supervisor", "plan", "retry", "g-a", plan_a, "--reason", "something else"]),
        (0, ["supervisor", "show", "g-a"]),
    )
    assert repeat == {"outcome": "already_done", "event": retried["event"]}
    assert "different reason" in different["error"]["message"]
    assert (shown["state"], shown["next_action"], shown["latest_plan_status"]) == ("ready", "replan", "retry_requested")
    assert shown["plans"][0]["reason"] == guidance and shown["attention_plan_id"] is None

    aborted = root / ".harnery/supervisors/g-a/plans/plan-0002-0badc0de"
    aborted.mkdir(mode=0o700)  # a crashed creation: no request.json, ignored, its sequence reused
    tick = call(harn, "supervisor", "tick", "g-a")
    goal = tick["goal"]
    plan_2 = goal["attention_plan_id"]
    assert plan_2.startswith("plan-0002-") and [p["sequence"] for p in goal["plans"]] == [1, 2]
    assert (goal["state"], goal["next_action"]) == ("awaiting_attention", "none")
    assert (goal["replans_used"], goal["replans_remaining"]) == (2, 0)
    latest = record(root / ".harnery/supervisors/g-a/plans" / plan_2 / "planner-input.json")["latest_plan"]
    assert latest == {"id": plan_a, "status": "retry_requested", "reason": guidance, "rationale": unsure["rationale"]}
    no_slot, old_repeat, pending = calls(
        harn,
        (3, ["supervisor", "plan", "retry", "g-a", plan_2, "--reason", "once more"]),
        (0, ["supervisor", "plan", "retry", "g-a", plan_a, "--reason", guidance]),
        (0, ["pending"]),
    )
    assert "replan" in no_slot["error"]["message"] and old_repeat["outcome"] == "already_done"
    assert "g-a" not in {p["goal_id"] for p in pending["pending"]}, "no replan slot: nothing to decide"


# ----- a mission: plan_initial, a milestone, plan_milestone, complete


def test_a_mission_plans_its_milestones_and_completes(harn: Harn, files: Path) -> None:
    first = {
        "decision": "apply",
        "rationale": "Build the first milestone.",
        "work": [
            {
                "key": "build",
                "title": "Build it",
                "objective": "Build the queue.",
                "acceptance": ["built"],
                "template": "implement",
            }
        ],
        "milestone": {"sequence": 1, "title": "M1", "objective": "A durable queue.", "acceptance": ["built"]},
    }
    done = {"decision": "complete", "rationale": "The mission's acceptance holds.", "work": []}
    team = scripted_team(files, first, done)
    created = call(
        harn,
        "supervisor",
        "create",
        "--team",
        str(team),
        "--mission",
        str(files / "mission.json"),
        "--replanning",
        str(plain_replanning(files)),
        "--id",
        "g-m",
    )
    assert (created["state"], created["next_action"], created["root_work_id"]) == ("ready", "plan_initial", None)
    mission = record(harn.root / ".harnery/supervisors/g-m/goal.json")["mission"]
    assert mission == json.loads((files / "mission.json").read_text())
    plan_1 = call(harn, "supervisor", "tick", "g-m")["goal"]["pending_plan_id"]
    assert call(harn, "supervisor", "plan", "show", "g-m", plan_1)["trigger"] == "initial"
    call(harn, "supervisor", "plan", "approve", "g-m", plan_1)
    assert call(harn, "supervisor", "tick", "g-m")["goal"]["next_action"] == "review"
    call(harn, "work", "accept", f"{plan_1}-build")
    shown = call(harn, "supervisor", "show", "g-m")
    assert (shown["state"], shown["next_action"], shown["milestones_completed"]) == ("ready", "plan_milestone", 1)
    goal = call(harn, "supervisor", "tick", "g-m")["goal"]
    plan_2 = goal["pending_plan_id"]
    assert goal["plans"][1]["trigger"] == "milestone" and plan_2.startswith("plan-0002-")
    completed = call(harn, "supervisor", "plan", "approve", "g-m", plan_2, "--reason", "ship it")
    assert completed["event"]["event"] == "plan.completed"
    shown = call(harn, "supervisor", "show", "g-m")
    assert (shown["state"], shown["next_action"], shown["latest_plan_status"]) == ("succeeded", "none", "completed")
    assert shown["plans"][1]["reason"] == "ship it" and shown["generation"] == 1


# ----- approvals: park, first decision wins under concurrency, resume the same run


def test_a_parked_attempt_takes_exactly_one_decision_and_resumes_the_same_run(harn: Harn, files: Path) -> None:
    call(
        harn,
        "work",
        "create",
        "Read the logs",
        str(files / "templates" / "investigate.py"),
        "--objective",
        "Find the cause",
        "--accept",
        "cause written down",
        "--id",
        "w-logs",
    )
    parked = call(harn, "work", "run", "w-logs")
    approval_id = f"apr-{parked['run_id']}-1"
    assert (parked["status"], parked["approval_id"]) == ("parked", approval_id)
    request = record(harn.root / ".harnery/approvals" / approval_id / "request.json")
    assert request == {
        "schema_version": 1,
        "id": approval_id,
        "run_id": parked["run_id"],
        "work_id": "w-logs",
        "goal_id": None,
        "question": "May I read the production logs?",
        "details": "Read-only, last 24 hours.",
        "requested_at": request["requested_at"],
    }
    finished = work_log(harn.root, "w-logs")[-1]
    assert (finished["event"], finished["status"], finished["approval_id"]) == (
        "attempt.finished",
        "parked",
        approval_id,
    )
    pending, shown = calls(harn, (0, ["pending"]), (0, ["work", "show", "w-logs"]))
    assert [(p["kind"], p["goal_id"], p["work_id"], p["approval_id"]) for p in pending["pending"]] == [
        ("approval", None, "w-logs", approval_id)
    ]
    assert (shown["state"], shown["next_action"]) == ("awaiting_approval", "resolve_approval")

    def decide(verdict: str, actor: str) -> subprocess.CompletedProcess[str]:
        return harn("approval", verdict, approval_id, "--reason", f"{actor} says {verdict}", "--actor", actor, "--json")

    with ThreadPoolExecutor(max_workers=4) as pool:
        racers = list(
            pool.map(
                lambda pair: decide(*pair),
                [("approve", "ann"), ("approve", "bob"), ("approve", "cat"), ("deny", "dan")],
            )
        )
    documents = [json.loads(r.stdout) for r in racers]
    winners = [d["event"] for d in documents if d.get("outcome") == "applied"]
    assert len(winners) == 1, documents
    decision = record(harn.root / ".harnery/approvals" / approval_id / "decision.json")
    assert decision == winners[0] and set(decision) == {
        "schema_version",
        "approval_id",
        "verdict",
        "actor",
        "reason",
        "decided_at",
    }
    for (verdict, _), result, document in zip(
        [("approve", "ann"), ("approve", "bob"), ("approve", "cat"), ("deny", "dan")], racers, documents, strict=True
    ):
        if document.get("outcome") == "applied":
            continue
        if verdict == decision["verdict"] and verdict == "approve":
            assert (result.returncode, document["outcome"], document["event"]) == (0, "already_done", decision)
        else:
            assert result.returncode == 3 and document["error"]["code"] == "refused"

    resumed = call(harn, "work", "run", "w-logs")
    assert (resumed["run_id"], resumed["resumed"]) == (parked["run_id"], True)
    log = work_log(harn.root, "w-logs")
    assert [e["event"] for e in log].count("attempt.started") == 1
    resume = next(e for e in log if e["event"] == "attempt.resumed")
    assert (resume["run_id"], resume["approval_id"]) == (parked["run_id"], approval_id)
    expected = ("in_review", "passed") if decision["verdict"] == "approve" else ("blocked", "failed")
    assert (resumed["work"]["state"], resumed["status"]) == expected
    repeat = call(harn, "approval", decision["verdict"], approval_id, "--reason", decision["reason"])
    assert repeat == {"outcome": "already_done", "event": decision}


# ----- section 5 runs: lost attempts; section 7 templates: digest re-check


def test_a_lost_attempt_is_a_charged_failure_recorded_by_the_next_writer(harn: Harn, files: Path) -> None:
    call(
        harn,
        "work",
        "create",
        "Crash",
        str(files / "templates" / "implement.py"),
        "--objective",
        "o",
        "--accept",
        "c",
        "--id",
        "w-lost",
    )
    killed = harn("work", "run", "w-lost", "--json", env={"HARN_FAULT": "run.attempt_process_started:1"})
    assert killed.returncode == 137
    shown = call(harn, "work", "show", "w-lost")
    assert (shown["state"], shown["next_action"], shown["attempts_used"]) == ("blocked", "retry", 1)
    assert work_log(harn.root, "w-lost")[-1]["event"] == "attempt.started", "a reader never writes"
    retried = call(harn, "work", "retry", "w-lost")
    assert (retried["attempt"], retried["trigger"], retried["status"]) == (2, "retry", "passed")
    log = work_log(harn.root, "w-lost")
    lost = log[2]
    assert (lost["event"], lost["status"], lost["reason"], lost["actor"]) == (
        "attempt.finished",
        "failed",
        "lost",
        "supervisor",
    )
    assert lost["run_id"] == log[1]["run_id"] and log[3]["event"] == "attempt.started"
    prior = record(harn.root / ".harnery/runs" / retried["run_id"] / "manifest.json")["attempt"]["prior"]
    assert set(prior) == {"run_id", "summary", "unsatisfied", "class"} and prior["run_id"] == log[1]["run_id"]


def test_a_park_without_a_real_question_is_a_failed_charged_attempt(harn: Harn, files: Path) -> None:
    template = files / "templates" / "blank-park.sh"
    template.write_text('#!/bin/sh\necho \'{"question": "   "}\' > "$HARN_RUN_DIR/approval-request.json"\nexit 75\n')
    template.chmod(0o755)
    call(harn, "work", "create", "Ask nothing", str(template), "--objective", "o", "--id", "w-blank")
    ran = call(harn, "work", "run", "w-blank")
    assert (ran["status"], ran["approval_id"], ran["work"]["state"]) == ("failed", None, "blocked")
    assert "approval-request.json" in ran["reason"] and not any((harn.root / ".harnery/approvals").iterdir())


def test_a_changed_template_refuses_the_run_and_records_nothing(harn: Harn, files: Path) -> None:
    template = files / "templates" / "implement.py"
    call(harn, "work", "create", "Edit", str(template), "--objective", "o", "--id", "w-edit")
    template.write_text(template.read_text() + "# edited after creation\n")
    assert "changed" in error(harn, 3, "work", "run", "w-edit")
    assert not list((harn.root / ".harnery/runs").iterdir())


# ----- the demo tree: many states at once, every document consistent with the files


def test_the_demo_tree_is_consistent_with_the_spec(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    built = subprocess.run(
        [sys.executable, "-m", "harn_tui", "demo", "--no-tui", str(demo), "--json"],
        capture_output=True,
        text=True,
        env=harn_env(),
        timeout=120,
    )
    assert built.returncode == 0, built.stderr
    harn = Harn(demo)
    listing, pending, verify, work = calls(
        harn, (0, ["supervisor", "list"]), (0, ["pending"]), (0, ["verify"]), (0, ["work", "list"])
    )
    assert verify == {"ok": True, "problems": []} and listing["problems"] == []
    kinds = {p["kind"] for p in pending["pending"]}
    assert kinds == {"review_plan", "retry_plan", "review_work", "approval"}
    for row in pending["pending"]:
        assert set(row) == {"kind", "goal_id", "plan_id", "work_id", "approval_id", "reason"} and row["reason"]
    shows = calls(harn, *[(0, ["supervisor", "show", g["id"]]) for g in listing["goals"]])
    for goal in shows:
        assert set(goal) >= SHOW_FIELDS and goal["reason"]
        assert (goal["pending_plan_id"] is not None) == (goal["next_action"] == "review_plan")
        assert (goal["attention_plan_id"] is not None) == (
            goal["state"] == "awaiting_attention"
            and goal["next_action"] in ("retry_plan", "none")
            and goal["latest_plan_status"] == "attention"
        )
        assert [p["sequence"] for p in goal["plans"]] == list(range(1, len(goal["plans"]) + 1))
        assert all(set(p) >= PLAN_FIELDS and PLAN_ID.match(p["id"]) for p in goal["plans"])
        active = [w["active"] for w in goal["work"]]
        assert active == sorted(active, reverse=True), "the active closure first"
        assert goal["work"] and set(goal["governed_work_ids"]) == {w["id"] for w in goal["work"]}
        assert all(set(w) >= WORK_FIELDS for w in goal["work"])
        if goal["attention_plan_id"]:
            plan = call(harn, "supervisor", "plan", "show", goal["id"], goal["attention_plan_id"])
            assert plan["request"]["graph_fingerprint"] == fingerprint(demo, goal), "rule 8 holds only unmoved"
            assert plan["request"]["prior_root_work_id"] == goal["root_work_id"]
    owners = {w["id"]: w["goal_id"] for w in work["work"]}
    for row in pending["pending"]:
        if row["work_id"]:
            assert owners[row["work_id"]] == row["goal_id"]
    for run in (demo / ".harnery/runs").iterdir():
        approvals = sorted((demo / ".harnery/approvals").glob(f"apr-{run.name}-*"))
        assert (run / "manifest.json").is_file() and ((run / "proof.json").is_file() or approvals)
    check_tree(demo)


# ----- section 1/2: a torn tail is reported, not fatal, and repaired by the next writer; damage fails closed


def test_a_torn_tail_is_reported_by_readers_and_repaired_by_the_next_writer(harn: Harn, files: Path) -> None:
    call(
        harn, "work", "create", "Torn", str(files / "templates" / "implement.py"), "--objective", "o", "--id", "w-torn"
    )
    call(harn, "supervisor", "create", "--team", str(files / "team.json"), "--root-work", "w-torn", "--id", "g-t")
    log = harn.root / ".harnery/work/w-torn/events.jsonl"
    with log.open("ab") as handle:
        handle.write(b'{"schema_version":1,"seq":2,"ts":"2026')
    shown, listing, verify, work = calls(
        harn,
        (0, ["supervisor", "show", "g-t"]),
        (0, ["supervisor", "list"]),
        (5, ["verify"]),
        (0, ["work", "show", "w-torn"]),
    )
    assert (shown["state"], shown["next_action"]) == ("ready", "run"), "a torn tail alone is not corruption"
    assert [p["path"] for p in shown["problems"]] == [str(log)]
    assert [p["path"] for p in listing["problems"]] == [str(log)]
    assert verify == {"ok": False, "problems": [{"path": str(log), "problem": verify["problems"][0]["problem"]}]}
    assert [e["event"] for e in work["events"]] == ["work.created"]
    cancelled = call(harn, "work", "cancel", "w-torn", "--reason", "repaired on the way")
    assert cancelled["event"]["seq"] == 2
    assert log.read_bytes().endswith(b"\n") and b'"ts":"2026{' not in log.read_bytes()
    assert [e["seq"] for e in events(log)] == [1, 2]
    assert call(harn, "verify") == {"ok": True, "problems": []}


def test_unreadable_records_fail_closed_with_exit_5_and_list_reports_them(harn: Harn, files: Path) -> None:
    call(harn, "work", "create", "Root", str(files / "templates" / "implement.py"), "--objective", "o", "--id", "w-bad")
    call(harn, "supervisor", "create", "--team", str(files / "team.json"), "--root-work", "w-bad", "--id", "g-bad")
    goal_file = harn.root / ".harnery/supervisors/g-bad/goal.json"
    goal_file.chmod(0o600)
    goal_file.write_text(json.dumps({**record(goal_file), "drift": True}))
    (harn.root / ".harnery/work/w-empty").mkdir(mode=0o700)
    unversioned = harn.root / ".harnery/work/w-unversioned"
    unversioned.mkdir(mode=0o700)
    intent = record(harn.root / ".harnery/work/w-bad/intent.json")
    del intent["schema_version"]
    (unversioned / "intent.json").write_text(json.dumps({**intent, "id": "w-unversioned"}))
    before = tree_bytes(harn.root)
    show, plan, cancel, tick, listing, verify, work, empty, empty_cancel, drift = calls(
        harn,
        (5, ["supervisor", "show", "g-bad"]),
        (4, ["supervisor", "plan", "approve", "g-bad", "plan-0001-00000000"]),
        (5, ["work", "cancel", "w-bad", "--reason", "stop"]),
        (5, ["supervisor", "tick", "g-bad"]),
        (0, ["supervisor", "list"]),
        (5, ["verify"]),
        (0, ["work", "show", "w-bad"]),
        (5, ["work", "show", "w-empty"]),
        (5, ["work", "cancel", "w-empty"]),
        (5, ["work", "show", "w-unversioned"]),
    )
    assert tree_bytes(harn.root) == before
    assert str(goal_file) in show["error"]["message"] and "drift" in show["error"]["message"]
    assert [(g["id"], g["state"], g["next_action"]) for g in listing["goals"]] == [("g-bad", "corrupt", "none")]
    assert listing["problems"] and all(set(p) == {"path", "problem"} for p in listing["problems"])
    assert verify["ok"] is False and any("drift" in p["problem"] for p in verify["problems"])
    assert (work["id"], work["goal_id"]) == ("w-bad", "g-bad"), "readable work of an unreadable goal still shows"
    assert "intent.json" in empty["error"]["message"] and "w-empty" in empty_cancel["error"]["message"]
    assert "schema_version" in drift["error"]["message"], "a record without schema_version is drift, not v1"
    assert any("w-unversioned" in p["path"] for p in verify["problems"])
    assert "plan-0001-00000000" in plan["error"]["message"], "the address is checked before readability"
    assert "g-bad" in cancel["error"]["message"] and "g-bad" in tick["error"]["message"]


def test_bad_input_is_exit_2_even_where_there_is_no_tree(tmp_path: Path) -> None:
    """Usage and bounds come first (SPEC 6): before the address, and before the root itself is looked up."""
    nowhere = Harn(tmp_path)
    calls(
        nowhere,
        (2, ["work", "cancel", "../escape"]),
        (2, ["--actor", "two words", "work", "cancel", "w-1"]),
        (2, ["work", "cancel", "w-1", "--actor", ""]),
        (2, ["work", "reopen", "w-1", "--finding", " "]),
        (2, ["supervisor", "plan", "retry", "g-1", "p-1", "--reason", "r" * 2001]),
        (4, ["work", "cancel", "w-1"]),
    )
    assert not (tmp_path / ".harnery").exists()


# ----- section 3/8: goal creation inputs


def test_goal_creation_inputs_are_bounded_and_fail_closed(harn: Harn, files: Path) -> None:
    call(harn, "work", "create", "Root", str(files / "templates" / "implement.py"), "--objective", "o", "--id", "w-ok")
    broken = harn.root / ".harnery/work/w-broken"
    broken.mkdir(mode=0o700)
    (broken / "intent.json").write_text('{"schema_version": 1, "id": "w-broken"}')
    team = str(files / "team.json")
    title, directory, unreadable_root, mission_only, missing = calls(
        harn,
        (2, ["supervisor", "create", "--team", team, "--root-work", "w-ok", "--title", "t" * 201]),
        (2, ["supervisor", "create", "--team", str(files), "--root-work", "w-ok"]),
        (5, ["supervisor", "create", "--team", team, "--root-work", "w-broken"]),
        (2, ["supervisor", "create", "--team", team, "--mission", str(files / "mission.json")]),
        (4, ["supervisor", "create", "--team", team, "--root-work", "w-none"]),
    )
    assert "200" in title["error"]["message"] and str(files) in directory["error"]["message"]
    assert "w-broken" in unreadable_root["error"]["message"] and "w-none" in missing["error"]["message"]
    assert "replanning" in mission_only["error"]["message"]
    assert not any((harn.root / ".harnery/supervisors").iterdir()), "a refused creation leaves no goal behind"
