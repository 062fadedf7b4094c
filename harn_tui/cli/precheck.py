"""Bad input is exit 2 before anything is looked up (SPEC 6 check order), even the tree itself: the pure argument
checks of a verb (IDs, actor, reasons, findings, dispositions) run before its root is searched for."""

from __future__ import annotations

import argparse

from harn_tui.cli.context import resolve_actor
from harn_tui.core.ids import check_id

ACTING = {
    ("supervisor", "plan", "approve"),
    ("supervisor", "plan", "reject"),
    ("supervisor", "plan", "retry"),
    ("supervisor", "plan", "reopen"),
    ("work", "create"),
    ("work", "run"),
    ("work", "retry"),
    ("work", "accept"),
    ("work", "reopen"),
    ("work", "cancel"),
    ("approval", "approve"),
    ("approval", "deny"),
}
REASON_REQUIRED = {("supervisor", "plan", "reject"), ("supervisor", "plan", "retry"), ("supervisor", "plan", "reopen")}
ID_KIND = {"work": "work id", "approval": "approval id", "supervisor": "goal id"}


def precheck(route: tuple[str, ...], args: argparse.Namespace) -> None:
    """Raise UsageError for what the core would refuse as bad input anyway, before `--root` is resolved."""
    for name, kind in (("goal", "goal id"), ("plan", "plan id"), ("root_work", "root work id")):
        value = getattr(args, name, None)
        if isinstance(value, str):
            check_id(value, kind)
    at = getattr(args, "at", None)
    if isinstance(at, str):
        from harn_tui.core.history.reading import parse_when

        parse_when(at)
    value = getattr(args, "id", None)
    if isinstance(value, str):
        check_id(value, ID_KIND.get(route[0], "id"))
    run = getattr(args, "run", None)
    if isinstance(run, str):
        check_id(run, "run id")
    for member in ("worker", "judge"):
        value = getattr(args, member, None)
        if isinstance(value, str):
            check_id(value, f"--{member}")
    if hasattr(args, "executor"):
        from harn_tui.core.executors import check_executor_choice

        check_executor_choice(args.executor, args.ray_address)
    for goal_id in getattr(args, "goals", None) or []:
        check_id(goal_id, "goal id")
    for value in getattr(args, "depends_on", None) or []:
        for part in value.split(","):
            if part.strip():
                check_id(part.strip(), "dependency id")
    if route not in ACTING:
        return
    from harn_tui.core.transitions.arguments import (
        check_dispositions,
        clean_findings,
        clean_reason,
        parse_disposition,
    )

    resolve_actor(args.actor)
    if hasattr(args, "reason"):
        clean_reason(args.reason, required=route in REASON_REQUIRED)
    clean_findings(list(getattr(args, "finding", None) or []))
    check_dispositions([parse_disposition(text) for text in getattr(args, "dispose", None) or []])
