#!/usr/bin/env python3
"""Demo template that asks a human before it acts: exit 75 parks the attempt; the resume reads the decision."""

import datetime
import json
import os
import sys

with open(os.environ["HARN_MANIFEST"]) as f:
    manifest = json.load(f)
decision_path = os.environ.get("HARN_APPROVAL")
if not decision_path:
    with open(os.path.join(os.environ["HARN_RUN_DIR"], "approval-request.json"), "w") as f:
        json.dump(
            {
                "question": "May I rotate the credentials of the primary database now?",
                "details": "Connections drain for about 30 s; the replica keeps serving reads.",
            },
            f,
        )
    print("waiting for a human to approve the rotation")
    sys.exit(75)
with open(decision_path) as f:
    decision = json.load(f)
approved = decision["verdict"] == "approve"
print("rotating credentials" if approved else "rotation denied; nothing changed")
proof = {
    "schema_version": 1,
    "run_id": manifest["run_id"],
    "status": "succeeded" if approved else "failed",
    "summary": "credentials rotated" if approved else "the operator denied the rotation",
    "acceptance": [
        {
            "criterion": c,
            "status": "satisfied" if approved else "unsatisfied",
            "evidence": f"operator decision: {decision['verdict']}",
        }
        for c in manifest["work"]["acceptance"]
    ],
    "class": None if approved else "decision",
    "finished_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
}
with open(os.environ["HARN_PROOF"], "w") as f:
    json.dump(proof, f)
