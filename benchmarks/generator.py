"""Generate a synthetic `.harnery/` tree of a given shape directly in the on-disk format (no core writes).

Each goal has an original graph and four applied plans (generations 0..4); generations 2 and 4 build on the
previous root, so the active closure spans generations 3 and 4 and older ones are superseded. The fifth plan
and the frontier item of the active generation depend on the goal's kind (see `patterns.GOAL_KINDS`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import records as r
from benchmarks.items import Clock, GoalContext, write_item
from benchmarks.patterns import GOAL_KINDS, READY, SUCCEEDED, Step
from benchmarks.shapes import PLANS_PER_GOAL, TreeShape
from benchmarks.sink import Sink

GENERATOR_VERSION = 4
GOAL_SPACING_S = 6 * 3600
TEMPLATE_ID = "step"

TEMPLATE_SOURCE = '''\
"""A workflow template that does nothing and passes: writes a proof satisfying every criterion."""
import json, os
manifest = json.load(open(os.environ["HARN_MANIFEST"]))
criteria = manifest["work"]["acceptance"]
proof = {
    "schema_version": 1, "run_id": manifest["run_id"], "status": "succeeded", "summary": "nothing to do",
    "acceptance": [{"criterion": c, "status": "satisfied", "evidence": "synthetic"} for c in criteria],
    "class": None, "finished_at": "2026-06-01T00:00:00Z",
}
with open(os.environ["HARN_PROOF"], "w") as out:
    json.dump(proof, out)
'''

PLANNER_SOURCE = '''\
"""A planner that always asks for attention (never run by the benchmarks)."""
import json, sys
json.load(sys.stdin)
print(json.dumps({"decision": "attention", "rationale": "synthetic tree: nothing to plan", "work": []}))
'''


@dataclass
class Generation:
    """One generation of a goal's graph: its work IDs (root last) and the plan that applied it."""

    plan_id: str | None
    work_ids: list[str]
    keys: list[str]

    @property
    def root(self) -> str:
        return self.work_ids[-1]


def generate_tree(root: Path, shape: TreeShape) -> dict[str, Any]:
    """Write the tree under `root` (which must not hold one yet); returns the targets document."""
    base = str(root / ".harnery")
    sink = Sink()
    for name in ("supervisors", "work", "runs", "approvals", "presence", "cache"):
        sink.mkdir(f"{base}/{name}")
    template = _write_executable(sink, root / "templates" / "step.py", TEMPLATE_SOURCE)
    planner = _write_executable(sink, root / "specialists" / "planner.py", PLANNER_SOURCE)
    serials = [0]
    goals = []
    for index in range(shape.goals):
        writer = GoalWriter(base, shape, index, sink, serials, template, planner)
        goals.append(writer.write())
    _settle_attention_fingerprints(root, goals, sink)
    return {
        "version": GENERATOR_VERSION,
        "shape": {"name": shape.name, "goals": shape.goals, "items_per_goal": shape.items_per_goal},
        "files": sink.files,
        "bytes": sink.bytes,
        "work_events": shape.work_events,
        "template": str(template[0]),
        "goals": goals,
    }


def _write_executable(sink: Sink, path: Path, source: str) -> tuple[Path, str]:
    body = f"#!{sys.executable}\n{source}".encode()
    sink.write_path(path, body, 0o700)
    return path, hashlib.sha256(body).hexdigest()


