"""The event histories of synthetic work items: ten events each, ending in a chosen state.

A step is ("created",), ("start", trigger), ("finish", status, class), ("park",), ("resume",),
("reopen", number_of_findings) or ("accept",). Every pattern is exactly ten events long.
"""

from __future__ import annotations

Step = tuple[object, ...]

SUCCEEDED: tuple[Step, ...] = (
    ("created",),
    ("start", "initial"),
    ("finish", "failed", "environment"),
    ("start", "retry"),
    ("finish", "failed", None),
    ("start", "retry"),
    ("finish", "failed", "upstream"),
    ("start", "retry"),
    ("finish", "passed", None),
    ("accept",),
)

IN_REVIEW: tuple[Step, ...] = (
    ("created",),
    ("start", "initial"),
    ("finish", "passed", None),
    ("reopen", 2),
    ("start", "reopen"),
    ("finish", "failed", None),
    ("start", "retry"),
    ("finish", "failed", "environment"),
    ("start", "retry"),
    ("finish", "passed", None),
)

BLOCKED: tuple[Step, ...] = (
    ("created",),
    ("start", "initial"),
    ("finish", "failed", None),
    ("reopen", 1),
    ("start", "reopen"),
    ("finish", "failed", "upstream"),
    ("start", "retry"),
    ("finish", "failed", None),
    ("start", "retry"),
    ("finish", "failed", None),
)

PARKED: tuple[Step, ...] = (
    ("created",),
    ("start", "initial"),
    ("finish", "failed", None),
    ("start", "retry"),
    ("finish", "passed", None),
    ("reopen", 1),
    ("start", "reopen"),
    ("park",),
    ("resume",),
    ("park",),
)

READY: tuple[Step, ...] = (
    ("created",),
    ("start", "initial"),
    ("finish", "passed", None),
    ("reopen", 1),
    ("start", "reopen"),
    ("finish", "passed", None),
    ("reopen", 2),
    ("start", "reopen"),
    ("finish", "passed", None),
    ("reopen", 0),
)

# What the goal's frontier item of the active generation is, and what its latest (fifth) plan is, by kind.
GOAL_KINDS: tuple[tuple[str, tuple[Step, ...], str], ...] = (
    ("review", IN_REVIEW, "rejected"),
    ("approval", PARKED, "failed"),
    ("plan_proposed", BLOCKED, "proposed"),
    ("plan_attention", BLOCKED, "attention"),
    ("ready", READY, "retry_requested"),
    ("succeeded", SUCCEEDED, "rejected"),
)
