#!/usr/bin/env python3
"""Demo template for read-only investigation: reports its findings as evidence in a passing proof."""

import datetime
import json
import os

with open(os.environ["HARN_MANIFEST"]) as f:
    manifest = json.load(f)
work = manifest["work"]
print(f"investigating {work['title']!r}")
proof = {
    "schema_version": 1,
    "run_id": manifest["run_id"],
    "status": "succeeded",
    "summary": "scheduler.dispatch holds the lock 840 ms at p99; retry.requeue 310 ms; metrics.flush 120 ms",
    "acceptance": [
        {"criterion": c, "status": "satisfied", "evidence": "profiled 10 minutes of replayed traffic"}
        for c in work["acceptance"]
    ],
    "class": None,
    "finished_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
}
with open(os.environ["HARN_PROOF"], "w") as f:
    json.dump(proof, f)
