"""One race-soak worker process: random legal and illegal transitions through the real CLI, each one logged.

`python -m tests.reliability.soak_worker --root DIR --actor w1 --seconds 20 --seed 1 --log FILE`. Each step
re-reads one goal (`supervisor show`, and now and then `approval list`) and issues either a transition the fresh
view says is legal (which the race may make stale by the time it runs) or a random one: stale or foreign plan
ids, accept without dispositions or with unknown finding ids, a decided approval decided the other way, run or
retry of work that is not ready, malformed ids and over-long reasons. Most commands run the CLI's `main()` in
this process (its parse, dispatch, core and JSON output); one in `SUBPROCESS_SHARE` is a real `python -m
harn_tui` child. Stops at the first command boundary after `--seconds`.
"""

from __future__ import annotations

import contextlib
import io
import json
import random
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harn_tui.cli import main as cli_main
from tests.reliability.soak_log import CommandLog, participant_parser

SUBPROCESS_SHARE = 0.1
AIMED_SHARE = 0.6
STANDALONE_SHARE = 0.2
REASONS = ("too risky", "try a smaller step", "not now")
FINDINGS = ("the error path is untested", "the log line leaks a token", "docs are missing")
JUNK_IDS = ("../escape", "a/b", "-dash-first")


@dataclass
class Known:
    """Addresses this worker has seen so far (old ones stay: they become the stale addresses)."""

    goals: list[str] = field(default_factory=list)
    plans: dict[str, str] = field(default_factory=dict)  # plan id -> goal id
    work: list[str] = field(default_factory=list)
    approvals: dict[str, str] = field(default_factory=dict)  # approval id -> work id
    pending_approvals: dict[str, str] = field(default_factory=dict)  # work id -> approval id
    standalone: list[dict[str, Any]] = field(default_factory=list)  # `work list` items that belong to no goal


