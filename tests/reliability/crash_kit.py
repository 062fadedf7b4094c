"""The crash matrix's machinery: run the CLI in a forked child (a fault exits it for real), learn which fault
points a command reaches, and check what a kill may and may not leave behind.

A forked child calls `harn_tui.cli.main()` in-process with `HARN_FAULT=<point>:<n>` in its environment; the
fault point ends it with `os._exit(137)`, a real process death (no finally blocks, no flushes, leases released
by the OS), in a few milliseconds instead of an interpreter start. Cases run in two forked workers at once.
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import sys
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# imported before any fork, so that children do not pay for the imports the CLI makes lazily
import harn_tui.cli.dispatch
import harn_tui.core.queries
import harn_tui.core.runner
import harn_tui.core.supervisor
import harn_tui.core.transitions  # noqa: F401
from harn_tui.cli import main
from harn_tui.core import faults
from harn_tui.core.creation import init_tree
from harn_tui.core.layout import Layout
from harn_tui.core.leases import is_held
from harn_tui.core.projection import project_goal
from harn_tui.core.tree import Tree
from harn_tui.core.verify import verify_tree

KILLED = 137
UNRECORDED_NAMES = ("lease", "supervisor.lock", "finish-note")  # no records: a snapshot leaves them out
TORN = "torn final line (no trailing newline)"
WORKERS = 2


@dataclass
class Child:
    """How one forked CLI run ended: its exit code (-signal when signalled) and what it printed."""

    code: int
    stdout: str

    def document(self) -> Any:
        return json.loads(self.stdout) if self.stdout.strip() else None


def run_cli(
    root: Path,
    argv: list[str],
    *,
    fault: str | None = None,
    trace: Path | None = None,
    out: Path | None = None,
    user: int | None = None,
) -> Child:
    """`harn --root ROOT ARGV...` in a forked child; `fault` is a `HARN_FAULT` value, `trace` a trace file;
    `user` a uid (and gid) the child becomes first (root ignores file modes; `out` must be writable for it)."""
    out = out or root.parent / f".{root.name}.out"
    pid = fork()
    if pid == 0:  # pragma: no cover - the child always leaves by os._exit
        code = 70
        try:
            if user is not None:
                become(user)
            for key in [k for k in os.environ if k.startswith("HARN_")]:
                del os.environ[key]
            os.environ.update(HARN_ACTOR="tester", HARN_LEASE_TIMEOUT_S="10", HARN_ATTEMPT_TIMEOUT_S="60")
            if fault is not None:
                os.environ[faults.FAULT_ENV] = fault
            if trace is not None:
                os.environ[faults.TRACE_ENV] = str(trace)
            faults._hits.clear()
            sys.stdout = open(out, "w")  # noqa: SIM115 - closed by the exit
            sys.stderr = sys.stdout
            code = main(["--root", str(root), *argv])
        except BaseException:  # anything the child raises is reported by its exit code (70)
            traceback.print_exc()
        finally:
            sys.stdout.flush()
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return Child(os.waitstatus_to_exitcode(status), out.read_text() if out.exists() else "")


def become(uid: int) -> None:
    """Drop to `uid` (its gid the same number, no supplementary groups): a forked child only."""
    os.setgroups([])
    os.setgid(uid)
    os.setuid(uid)


def fork() -> int:
    """`os.fork()` with the parent's objects frozen out of the collector: a child's collection then does not
    walk (and copy on write) the whole parent heap. The child keeps them frozen; the parent unfreezes them."""
    gc.freeze()
    pid = os.fork()
    if pid != 0:
        gc.unfreeze()
    return pid


def reached_points(root: Path, argv: list[str]) -> tuple[Child, Counter[str]]:
    """Run `argv` uncut with `HARN_FAULT_TRACE`: how it ended and how often it reached each fault point."""
    trace = root.parent / f".{root.name}.trace"
    trace.unlink(missing_ok=True)
    child = run_cli(root, argv, trace=trace)
    names = trace.read_text().split() if trace.exists() else []
    return child, Counter(names)


def kill_points(reached: Counter[str]) -> list[str]:
    """Every `<point>:<n>` a run reached, in the order of FAULT_POINTS."""
    return [f"{point}:{n}" for point in faults.FAULT_POINTS for n in range(1, reached[point] + 1)]


def copy_tree(base: Path, target: Path) -> Path:
    """A fresh root holding a copy of `base/.harnery` (records name no root path, so a copy is the same tree)."""
    target.mkdir(parents=True)
    shutil.copytree(base / ".harnery", target / ".harnery", symlinks=True)
    return target


def snapshot(root: Path) -> dict[str, bytes]:
    """Every record and log under `.harnery/` with its bytes (leases, runs' finish notes, temporary files, cache
    and the templates' scratch directories excluded)."""
    found: dict[str, bytes] = {}
    for path in sorted((root / ".harnery").rglob("*")):
        if not path.is_file() or path.name in UNRECORDED_NAMES or {"cache", "scratch"} & set(path.parts):
            continue
        if path.name.startswith(".") and ".tmp-" in path.name:
            continue
        found[str(path.relative_to(root))] = path.read_bytes()
    return found


def check_acknowledged(before: dict[str, bytes], root: Path) -> None:
    """Nothing written before the command is lost or changed: records keep their bytes, logs only grow."""
    after = snapshot(root)
    for name, body in before.items():
        assert name in after, f"{name} disappeared"
        if name.endswith(".jsonl"):
            complete = body[: body.rfind(b"\n") + 1]
            assert after[name].startswith(complete), f"{name} lost or changed acknowledged lines"
        else:
            assert after[name] == body, f"{name} changed"


def check_after_kill(layout: Layout) -> None:
    """`verify` finds nothing but torn tails; no goal is corrupt; no applied plan is half materialized."""
    problems = [p for p in verify_tree(layout) if p["problem"] != TORN]
    assert problems == [], f"verify after the kill: {problems}"
    check_projection(layout)


def check_projection(layout: Layout) -> None:
    tree = Tree.load(layout)
    for goal_id in tree.goals:
        view = project_goal(tree, goal_id)
        assert view.state != "corrupt", f"goal {goal_id} projects corrupt: {view.reason}"
        applied = [plan for plan in view.plans if plan.status == "applied"]
        assert view.generation == len(applied), (goal_id, view.generation, [p.id for p in applied])
        for plan in applied:
            for work_id in plan.work_ids:
                events = log_events(layout.work(work_id) / "events.jsonl")
                assert (layout.work(work_id) / "intent.json").is_file() and events[:1] == ["work.created"], (
                    f"plan {plan.id} projects applied but {work_id} is not materialized"
                )


def log_lines(path: Path) -> list[dict[str, Any]]:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in data[: data.rfind(b"\n") + 1].splitlines()]


