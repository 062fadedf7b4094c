"""Measurements that need a fresh interpreter, run as `python -m benchmarks.probes NAME ROOT`; print JSON.

A fresh process per sample keeps a "cold load" cold: no objects or caches left over from earlier samples
(the operating system's page cache is warm for the probe and the baseline alike).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def read_every_record(root: Path) -> int:
    """The baseline: read every file the reader consumes and `json.loads` it (JSONL: every line).

    Those are the goal, plan, work, proof and approval records and every work and plan log; run manifests and
    transcripts are skipped because no projection reads them.
    """
    base = root / ".harnery"
    loaded = 0

    def record(path: str) -> None:
        nonlocal loaded
        try:
            with open(path, "rb") as handle:
                json.loads(handle.read())
        except FileNotFoundError:
            return
        loaded += 1

    def log(path: str) -> None:
        nonlocal loaded
        try:
            with open(path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return
        for line in data.split(b"\n")[:-1]:
            json.loads(line)
            loaded += 1

    supervisors = f"{base}/supervisors"
    for goal in sorted(os.listdir(supervisors)):
        record(f"{supervisors}/{goal}/goal.json")
        plans = f"{supervisors}/{goal}/plans"
        for plan in sorted(os.listdir(plans)):
            for name in ("request.json", "proposal.json", "candidate.json", "review.json"):
                record(f"{plans}/{plan}/{name}")
            log(f"{plans}/{plan}/events.jsonl")
    for work in sorted(os.listdir(f"{base}/work")):
        record(f"{base}/work/{work}/intent.json")
        log(f"{base}/work/{work}/events.jsonl")
    for run in sorted(os.listdir(f"{base}/runs")):
        record(f"{base}/runs/{run}/proof.json")
    for approval in sorted(os.listdir(f"{base}/approvals")):
        record(f"{base}/approvals/{approval}/request.json")
        record(f"{base}/approvals/{approval}/decision.json")
    return loaded


def load_and_project(root: Path) -> int:
    """What a console does on start: load the whole tree and project every goal."""
    from harn_tui.core.layout import Layout
    from harn_tui.core.queries import project_tree
    from harn_tui.core.tree import Tree

    view = project_tree(Tree.load(Layout(root)))
    return len(view.goals)


PROBES = {"baseline": read_every_record, "cold-load": load_and_project}


SPAWNED_AT = "BENCH_SPAWNED_AT"


def main(argv: list[str]) -> int:
    name, root = argv[0], Path(argv[1])
    probe = PROBES[name]
    if name == "cold-load":
        # imports are not part of a load: take them before the clock starts
        import harn_tui.core.queries  # noqa: F401
    started, cpu_started = time.perf_counter(), time.process_time()
    count = probe(root)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    document = {"seconds": elapsed, "cpu_seconds": cpu, "count": count}
    spawned_at = os.environ.get(SPAWNED_AT)
    if spawned_at is not None:  # from the parent's spawn: interpreter start and imports included
        document["since_spawn_seconds"] = time.time() - float(spawned_at)
    print(json.dumps(document))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