class Worker:
    def __init__(self, root: Path, actor: str, rng: random.Random, log: CommandLog) -> None:
        self.root, self.actor, self.rng, self.log = root, actor, rng, log
        self.known = Known()
        self.reads = 0

    # ----- calling the CLI

    def cli(self, argv: list[str], via: str) -> tuple[int, Any]:
        full = ["--root", str(self.root), "--actor", self.actor, *argv, "--json"]
        if via == "subprocess":
            done = subprocess.run(
                [sys.executable, "-m", "harn_tui", *full], capture_output=True, text=True, timeout=300
            )
            code, out, err = done.returncode, done.stdout, done.stderr
        else:
            buffer = io.StringIO()
            try:
                with contextlib.redirect_stdout(buffer):
                    code = cli_main(full)
                err = ""
            except Exception:  # a crash is what the soak looks for: logged as exit 1, a violation
                code, err = 1, traceback.format_exc()
            out = buffer.getvalue()
        try:
            doc = json.loads(out) if out.strip() else {"stderr": err[-4000:]}
        except ValueError:
            doc = {"stdout": out[-4000:], "stderr": err[-4000:]}
        return code, doc

    def read(self, *argv: str) -> Any:
        self.reads += 1
        code, doc = self.cli(list(argv), "cli")
        return doc if code == 0 else None

    def issue(self, verb: str, target: str, argv: list[str], goal: str | None = None) -> None:
        via = "subprocess" if self.rng.random() < SUBPROCESS_SHARE else "cli"
        token = self.log.begin(via=via, verb=verb, target=target, goal=goal, argv=argv)
        t0 = time.monotonic()
        code, doc = self.cli(argv, via)
        self.log.write(
            via=via,
            verb=verb,
            target=target,
            goal=goal,
            argv=argv,
            exit=code,
            doc=doc,
            t0=t0,
            t1=time.monotonic(),
            token=token,
        )

    # ----- what there is

    def refresh_goals(self) -> None:
        listed = self.read("supervisor", "list")
        if listed is not None:
            self.known.goals = [g["id"] for g in listed["goals"]]

    def refresh_approvals(self) -> None:
        listed = self.read("approval", "list")
        if listed is None:
            return
        self.known.pending_approvals = {}
        for approval in listed["approvals"]:
            request = approval.get("request") or {}
            work_id = request.get("work_id")
            if work_id:
                self.known.approvals[approval["id"]] = work_id
                if approval["status"] == "pending":
                    self.known.pending_approvals[work_id] = approval["id"]

    def refresh_work(self) -> None:
        listed = self.read("work", "list")
        if listed is None:
            return
        for item in listed["work"]:
            if item["id"] not in self.known.work:
                self.known.work.append(item["id"])
        self.known.standalone = [item for item in listed["work"] if item.get("goal_id") is None]

    def show(self, goal_id: str) -> Any:
        view = self.read("supervisor", "show", goal_id)
        if view is None:
            return None
        for plan in view["plans"]:
            self.known.plans[plan["id"]] = goal_id
        for item in view["work"]:
            if item["id"] not in self.known.work:
                self.known.work.append(item["id"])
        return view

    # ----- one step

    def step(self) -> None:
        if not self.known.goals or self.rng.random() < 0.05:
            self.refresh_goals()
        if self.rng.random() < 0.25:
            self.refresh_approvals()
        if self.rng.random() < 0.15:
            self.refresh_work()
        if not self.known.goals:
            return
        if self.known.standalone and self.rng.random() < STANDALONE_SHARE:
            item = self.rng.choice(self.known.standalone)
            if self.rng.random() < AIMED_SHARE and self.aimed_at(self.item_options(item, standalone=True)):
                return
        else:
            view = self.show(self.rng.choice(self.known.goals))
            if view is not None and self.rng.random() < AIMED_SHARE and self.aimed(view):
                return
        self.random_transition()

    def aimed(self, view: dict[str, Any]) -> bool:
        """A transition the view just read says is legal; False when it offers none."""
        goal_id, rng = view["id"], self.rng
        options: list[tuple[str, str, list[str], str | None]] = []
        if view["pending_plan_id"]:
            plan = view["pending_plan_id"]
            options.append(("plan approve", plan, ["supervisor", "plan", "approve", goal_id, plan], goal_id))
            options.append(
                (
                    "plan reject",
                    plan,
                    ["supervisor", "plan", "reject", goal_id, plan, "--reason", rng.choice(REASONS)],
                    goal_id,
                )
            )
        if view["attention_plan_id"]:
            plan = view["attention_plan_id"]
            options.append(
                (
                    "plan retry",
                    plan,
                    ["supervisor", "plan", "retry", goal_id, plan, "--reason", rng.choice(REASONS)],
                    goal_id,
                )
            )
        for item in view["work"]:
            if item["active"]:
                options += self.item_options(item, standalone=False)
        return self.aimed_at(options)

    def aimed_at(self, options: list[tuple[str, str, list[str], str | None]]) -> bool:
        if not options:
            return False
        verb, target, argv, goal = self.rng.choice(options)
        self.issue(verb, target, argv, goal)
        return True

    def item_options(self, item: dict[str, Any], *, standalone: bool) -> list[tuple[str, str, list[str], str | None]]:
        """What the item's state allows (plus, in review, an accept that must be refused): accept or reopen in
        review, retry blocked, run ready (or, standalone, resume a decided park), decide a pending approval."""
        work_id, state, rng = item["id"], item["state"], self.rng
        options: list[tuple[str, str, list[str], str | None]] = []
        if state == "in_review":
            options.append(("work accept", work_id, ["work", "accept", work_id, *self.dispositions(item)], None))
            options.append(("work reopen", work_id, ["work", "reopen", work_id, *self.findings()], None))
            # and the accept that must not slip through: open findings left undisposed, or a made-up one
            undisposed = self.dispositions(item)[2:] if item["open_findings"] else ["--dispose", "f1=fixed"]
            options.append(("work accept", work_id, ["work", "accept", work_id, *undisposed], None))
        elif state == "blocked" and item["next_action"] == "retry":
            options.append(("work retry", work_id, ["work", "retry", work_id], None))
        elif state == "ready" or (standalone and item["next_action"] == "resume"):
            options.append(("work run", work_id, ["work", "run", work_id], None))
        elif state == "awaiting_approval" and work_id in self.known.pending_approvals:
            approval = self.known.pending_approvals[work_id]
            verb = rng.choice(("approve", "deny"))
            extra = ["--reason", rng.choice(REASONS)] if verb == "deny" and rng.random() < 0.5 else []
            options.append((f"approval {verb}", approval, ["approval", verb, approval, *extra], None))
        return options

    def dispositions(self, item: dict[str, Any]) -> list[str]:
        """Every open finding disposed (now and then one deferred with a reason)."""
        argv: list[str] = []
        for finding in item["open_findings"]:
            if self.rng.random() < 0.3:
                argv += ["--dispose", f"{finding['id']}=deferred:{self.rng.choice(REASONS)}"]
            else:
                argv += ["--dispose", f"{finding['id']}=fixed"]
        return argv

    def findings(self) -> list[str]:
        argv: list[str] = []
        for statement in self.rng.sample(FINDINGS, self.rng.randint(0, 2)):
            argv += ["--finding", statement]
        return argv

    def random_transition(self) -> None:
        known, rng = self.known, self.rng
        roll = rng.random()
        if roll < 0.3 and known.plans:
            plan = rng.choice(sorted(known.plans))
            goal = known.plans[plan] if rng.random() < 0.9 else rng.choice(known.goals)
            verb = rng.choice(("approve", "reject", "retry"))
            extra = [] if verb == "approve" else ["--reason", rng.choice(REASONS)]
            self.issue(f"plan {verb}", plan, ["supervisor", "plan", verb, goal, plan, *extra], goal)
        elif roll < 0.7 and known.work:
            self.random_work(rng.choice(known.work))
        elif roll < 0.9 and known.approvals:
            approval = rng.choice(sorted(known.approvals))
            verb = rng.choice(("approve", "deny"))
            extra = ["--reason", rng.choice(REASONS)] if verb == "deny" and rng.random() < 0.5 else []
            self.issue(f"approval {verb}", approval, ["approval", verb, approval, *extra])
        else:
            self.junk()

    def random_work(self, work_id: str) -> None:
        rng = self.rng
        verb = rng.choices(("accept", "reopen", "cancel", "run", "retry"), weights=(4, 3, 1, 2, 2))[0]
        argv = ["work", verb, work_id]
        if verb == "accept":
            argv += rng.choice(
                (
                    [],
                    ["--dispose", "f1=fixed"],
                    ["--dispose", "f9=fixed"],
                    ["--dispose", "f1=fixed", "--dispose", "f2=deferred:later"],
                )
            )
        elif verb == "reopen":
            argv += self.findings()
        elif verb == "cancel" and rng.random() < 0.5:
            argv += ["--reason", rng.choice(REASONS)]
        self.issue(f"work {verb}", work_id, argv)

    def junk(self) -> None:
        """Bad input (2) and unknown addresses (4): refused before any lease is taken."""
        rng, goal = self.rng, self.rng.choice(self.known.goals)
        choice = rng.randrange(4)
        if choice == 0:
            bad = rng.choice(JUNK_IDS)
            self.issue("plan approve", bad, ["supervisor", "plan", "approve", goal, bad], goal)
        elif choice == 1:
            self.issue(
                "plan approve",
                "plan-9999-deadbeef",
                ["supervisor", "plan", "approve", goal, "plan-9999-deadbeef"],
                goal,
            )
        elif choice == 2 and self.known.work:
            work_id = rng.choice(self.known.work)
            self.issue("work reopen", work_id, ["work", "reopen", work_id, "--finding", "x" * 1001])
        else:
            self.issue("work accept", "work-nope", ["work", "accept", "work-nope", "--dispose", "f1=maybe"])


def main(argv: list[str] | None = None) -> int:
    parser = participant_parser(__doc__)
    args = parser.parse_args(argv)
    log = CommandLog(args.log, args.actor)
    worker = Worker(args.root, args.actor, random.Random(args.seed), log)
    deadline = time.monotonic() + args.seconds
    try:
        while time.monotonic() < deadline:
            worker.step()
    finally:
        log.close()
    print(json.dumps({"actor": args.actor, "commands": log.count, "reads": worker.reads}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