def log_events(path: Path) -> list[str]:
    return [line["event"] for line in log_lines(path)]


def check_invariants(layout: Layout) -> None:
    """After the repeat: verify is clean; every log is gapless with no torn tail; every work item was created
    exactly once; every run is finished once per start or resume, or lost (its lease free); every plan holds at
    most one applying outcome."""
    assert verify_tree(layout) == [], verify_tree(layout)
    for log in (layout.base).rglob("events.jsonl"):
        data = log.read_bytes()
        assert data.endswith(b"\n") or not data, f"{log} has a torn tail after the repeat"
        seqs = [line["seq"] for line in log_lines(log)]
        assert seqs == list(range(1, len(seqs) + 1)), f"{log}: seq {seqs}"
    for directory in sorted(layout.work_dir.iterdir()) if layout.work_dir.is_dir() else []:
        lines = log_lines(directory / "events.jsonl")
        assert [e["event"] for e in lines].count("work.created") == 1, f"{directory.name}: {lines}"
        assert lines[0]["event"] == "work.created"
        opened: Counter[str] = Counter()
        finished: Counter[str] = Counter()
        for event in lines:
            if event["event"] in ("attempt.started", "attempt.resumed"):
                opened[event["run_id"]] += 1
            elif event["event"] == "attempt.finished":
                finished[event["run_id"]] += 1
        for run_id in opened | finished:
            gap = opened[run_id] - finished[run_id]
            assert gap in (0, 1), f"{directory.name} run {run_id}: {opened[run_id]} starts, {finished[run_id]} ends"
            assert gap == 0 or not is_held(layout.run(run_id) / "lease"), f"run {run_id} still held"
    for plans in layout.supervisors.glob("*/plans"):
        for plan in plans.iterdir():
            events = log_events(plan / "events.jsonl")
            assert events.count("plan.applied") + events.count("plan.completed") <= 1, (plan, events)
            for name in set(events):
                assert events.count(name) == 1, f"{plan.name}: {name} appears {events.count(name)} times"


