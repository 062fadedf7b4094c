"""The race soak: many processes race transitions against the same goals; afterwards every invariant must hold.

Long run (documented in docs/guide/reliability.md), from the repository root:

    python -m tests.reliability.soak --seconds 300 --workers 6

Options: `--consoles 2`, `--serves 1` (more serve loops race for each goal's supervisor.lock), `--goals 4`
(soak goals at the start), `--spawn-every 15` (every N seconds a fresh root, raced as standalone work until a
goal adopts it N/2 seconds later, and every other time a standalone item: budgets running out never starve
the race), `--seed`, `--dir DIR` (kept; default a temporary directory, removed when the run is clean).
Exit 0 when every invariant held, 1 otherwise; the last line is the summary (`race soak: N transitions raced
(...); ... 0 violations`). The CI version is tests/reliability/test_race_soak.py (about 20 s of racing).

What runs, all at once against one tree (built by soak_tree: the demo's goals, each mid-story, plus soak goals
whose templates pass, fail or park at random):

- the driver itself, adding roots, goals that adopt them, and standalone work;
- N worker processes (soak_worker) issuing random legal and illegal transitions through the CLI: plan
  approve/reject/retry with current and stale addresses, work run/retry, reopen with findings, accept with
  and without dispositions, cancel, approval approve/deny, bad input and unknown addresses;
- one `harn supervisor serve` (a real subprocess) planning, reviewing and running attempts;
- two headless consoles (soak_console): the real HarnConsole with its live watcher, driven by key presses
  through its forms and its own dispatch path. When everything else has stopped, each checks that its live
  model (kept by the watcher alone) equals a fresh load of the tree.

Every worker and console logs each command and its outcome (exit code and JSON). Then soak_check verifies from
the journal alone: gapless seq in every log, one outcome per plan, no accept with open findings, budgets never
exceeded, every acknowledged (exit 0) transition present exactly once and nothing written by a refused one, no
temporary files left, `harn verify` clean. See soak_check for the full list.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from tests.reliability.soak_check import Report, check_soak
from tests.reliability.soak_tree import add_soak_root, add_standalone, adopt, build_soak_tree

REPO = Path(__file__).resolve().parents[2]
STOP_WAIT_S = 120.0


@dataclass
class SoakResult:
    directory: Path
    report: Report
    seconds: float
    processes: dict[str, int] = field(default_factory=dict)  # name -> exit code
    outputs: dict[str, Any] = field(default_factory=dict)  # name -> its summary line (JSON) or stderr tail
    goals_added: int = 0

    @property
    def ok(self) -> bool:
        return not self.report.violations and not self.process_problems

    @property
    def process_problems(self) -> list[str]:
        return [f"{name} exited {code}: {self.outputs.get(name)}" for name, code in self.processes.items() if code]


def child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARN_")}
    env.update(HARN_ATTEMPT_TIMEOUT_S="60", PYTHONPATH=str(REPO) + os.pathsep + env.get("PYTHONPATH", ""))
    env.pop("TEXTUAL_THEME", None)
    return env


def _start(args: list[str], out: Path) -> tuple[subprocess.Popen[bytes], IO[bytes]]:
    handle = out.open("wb")
    process = subprocess.Popen([sys.executable, *args], cwd=REPO, env=child_env(), stdout=handle,
                               stderr=subprocess.STDOUT)
    return process, handle


def _last_json(path: Path) -> Any:
    lines = path.read_text(errors="replace").strip().splitlines()
    for line in reversed(lines):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return "\n".join(lines[-15:])


def run_soak(*, seconds: float, workers: int = 6, consoles: int = 2, goals: int = 4, spawn_every: float = 15.0,
             seed: int = 0, directory: Path | None = None, serves: int = 1) -> SoakResult:
    """Build the tree, race for `seconds`, stop everything cleanly, check every invariant."""
    base = directory or Path(tempfile.mkdtemp(prefix="harn-soak-"))
    root, logs = base / "tree", base / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    layout, assets = build_soak_tree(root, goals)
    started = time.monotonic()
    children: dict[str, tuple[subprocess.Popen[bytes], IO[bytes]]] = {}
    for number in range(1, serves + 1):
        name = "serve" if number == 1 else f"serve-{number}"
        children[name] = _start(["-m", "harn_tui", "--root", str(root), "supervisor", "serve", "--wake-interval",
                                 "1"], logs / f"{name}.out")
    for number in range(1, consoles + 1):
        name = f"console-{number}"
        children[name] = _start(["-m", "tests.reliability.soak_console", "--root", str(root), "--actor", name,
                                 "--seconds", str(seconds), "--seed", str(seed * 100 + number), "--log",
                                 str(logs / f"{name}.log.jsonl"), "--quiet-file", str(logs / "quiet")],
                                logs / f"{name}.out")
    for number in range(1, workers + 1):
        name = f"w{number}"
        children[name] = _start(["-m", "tests.reliability.soak_worker", "--root", str(root), "--actor", name,
                                 "--seconds", str(seconds), "--seed", str(seed * 100 + 50 + number), "--log",
                                 str(logs / f"{name}.log.jsonl")], logs / f"{name}.out")
    added = 0
    deadline = started + seconds
    next_goal = started + spawn_every
    adoptions: list[tuple[float, int]] = []
    while time.monotonic() < deadline:
        now = time.monotonic()
        if now >= next_goal:
            add_soak_root(layout, assets, goals + added)
            adoptions.append((now + spawn_every / 2, goals + added))
            if added % 2 == 0:
                add_standalone(layout, assets, 2 + added // 2)
            added += 1
            next_goal += spawn_every
        while adoptions and adoptions[0][0] <= now:
            adopt(layout, assets, adoptions.pop(0)[1])
        time.sleep(min(0.5, max(0.0, deadline - time.monotonic())))
    result = SoakResult(base, Report(), seconds, goals_added=added)
    workers_first = [name for name in children if name.startswith("w")]
    for name in workers_first:
        result.processes[name] = _wait(children[name][0], STOP_WAIT_S)
    loops = [name for name in children if name.startswith("serve")]
    for name in loops:
        children[name][0].send_signal(signal.SIGTERM)
    for name in loops:
        result.processes[name] = _wait(children[name][0], STOP_WAIT_S)
    (logs / "quiet").touch()  # the consoles now check their live model against a fresh load
    for name in children:
        if name.startswith("console"):
            result.processes[name] = _wait(children[name][0], STOP_WAIT_S)
    for _, handle in children.values():
        handle.close()
    for name in children:
        result.outputs[name] = _last_json(logs / f"{name}.out")
    result.report = check_soak(root, logs)
    return result


def _wait(process: subprocess.Popen[bytes], timeout: float) -> int:
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return -9


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Race soak: random legal and illegal transitions from many "
                                                 "processes, then every invariant checked from the journal.")
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--consoles", type=int, default=2)
    parser.add_argument("--serves", type=int, default=1, help="serve loops (more than one race for each goal's "
                                                                "supervisor.lock)")
    parser.add_argument("--goals", type=int, default=4)
    parser.add_argument("--spawn-every", type=float, default=15.0)
    parser.add_argument("--seed", type=int, default=int(time.time()) % 10_000)
    parser.add_argument("--dir", type=Path, default=None)
    args = parser.parse_args(argv)
    result = run_soak(seconds=args.seconds, workers=args.workers, consoles=args.consoles, goals=args.goals,
                      spawn_every=args.spawn_every, seed=args.seed, directory=args.dir, serves=args.serves)
    for name, output in result.outputs.items():
        print(f"{name} (exit {result.processes.get(name)}): {json.dumps(output)[:300]}")
    for problem in result.process_problems + result.report.violations:
        print(f"VIOLATION {problem}")
    print(f"seed {args.seed}; tree and logs in {result.directory}")
    print(result.report.summary())
    if result.ok and args.dir is None:
        shutil.rmtree(result.directory, ignore_errors=True)
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
