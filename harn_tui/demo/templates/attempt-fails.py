#!/usr/bin/env python3
"""Demo template for an approach that does not work: a failed proof with every criterion unsatisfied."""

import datetime
import json
import os

with open(os.environ["HARN_MANIFEST"]) as f:
    manifest = json.load(f)
work = manifest["work"]
first = work["acceptance"][0] if work["acceptance"] else work["title"]
summary = f"could not meet {first!r}: {work['objective']}"[:2000]
print(f"trying {work['title']!r}")
print(f"failed: {summary}")
proof = {
    "schema_version": 1,
    "run_id": manifest["run_id"],
    "status": "failed",
    "summary": summary,
    "acceptance": [{"criterion": c, "status": "unsatisfied", "evidence": summary} for c in work["acceptance"]],
    "class": None,
    "finished_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
}
with open(os.environ["HARN_PROOF"], "w") as f:
    json.dump(proof, f)