@dataclass
class Transition:
    """One command of the matrix: how to build the tree it acts on, its argv, and what "done exactly once"
    means after a kill and a repeat (`done` may inspect the repeat's Child)."""

    name: str
    build: Callable[[Layout, Path], dict[str, Any]]
    argv: Callable[[dict[str, Any]], list[str]]
    done: Callable[[Layout, dict[str, Any], Child], None]
    repeat_codes: Callable[[Layout, dict[str, Any]], set[int]] = lambda layout, ctx: {0}
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class MatrixResult:
    cases: list[str]
    failures: list[str]
    reached: Counter[str]


def prepare(transition: Transition, workdir: Path) -> tuple[Path, dict[str, Any], list[str], Counter[str]]:
    """Build the tree once under `workdir/base`, run the command uncut on a copy with `HARN_FAULT_TRACE` and
    check it completes: (base root, context, argv, how often it reached each fault point)."""
    base = workdir / "base"
    base.mkdir(parents=True)
    init_tree(base)
    ctx = transition.build(Layout(base), workdir)
    argv = [*transition.argv(ctx), "--json"]
    reference = copy_tree(base, workdir / "reference")
    child, reached = reached_points(reference, argv)
    assert child.code == 0, (child.code, child.stdout)
    check_invariants(Layout(reference))
    transition.done(Layout(reference), ctx, child)
    return base, ctx, argv, reached


def run_matrix(transition: Transition, workdir: Path, *, only: Iterable[str] | None = None) -> MatrixResult:
    """Build the tree once, learn the points the command reaches, then for each `<point>:<n>`: kill a copy
    there, check what the kill left, repeat the command, check it completed exactly once."""
    base, ctx, argv, reached = prepare(transition, workdir)
    cases = kill_points(reached) if only is None else list(only)
    failures = _run_cases(transition, base, ctx, argv, cases, workdir / "cases")
    return MatrixResult(cases, failures, reached)


def _run_cases(
    transition: Transition, base: Path, ctx: dict[str, Any], argv: list[str], cases: list[str], directory: Path
) -> list[str]:
    directory.mkdir()
    before = snapshot(base)
    pids = []
    for worker in range(WORKERS):
        share = cases[worker::WORKERS]
        pid = fork()
        if pid == 0:  # pragma: no cover - a worker always leaves by os._exit
            try:
                results = [_one_case(transition, base, ctx, argv, case, directory, before) for case in share]
                (directory / f"worker-{worker}.json").write_text(json.dumps(results))
            finally:
                os._exit(0)
        pids.append(pid)
    for pid in pids:
        os.waitpid(pid, 0)
    failures: list[str] = []
    for worker in range(WORKERS):
        path = directory / f"worker-{worker}.json"
        if not path.exists():
            failures.append(f"worker {worker} died without a report")
            continue
        failures.extend(message for message in json.loads(path.read_text()) if message)
    return failures


def _one_case(
    transition: Transition,
    base: Path,
    ctx: dict[str, Any],
    argv: list[str],
    case: str,
    directory: Path,
    before: dict[str, bytes],
) -> str:
    """'' when the case holds, else a message naming the case and what broke."""
    root = directory / case.replace(":", "-")
    try:
        copy_tree(base, root)
        layout = Layout(root)
        killed = run_cli(root, argv, fault=case)
        assert killed.code == KILLED, f"the fault did not kill: exit {killed.code} {killed.stdout[-2000:]}"
        check_acknowledged(before, root)
        check_after_kill(layout)
        expected = transition.repeat_codes(layout, ctx)
        repeat = run_cli(root, argv)
        assert repeat.code in expected, f"repeat exit {repeat.code}, expected {expected}: {repeat.stdout[-2000:]}"
        check_acknowledged(before, root)
        check_invariants(layout)
        transition.done(layout, ctx, repeat)
    except AssertionError as error:
        return f"{transition.name} killed at {case}: {error}"
    except Exception:  # a crash of the checks is a failure of the case, reported whole
        return f"{transition.name} killed at {case}: {traceback.format_exc()[-3000:]}"
    shutil.rmtree(root, ignore_errors=True)
    return ""
