"""The read verbs and transitions the read-only tests run, and a console driven under Pilot; runnable as
`python -m tests.reliability.read_only_kit reads|writes|console ROOT` by another user (it prints JSON)."""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from harn_tui.core.layout import Layout
from tests.reliability.crash_kit import run_cli
from tests.tui import scenarios as s

NOBODY = 65534
APPROVAL = "apr-run-migrate-1-1"
READS = [
    ["supervisor", "list"],
    ["supervisor", "show", s.PLAN_GOAL],
    ["supervisor", "show", s.CORRUPT_GOAL],
    ["supervisor", "show", s.PLAN_GOAL, "--at", "2099-01-01T00:00:00Z"],
    ["supervisor", "history", s.PLAN_GOAL],
    ["supervisor", "status"],
    ["supervisor", "plan", "list", s.PLAN_GOAL],
    ["supervisor", "plan", "show", s.PLAN_GOAL, s.PENDING_PLAN],
    ["supervisor", "plan", "diff", s.PLAN_GOAL, s.PENDING_PLAN],
    ["work", "list"],
    ["work", "show", "docs"],
    ["work", "diff", "greet"],
    ["approval", "list"],
    ["approval", "show", APPROVAL],
    ["pending"],
    ["verify"],
    ["schema"],
    ["fault-points"],
    ["template", "list"],
]
WRITES = [
    ["supervisor", "plan", "approve", s.PLAN_GOAL, s.PENDING_PLAN],
    ["supervisor", "plan", "reject", s.PLAN_GOAL, s.PENDING_PLAN, "--reason", "no"],
    ["work", "accept", "docs", "--dispose", "f1=fixed", "--dispose", "f2=fixed"],
    ["approval", "deny", APPROVAL, "--reason", "no"],
    ["supervisor", "tick", s.PLAN_GOAL],
    ["supervisor", "run", s.REVIEW_GOAL],
]


def _run_all(root: Path, commands: list[list[str]]) -> dict[str, tuple[int, str]]:
    """Each command with --json in a forked child: {command line: (exit code, stdout)}."""
    with tempfile.TemporaryDirectory(prefix="harn-read-only-out-") as scratch:
        out = Path(scratch) / "out"
        found = {}
        for argv in commands:
            child = run_cli(root, [*argv, "--json"], out=out)
            if "Traceback" in child.stdout:
                raise AssertionError(f"{argv}: {child.stdout}")
            found[" ".join(argv)] = (child.code, child.stdout)
    return found


def run_reads(root: Path) -> dict[str, tuple[int, str]]:
    return _run_all(root, READS)


def run_writes(root: Path) -> dict[str, tuple[int, str]]:
    return _run_all(root, WRITES)


async def drive_console(root: Path) -> dict[str, Any]:
    """The console with the watcher, presence and the embedded supervisor on: what it shows once presence is
    off, the reject form's first line, the notices after submitting it."""
    from textual.widgets import Input, Static

    from harn_tui.tui.app import HarnConsole
    from harn_tui.tui.forms.reason import ReasonForm
    from harn_tui.tui.widgets.goals import GoalsPanel
    from harn_tui.tui.widgets.header import HeaderBar
    from tests.tui.conftest import notices, open_form, settle, wait_until

    app = HarnConsole(Layout(root), actor="tester", watch=True, presence=True, supervisor=True, root_label="ROOT")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.presence_off is not None, timeout=10)
        form = await open_form(pilot, app, "x", ReasonForm)
        banner = str(form.query_one("#writes-refused", Static).content)
        form.query_one("#reason", Input).value = "not this way"
        await pilot.press("enter")
        await settle(pilot, app)
        await wait_until(pilot, lambda: any("|refused: reject plan" in n for n in notices(app)), timeout=10)
        return {
            "goals": len(app.main.query_one(GoalsPanel).rows),
            "presence_off": app.presence_off,
            "header": str(app.main.query_one(HeaderBar).content),
            "banner": banner,
            "notices": notices(app),
            "running": app.is_running,
        }


def main(argv: list[str]) -> None:
    what, root = argv[0], Path(argv[1])
    if what == "console":
        document: Any = asyncio.run(drive_console(root))
    else:
        document = run_reads(root) if what == "reads" else run_writes(root)
    sys.stdout.write(json.dumps(document))


if __name__ == "__main__":
    main(sys.argv[1:])