class GoalWriter:
    """Writes one goal: goal.json, five plans, and every work item of its five generations."""

    def __init__(
        self,
        base: str,
        shape: TreeShape,
        index: int,
        sink: Sink,
        serials: list[int],
        template: tuple[Path, str],
        planner: tuple[Path, str],
    ) -> None:
        self.base = base
        self.shape = shape
        self.index = index
        self.kind, self.frontier_pattern, self.latest_status = GOAL_KINDS[index % len(GOAL_KINDS)]
        self.reviewed = (index // len(GOAL_KINDS)) % 2 == 0
        clock = Clock(r.BASE_EPOCH + index * GOAL_SPACING_S)
        self.goal_id = f"goal-{clock.stamp()}-{index:06x}"
        cwd = str(planner[0].parent)
        team = {"planner": r.profile(["python3", str(planner[0])], "Plan bounded recovery work.", cwd)}
        if self.reviewed:
            team["critic"] = r.profile(["python3", str(planner[0])], "Review each proposed plan.", cwd)
        self.template_ref = {"path": str(template[0]), "sha256": template[1]}
        self.catalog = {TEMPLATE_ID: r.template_entry(str(template[0]), template[1], 5, True)}
        self.ctx = GoalContext(base, self.goal_id, team, self.template_ref, clock, sink, serials)
        self._candidate_sha256 = ""
        self.attention_request: dict[str, Any] | None = None

    @property
    def goal_dir(self) -> str:
        return f"{self.base}/supervisors/{self.goal_id}"

    def write(self) -> dict[str, Any]:
        shape = self.shape
        generations = [self._original()]
        root = generations[0].root
        created_at = self.ctx.clock.next()
        replanning = r.replanning("planner", ["critic"] if self.reviewed else [], shape.per_plan, self.catalog)
        goal = r.goal_intent(self.goal_id, f"Synthetic goal {self.index}", created_at, root, self.ctx.team, replanning)
        self.ctx.sink.write(self.goal_dir, "goal.json", r.record_bytes(goal))
        for sequence in range(1, shape.applied_plans + 1):
            generations.append(self._applied_plan(sequence, generations[-1]))
        active = generations[-1]
        latest = self._latest_plan(PLANS_PER_GOAL, active)
        frontier = active.work_ids[len(active.work_ids) // 2]
        return {
            "id": self.goal_id,
            "reviewed": self.reviewed,
            "attention_request": self.attention_request,
            "kind": self.kind,
            "active_root": active.root,
            "frontier_work_id": frontier,
            "latest_plan_id": latest,
            "latest_plan_status": self.latest_status,
        }

    def _pattern(self, generation: int, position: int, count: int) -> tuple[Step, ...]:
        if generation < self.shape.applied_plans or self.kind == "succeeded":
            return SUCCEEDED
        frontier = count // 2
        if position < frontier:
            return SUCCEEDED
        return self.frontier_pattern if position == frontier else READY

    def _original(self) -> Generation:
        count = self.shape.original_items
        ids = [f"work-{self.ctx.clock.stamp()}-{self.ctx.serial_hex(6)}" for _ in range(count)]
        for position, work_id in enumerate(ids):
            intent = r.work_intent(
                work_id,
                *self._texts(0, position),
                _dependencies(ids, position),
                self.template_ref,
                {"kind": "human", "ref": None},
                self.ctx.clock.next(),
            )
            write_item(self.ctx, work_id, intent, self._pattern(0, position, count))
        return Generation(None, ids, [])

    def _texts(self, generation: int, position: int) -> tuple[str, str, list[str]]:
        title = f"Generation {generation} step {position}: tighten the queue's crash recovery"
        objective = (
            f"Make step {position} of generation {generation} durable: the job queue must survive a crash "
            "between dequeue and acknowledgement without losing or duplicating a job."
        )
        acceptance = ["No job is lost across a crash", "The recovery path has a regression test"]
        return title, objective, acceptance

    def _plan_work(self, generation: int, plan_id: str, previous: Generation | None) -> tuple[Generation, list[Any]]:
        count = self.shape.per_plan
        keys = [f"step-{position:02d}" for position in range(count)]
        ids = [f"{plan_id}-{key}" for key in keys]
        proposed = []
        for position, key in enumerate(keys):
            key_deps = _dependencies(keys, position)
            if position == 0 and previous is not None and (generation % 2 == 0 or generation == PLANS_PER_GOAL):
                key_deps = [previous.root]
            title, objective, acceptance = self._texts(generation, position)
            proposed.append(r.proposed_work(key, title, objective, acceptance, key_deps, TEMPLATE_ID))
        return Generation(plan_id, ids, keys), proposed

    def _applied_plan(self, sequence: int, previous: Generation) -> Generation:
        plan_id = f"plan-{sequence:04d}-{self.ctx.serial_hex(8)}"
        generation, proposed = self._plan_work(sequence, plan_id, previous)
        proposed_at = self._plan_records(sequence, plan_id, previous.root, "apply", proposed, generation.keys[-1])
        for position, (work_id, item) in enumerate(zip(generation.work_ids, proposed, strict=True)):
            dependencies = [d if d.startswith(("work-", "plan-")) else f"{plan_id}-{d}" for d in item["dependencies"]]
            intent = r.work_intent(
                work_id,
                item["title"],
                item["objective"],
                item["acceptance"],
                dependencies,
                self.template_ref,
                {"kind": "plan", "ref": f"{self.goal_id}/{plan_id}"},
                proposed_at,
            )
            write_item(self.ctx, work_id, intent, self._pattern(sequence, position, len(proposed)))
        events = [("plan.applied", {"root_work_id": generation.root, "work_ids": generation.work_ids, "reason": None})]
        self._plan_events(plan_id, events, reviewed_apply=True)
        return generation

    def _latest_plan(self, sequence: int, active: Generation) -> str:
        plan_id = f"plan-{sequence:04d}-{self.ctx.serial_hex(8)}"
        status = self.latest_status
        outcome: list[tuple[str, dict[str, Any]]] = []
        if status in ("proposed", "rejected"):
            _, proposed = self._plan_work(sequence, plan_id, active)
            self._plan_records(sequence, plan_id, active.root, "apply", proposed, proposed[-1]["key"])
            if status == "rejected":
                outcome = [("plan.rejected", {"reason": "The plan repeats work that already failed twice."})]
            self._plan_events(plan_id, outcome, reviewed_apply=True)
        elif status in ("attention", "retry_requested"):
            # attention: request.json is written last, once the real fingerprint is known
            if status == "attention":
                self.attention_request = {"prior_root": active.root, "created_at": self.ctx.clock.next()}
            write_request = status != "attention"
            self._plan_records(sequence, plan_id, active.root, "attention", [], None, write_request=write_request)
            outcome = [("plan.attention", {"reason": "The planner cannot tell which of two designs to pursue."})]
            if status == "retry_requested":
                outcome.append(("plan.retry_requested", {"reason": "Pick the design that keeps the old API."}))
            self._plan_events(plan_id, outcome, reviewed_apply=False)
        else:
            self._write_request(sequence, plan_id, active.root)
            failed = {"reason": "The planner replied twice with an invalid graph.", "class": "invalid"}
            self._plan_events(plan_id, [("plan.failed", failed)], reviewed_apply=False, proposed=False)
        return plan_id

    def _write_request(self, sequence: int, plan_id: str, prior_root: str, fingerprint: str | None = None) -> None:
        fingerprint = fingerprint or "sha256:" + hashlib.sha256(plan_id.encode()).hexdigest()
        body = r.plan_request(plan_id, self.goal_id, sequence, fingerprint, prior_root, self.ctx.clock.next())
        self.ctx.sink.write(f"{self.goal_dir}/plans/{plan_id}", "request.json", r.record_bytes(body))

    def _plan_records(
        self,
        sequence: int,
        plan_id: str,
        prior_root: str,
        decision: str,
        proposed: list[Any],
        root_key: str | None,
        write_request: bool = True,
    ) -> str:
        """request.json, proposal.json and (reviewed apply plans) candidate.json + review.json."""
        directory = f"{self.goal_dir}/plans/{plan_id}"
        if write_request:
            self._write_request(sequence, plan_id, prior_root)
        proposed_at = self.ctx.clock.next()
        rationale = f"Plan {sequence}: split the recovery into {len(proposed)} bounded steps."
        body = r.record_bytes(r.proposal(plan_id, decision, rationale, root_key, proposed, proposed_at))
        self._candidate_sha256 = hashlib.sha256(body).hexdigest()
        if self.reviewed and decision == "apply":
            self.ctx.sink.write(directory, "candidate.json", body)
            receipt = r.review_receipt(plan_id, self._candidate_sha256, "critic", self.ctx.clock.next())
            self.ctx.sink.write(directory, "review.json", r.record_bytes(receipt))
        self.ctx.sink.write(directory, "proposal.json", body)
        return proposed_at

    def _plan_events(
        self, plan_id: str, outcome: list[tuple[str, dict[str, Any]]], reviewed_apply: bool, proposed: bool = True
    ) -> None:
        events: list[tuple[str, str, dict[str, Any]]] = []
        if proposed and reviewed_apply and self.reviewed:
            events.append(("plan.reviewed", "supervisor", {"candidate_sha256": self._candidate_sha256, "round": 0}))
        if proposed:
            events.append(("plan.proposed", "supervisor", {}))
        for name, payload in outcome:
            actor = "supervisor" if name in ("plan.attention", "plan.failed") else "operator"
            events.append((name, actor, payload))
        lines = [
            r.event_line(r.event(seq, self.ctx.clock.next(), name, actor, **payload))
            for seq, (name, actor, payload) in enumerate(events, start=1)
        ]
        self.ctx.sink.write(f"{self.goal_dir}/plans/{plan_id}", "events.jsonl", b"".join(lines))


def _dependencies(ids: list[str], position: int) -> list[str]:
    """A small DAG: each item depends on the previous one and, further along, on the one halfway back."""
    if position == 0:
        return []
    found = [ids[position - 1]]
    if position >= 3 and position // 2 != position - 1:
        found.append(ids[position // 2])
    return found


def _settle_attention_fingerprints(root: Path, goals: list[dict[str, Any]], sink: Sink) -> None:
    """Write the request of each goal's attention plan with the goal's real graph fingerprint.

    The fingerprint is the core's own projection of the goal while that plan has no request yet
    (a plan directory without request.json is an aborted creation and does not count), so
    `plan retry` finds the request still current.
    """
    from harn_tui.core.layout import Layout
    from harn_tui.core.projection import project_goal
    from harn_tui.core.tree import Tree

    layout = Layout(root)
    for goal in goals:
        if goal.get("attention_request") is None:
            goal.pop("attention_request", None)
            continue
        view = project_goal(Tree.load_scoped(layout, goal["id"]), goal["id"])
        pending = goal.pop("attention_request")
        assert view.active_root == pending["prior_root"], (view.active_root, pending)
        plan_id = goal["latest_plan_id"]
        body = r.plan_request(
            plan_id, goal["id"], PLANS_PER_GOAL, view.graph_fingerprint, pending["prior_root"], pending["created_at"]
        )
        sink.write(str(layout.plan(goal["id"], plan_id)), "request.json", r.record_bytes(body))


def targets_bytes(targets: dict[str, Any]) -> bytes:
    return (json.dumps(targets, indent=2) + "\n").encode()
