"""The seed scenarios through the CLI with `--executor ray` on a real two-node cluster give the same events and
projections as the local executor: the two trees and every command's document compared modulo ids and times."""

from __future__ import annotations

import difflib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.creation import init_tree
from tests.conftest import Harn
from tests.e2e.test_loop_seeds import write_goal_files
from tests.goal_kit import LOOP
from tests.ray_cluster import LocalCluster

pytestmark = pytest.mark.timeout(900)  # the session's cluster starts in the first test
IDS = (
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})"), "<time>"),
    (re.compile(r"\d{8}T\d{6}Z-[0-9a-f]+"), "<id>"),
    (re.compile(r"plan-(\d{4})-[0-9a-f]{8}"), r"plan-\1-<id>"),
    (re.compile(r"\b[0-9a-f]{64}\b"), "<sha256>"),
)


def normalized(value: Any, root: Path) -> Any:
    """`value` with the tree's root, times, generated ids and digests (of records holding those) masked."""
    if isinstance(value, dict):
        return {normalized(k, root): normalized(v, root) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(normalized(v, root) for v in value)
    if isinstance(value, str):
        value = value.replace(str(root), "<root>")
        for pattern, mask in IDS:
            value = pattern.sub(mask, value)
    return value


def tree_records(root: Path) -> list[tuple[str, Any]]:
    """Every record and log under `.harnery/` (leases, locks, cache and service files left out), parsed, in the
    order of their real paths, except that runs are in the order of their attempts (a run id's time is in whole
    seconds, and two attempts within one second sort by the id's random part)."""
    found: list[tuple[str, Any]] = []
    for path in sorted((root / ".harnery").rglob("*")):
        parts = set(path.relative_to(root).parts)
        if not path.is_file() or path.name in ("lease", "supervisor.lock") or parts & {"cache", "service"}:
            continue
        text = path.read_text()
        if path.suffix == ".jsonl":
            body: Any = [json.loads(line) for line in text.splitlines()]
        elif path.suffix == ".json":
            body = json.loads(text)
        else:
            body = text
        found.append((str(path.relative_to(root)), body))
    manifests = {path.split("/")[2]: body for path, body in found if path.endswith("/manifest.json")}

    def order(entry: tuple[str, Any]) -> tuple[Any, ...]:
        path = entry[0].split("/")
        if len(path) < 4 or path[1] != "runs" or path[2] not in manifests:
            return (path[1], "", 0, entry[0])
        manifest = manifests[path[2]]
        return ("runs", manifest["work"]["id"], manifest["attempt"]["number"], "/".join(path[3:]))

    found.sort(key=order)
    masked: list[tuple[str, Any]] = normalized(found, root)
    return masked


def seed_001(harn: Harn, tmp: Path, examples: Path, executor: tuple[str, ...]) -> list[Any]:
    """A failed root replaced by an approved recovery root (the planner on the host, attempts on `executor`)."""
    docs = [
        harn.json(
            "work",
            "create",
            "Lock-based job queue",
            str(LOOP / "fail.py"),
            "--objective",
            "Keep jobs safe.",
            "--accept",
            "no job is lost across a crash",
            "--max-attempts",
            "1",
            "--id",
            "root-work",
        )
    ]
    team, replanning = write_goal_files(tmp, examples, "recovery_planner.py")
    docs.append(
        harn.json(
            "supervisor",
            "create",
            "--team",
            str(team),
            "--replanning",
            str(replanning),
            "--root-work",
            "root-work",
            "--id",
            "goal-seed-001",
        )
    )
    first = harn.json("supervisor", "run", "goal-seed-001", *executor)
    assert first["stop_reason"] == "needs_human" and [o["status"] for o in first["outcomes"]] == ["failed", "proposed"]
    plan_id = first["goal"]["pending_plan_id"]
    docs += [first, harn.json("supervisor", "plan", "approve", "goal-seed-001", plan_id)]
    second = harn.json("supervisor", "run", "goal-seed-001", *executor)
    assert second["goal"]["next_action"] == "review"
    docs += [
        second,
        harn.json("work", "accept", second["outcomes"][0]["work_id"]),
        harn.json("supervisor", "show", "goal-seed-001"),
    ]
    assert docs[-1]["state"] == "succeeded" and docs[-1]["attempts_used"] == 2
    return docs


def seed_003(harn: Harn, examples: Path, executor: tuple[str, ...]) -> list[Any]:
    """A standalone review cycle: run, reopen with findings, run again (the findings reach the template), accept."""
    template = str(examples / "templates" / "implement.py")
    docs = [
        harn.json(
            "work",
            "create",
            "Add a queue",
            template,
            "--objective",
            "Make a durable queue",
            "--accept",
            "tests pass",
            "--accept",
            "docs written",
            "--id",
            "work-queue",
        )
    ]
    docs.append(harn.json("work", "run", "work-queue", *executor))
    docs.append(
        harn.json(
            "--actor",
            "alice",
            "work",
            "reopen",
            "work-queue",
            "--finding",
            "docs are thin",
            "--finding",
            "no crash test",
            "--reason",
            "needs more",
        )
    )
    second = harn.json("work", "run", "work-queue", *executor)
    assert (second["trigger"], second["attempt"], second["status"]) == ("reopen", 2, "passed")
    docs.append(second)
    docs.append(harn.json("work", "accept", "work-queue", "--dispose", "f1=fixed", "--dispose", "f2=deferred:later"))
    docs.append(harn.json("work", "show", "work-queue"))
    assert docs[-1]["state"] == "succeeded"
    return docs


def test_seed_001_and_003_on_ray_give_the_local_events_and_projections(
    ray_cluster: LocalCluster, tmp_path: Path, examples: Path
) -> None:
    ray_args = ("--executor", "ray", "--ray-address", ray_cluster.address)
    results = {}
    for name, executor in (("local", ()), ("ray", ray_args)):
        root, files = tmp_path / name, tmp_path / f"{name}-files"
        root.mkdir()
        files.mkdir()
        init_tree(root)
        harn = Harn(root)
        docs = seed_001(harn, files, examples, executor) + seed_003(harn, examples, executor)
        results[name] = (normalized(docs, root), tree_records(root))
    local_docs, local_tree = results["local"]
    ray_docs, ray_tree = results["ray"]
    for ray_doc, local_doc in zip(ray_docs, local_docs, strict=True):
        assert ray_doc == local_doc, _diff(local_doc, ray_doc)
    assert [path for path, _ in ray_tree] == [path for path, _ in local_tree]
    for (path, ray_body), (_, local_body) in zip(ray_tree, local_tree, strict=True):
        assert ray_body == local_body, f"{path}:\n{_diff(local_body, ray_body)}"
    assert any(body for path, body in ray_tree if path.endswith("transcript.jsonl")), "lines came back"


def _diff(local: Any, ray: Any) -> str:
    def lines(value: Any) -> list[str]:
        return json.dumps(value, indent=1, sort_keys=True).splitlines()

    return "\n".join(difflib.unified_diff(lines(local), lines(ray), "local", "ray", lineterm="", n=2))
