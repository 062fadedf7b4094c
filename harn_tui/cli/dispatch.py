"""Route a parsed command line to its handler; every handler returns a document and its exit code."""

from __future__ import annotations

import argparse
import gc
from collections.abc import Callable

from harn_tui.cli import emit
from harn_tui.cli import handlers as h
from harn_tui.cli.context import Context
from harn_tui.cli.precheck import ACTING, precheck
from harn_tui.cli.text import render_text

Handler = Callable[[Context], "h.Result"]

ROUTES: dict[tuple[str, ...], Handler] = {
    ("init",): h.init,
    ("schema",): h.schema,
    ("pending",): h.pending,
    ("verify",): h.verify,
    ("fault-points",): h.fault_points,
    ("tui",): h.tui,
    ("demo",): h.demo,
    ("examples",): h.examples,
    ("web",): h.web,
    ("supervisor", "create"): h.supervisor_create,
    ("supervisor", "list"): h.supervisor_list,
    ("supervisor", "show"): h.supervisor_show,
    ("supervisor", "history"): h.supervisor_history,
    ("supervisor", "tick"): h.supervisor_tick,
    ("supervisor", "run"): h.supervisor_run,
    ("supervisor", "serve"): h.supervisor_serve,
    ("supervisor", "status"): h.supervisor_status,
    ("supervisor", "plan", "list"): h.plan_list,
    ("supervisor", "plan", "show"): h.plan_show,
    ("supervisor", "plan", "diff"): h.plan_diff,
    ("supervisor", "plan", "approve"): h.plan_approve,
    ("supervisor", "plan", "reject"): h.plan_reject,
    ("supervisor", "plan", "retry"): h.plan_retry,
    ("supervisor", "plan", "reopen"): h.plan_reopen,
    ("work", "create"): h.work_create,
    ("work", "list"): h.work_list,
    ("work", "show"): h.work_show,
    ("work", "run"): h.work_run,
    ("work", "retry"): h.work_retry,
    ("work", "accept"): h.work_accept,
    ("work", "reopen"): h.work_reopen,
    ("work", "cancel"): h.work_cancel,
    ("work", "diff"): h.work_diff,
    ("template", "list"): h.template_list,
    ("template", "new"): h.template_new,
    ("approval", "list"): h.approval_list,
    ("approval", "show"): h.approval_show,
    ("approval", "approve"): h.approval_approve,
    ("approval", "deny"): h.approval_deny,
}


# One-shot decisions: a process that takes one lease, reads one goal's or item's records, appends and ends (not
# the verbs that create or run work).
DECISIONS = ACTING - {("work", "create"), ("work", "run"), ("work", "retry")}


def route_of(args: argparse.Namespace) -> tuple[str, ...]:
    parts = [args.group]
    for name in ("verb", "plan_verb"):
        value = getattr(args, name, None)
        if value:
            parts.append(value)
    return tuple(parts)


def dispatch(args: argparse.Namespace, *, owns_process: bool = False) -> int:
    """Run the command line's verb and print its document. `owns_process`: this is the `harn` process itself,
    which ends after the verb, not a caller's in-process use."""
    route = route_of(args)
    if owns_process and route in DECISIONS:
        import_permanently()
    precheck(route, args)
    context = Context(args)
    result = ROUTES[route](context)
    if result.document is not None:
        if context.json:
            emit(result.document)
        else:
            text = render_text(route, result.document)
            if text:
                print(text)
    return result.exit_code


def import_permanently() -> None:
    """Import the transitions (pydantic, the record models, the core) with the cycle collector off, then move
    every object so far to the permanent generation (`gc.freeze`): module-level objects live as long as the
    process, and neither the collections that follow nor the one at exit walk them again. Collection stays on
    for what the verb itself makes."""
    gc.disable()
    try:
        import harn_tui.core.transitions  # noqa: F401
    finally:
        gc.freeze()
        gc.enable()


__all__ = ["ROUTES", "dispatch"]
