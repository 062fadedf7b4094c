"""The race soak: many processes race transitions against the same goals; afterwards every invariant must hold.

Long run (documented in docs/guide/reliability.md), from the repository root:

    python -m tests.reliability.soak --seconds 300 --workers 6

Options: `--consoles 2`, `--serves 1` (more serve loops race for each goal's supervisor.lock), `--goals 4`
(soak goals at the start), `--spawn-every 15` (every N seconds a fresh root, raced as standalone work until a
goal adopts it N/2 seconds later, and every other time a standalone item: budgets running out never starve
the race), `--seed`, `--dir DIR` (kept; default a temporary directory, removed when the run is clean).
Exit 0 when every invariant held, 1 otherwise; the summary line reads `race soak: N transitions raced (...); ...
0 violations`. The CI version is tests/reliability/test_race_soak.py (about 20 s of racing).

The chaos soak, `--chaos` (root: CI runs it as its own step of .ci/run, 5 minutes, `--workers 3 --serves 2
--consoles 1`): the tree lives on a tmpfs mounted for the run; every `--full-every` seconds (15) the disk is
full for 2 to 4 s, and every `--kill-every` seconds (7, jittered) a random participant (a worker, a serve loop
or the console) is SIGKILLed and started again with the time left. Participants log each command before it runs
and again with its outcome, so a command cut by a kill is known; the checker then allows it (and an exit-6
command) at most one effect, found in the journal once or not at all, and every acknowledged one exactly once.
Runs lost with a killed runner may stay unrecorded (they project as lost); temporary files a killed writer left
(the next writer there removes them) and the work directories an approve cut short left for a plan never applied
(empty, or an intent without `work.created`: what the crash matrix leaves) are allowed; everything else is
checked as in the race soak. The last
line gives the figures: operations tried, applied, refused, io-failed and cut by a kill, kills per kind,
disk-full windows, final goal and work states.

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
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from harn_tui.core.errors import SystemRefused
from tests.reliability.io_kit import Disk, MountImpossible, tmpfs
from tests.reliability.soak_check import Report, check_soak
from tests.reliability.soak_tree import add_soak_root, add_standalone, adopt, build_soak_tree

REPO = Path(__file__).resolve().parents[2]
STOP_WAIT_S = 120.0


@dataclass
class Chaos:
    """What the chaos soak adds: a SIGKILL of a random participant (worker, serve loop or console, restarted at
    once) every `kill_every` seconds, and every `full_every` seconds a window of `full_for` seconds in which
    the tree's disk (a tmpfs of `size`) is full."""

    kill_every: float = 7.0
    full_every: float = 15.0
    full_for: tuple[float, float] = (2.0, 4.0)
    size: str = "256m"
    kills: Counter[str] = field(default_factory=Counter)
    windows: int = 0
    full_seconds: float = 0.0
    driver_refusals: int = 0

    def summary(self) -> str:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(self.kills.items())) or "none"
        return (
            f"chaos: {sum(self.kills.values())} SIGKILLs ({kinds}), {self.windows} disk-full windows "
            f"({self.full_seconds:.0f} s full in all)"
        )


@dataclass
class SoakResult:
    directory: Path
    report: Report
    seconds: float
    processes: dict[str, int] = field(default_factory=dict)  # name -> exit code
    outputs: dict[str, Any] = field(default_factory=dict)  # name -> its summary line (JSON) or stderr tail
    goals_added: int = 0
    chaos: Chaos | None = None
    final: dict[str, Counter[str]] = field(default_factory=dict)  # goals / work -> state -> count

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
    handle = out.open("ab")
    process = subprocess.Popen(
        [sys.executable, *args], cwd=REPO, env=child_env(), stdout=handle, stderr=subprocess.STDOUT
    )
    return process, handle


def _last_json(path: Path) -> Any:
    lines = path.read_text(errors="replace").strip().splitlines()
    for line in reversed(lines):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return "\n".join(lines[-15:])


def run_soak(
    *,
    seconds: float,
    workers: int = 6,
    consoles: int = 2,
    goals: int = 4,
    spawn_every: float = 15.0,
    seed: int = 0,
    directory: Path | None = None,
    serves: int = 1,
    chaos: Chaos | None = None,
) -> SoakResult:
    """Build the tree, race for `seconds`, stop everything cleanly, check every invariant. With `chaos`, the
    tree lives on a tmpfs mounted for the run (root only) that fills now and then, and participants are killed."""
    base = directory or Path(tempfile.mkdtemp(prefix="harn-soak-"))
    logs = base / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        disk = stack.enter_context(tmpfs(base / "disk", chaos.size)) if chaos is not None else None
        root = (disk.mount if disk is not None else base) / "tree"
        result = _race(
            root,
            logs,
            base,
            seconds=seconds,
            workers=workers,
            consoles=consoles,
            goals=goals,
            spawn_every=spawn_every,
            seed=seed,
            serves=serves,
            chaos=chaos,
            disk=disk,
        )
        if disk is not None and not result.ok:  # keep the evidence: the tmpfs goes with the run
            shutil.copytree(root, base / "tree", symlinks=True)
    return result


@dataclass
class Participant:
    """A child process of the soak and how to start it again (`seconds` left for workers and consoles)."""

    name: str
    args: list[str]
    out: Path
    timed: bool
    process: subprocess.Popen[bytes] | None = None
    handle: IO[bytes] | None = None
    starts: int = 0

    def start(self, seconds_left: float) -> None:
        args = list(self.args)
        if self.timed:
            args += ["--seconds", f"{max(0.0, seconds_left):.1f}", "--seed", str(self.seed_base + self.starts)]
        self.process, self.handle = _start(args, self.out)
        self.starts += 1

    seed_base: int = 0

    def kill(self) -> None:
        assert self.process is not None and self.handle is not None
        self.process.kill()
        self.process.wait()
        self.handle.close()


def _race(
    root: Path,
    logs: Path,
    base: Path,
    *,
    seconds: float,
    workers: int,
    consoles: int,
    goals: int,
    spawn_every: float,
    seed: int,
    serves: int,
    chaos: Chaos | None,
    disk: Disk | None,
) -> SoakResult:
    layout, assets = build_soak_tree(root, goals)
    started = time.monotonic()
    deadline = started + seconds
    people: dict[str, Participant] = {}
    for number in range(1, serves + 1):
        name = "serve" if number == 1 else f"serve-{number}"
        people[name] = Participant(
            name,
            ["-m", "harn_tui", "--root", str(root), "supervisor", "serve", "--wake-interval", "1"],
            logs / f"{name}.out",
            timed=False,
        )
    for number in range(1, consoles + 1):
        name = f"console-{number}"
        people[name] = Participant(
            name,
            [
                "-m",
                "tests.reliability.soak_console",
                "--root",
                str(root),
                "--actor",
                name,
                "--log",
                str(logs / f"{name}.log.jsonl"),
                "--quiet-file",
                str(logs / "quiet"),
            ],
            logs / f"{name}.out",
            timed=True,
            seed_base=(seed * 100 + number) * 1000,
        )
    for number in range(1, workers + 1):
        name = f"w{number}"
        people[name] = Participant(
            name,
            [
                "-m",
                "tests.reliability.soak_worker",
                "--root",
                str(root),
                "--actor",
                name,
                "--log",
                str(logs / f"{name}.log.jsonl"),
            ],
            logs / f"{name}.out",
            timed=True,
            seed_base=(seed * 100 + 50 + number) * 1000,
        )
    for person in people.values():
        person.start(seconds)
    rng = random.Random(seed)
    added = 0
    next_goal = started + spawn_every
    next_kill = started + chaos.kill_every if chaos is not None else float("inf")
    next_full = started + chaos.full_every if chaos is not None else float("inf")
    full_until: float | None = None
    full_since = 0.0
    adoptions: list[tuple[float, int]] = []
    while time.monotonic() < deadline:
        now = time.monotonic()
        if full_until is not None and now >= full_until:
            assert disk is not None and chaos is not None
            disk.free()
            chaos.full_seconds += now - full_since
            full_until = None
        if chaos is not None and disk is not None and full_until is None and now >= next_full:
            disk.fill()
            full_since = time.monotonic()
            chaos.windows += 1
            full_until = full_since + rng.uniform(*chaos.full_for)
            next_full = now + chaos.full_every
        if chaos is not None and now >= next_kill and deadline - now > 3:
            victim = people[rng.choice(sorted(people))]
            victim.kill()
            chaos.kills[victim.name.rstrip("0123456789-") or victim.name] += 1
            victim.start(deadline - time.monotonic())
            next_kill = now + rng.uniform(0.5, 1.5) * chaos.kill_every
        if full_until is None:
            try:
                if now >= next_goal:
                    add_soak_root(layout, assets, goals + added)
                    adoptions.append((now + spawn_every / 2, goals + added))
                    if added % 2 == 0:
                        add_standalone(layout, assets, 2 + added // 2)
                    added += 1
                    next_goal += spawn_every
                while adoptions and adoptions[0][0] <= now:
                    adopt(layout, assets, adoptions.pop(0)[1])
            except SystemRefused:  # the disk filled under the driver's own write: try again after the window
                if chaos is not None:
                    chaos.driver_refusals += 1
        time.sleep(min(0.2, max(0.0, deadline - time.monotonic())))
    if full_until is not None and disk is not None and chaos is not None:
        disk.free()
        chaos.full_seconds += time.monotonic() - full_since
    result = SoakResult(base, Report(), seconds, goals_added=added, chaos=chaos)
    for name in [n for n in people if n.startswith("w")]:
        result.processes[name] = _wait(_process(people[name]), STOP_WAIT_S)
    loops = [name for name in people if name.startswith("serve")]
    for name in loops:
        _process(people[name]).send_signal(signal.SIGTERM)
    for name in loops:
        result.processes[name] = _wait(_process(people[name]), STOP_WAIT_S)
    (logs / "quiet").touch()  # the consoles now check their live model against a fresh load
    for name in people:
        if name.startswith("console"):
            result.processes[name] = _wait(_process(people[name]), STOP_WAIT_S)
    for person in people.values():
        if person.handle is not None:
            person.handle.close()
    for name in people:
        result.outputs[name] = _last_json(logs / f"{name}.out")
    result.report = check_soak(root, logs, chaos=chaos is not None)
    result.final = final_states(root)
    return result


def _process(person: Participant) -> subprocess.Popen[bytes]:
    assert person.process is not None
    return person.process


def final_states(root: Path) -> dict[str, Counter[str]]:
    """How many goals and work items end in each state (`supervisor list`, `work list`)."""
    found: dict[str, Counter[str]] = {}
    for key, argv in (("goals", ["supervisor", "list"]), ("work", ["work", "list"])):
        done = subprocess.run(
            [sys.executable, "-m", "harn_tui", "--root", str(root), *argv, "--json"],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=REPO,
            env=child_env(),
        )
        items = json.loads(done.stdout)[key] if done.returncode == 0 else []
        found[key] = Counter(item["state"] for item in items)
    return found


def _wait(process: subprocess.Popen[bytes], timeout: float) -> int:
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return -9


def chaos_figures(result: SoakResult) -> str:
    """The chaos soak's figures in one line."""
    c, chaos = result.report.counts, result.chaos
    assert chaos is not None
    states = "; ".join(
        f"{key} " + ", ".join(f"{state} {n}" for state, n in sorted(counts.items()))
        for key, counts in result.final.items()
    )
    return (
        f"chaos soak, {result.seconds:.0f} s: {c['transitions']} operations tried ({c['applied']} applied, "
        f"{c['already_done']} already done, {c['exit 2'] + c['exit 3'] + c['exit 4']} refused, {c['exit 6']} "
        f"io-failed, {c['unanswered (killed)']} cut by a kill, {c['maybe-applied, found once']} of those found "
        f"applied once); {chaos.summary()}; {c['lost unrecorded']} attempts lost with their runner; final: "
        f"{states}; {len(result.report.violations)} violations"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Race soak: random legal and illegal transitions from many "
        "processes, then every invariant checked from the journal."
    )
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--workers", type=int, default=6)
    parser.add_argument("--consoles", type=int, default=2)
    parser.add_argument(
        "--serves", type=int, default=1, help="serve loops (more than one race for each goal's supervisor.lock)"
    )
    parser.add_argument("--goals", type=int, default=4)
    parser.add_argument("--spawn-every", type=float, default=15.0)
    parser.add_argument("--seed", type=int, default=int(time.time()) % 10_000)
    parser.add_argument("--dir", type=Path, default=None)
    parser.add_argument(
        "--chaos",
        action="store_true",
        help="the tree on a tmpfs that fills for a few seconds "
        "now and then, and a random participant SIGKILLed (and restarted) every few seconds; root only",
    )
    parser.add_argument("--kill-every", type=float, default=7.0)
    parser.add_argument("--full-every", type=float, default=15.0)
    args = parser.parse_args(argv)
    chaos = Chaos(kill_every=args.kill_every, full_every=args.full_every) if args.chaos else None
    try:
        result = run_soak(
            seconds=args.seconds,
            workers=args.workers,
            consoles=args.consoles,
            goals=args.goals,
            spawn_every=args.spawn_every,
            seed=args.seed,
            directory=args.dir,
            serves=args.serves,
            chaos=chaos,
        )
    except MountImpossible as impossible:
        print(f"chaos soak not run: {impossible}")
        return 1
    for name, output in result.outputs.items():
        print(f"{name} (exit {result.processes.get(name)}): {json.dumps(output)[:300]}")
    for problem in result.process_problems + result.report.violations:
        print(f"VIOLATION {problem}")
    print(f"seed {args.seed}; tree and logs in {result.directory}")
    print(result.report.summary())
    if result.chaos is not None:
        print(chaos_figures(result))
    if result.ok and args.dir is None:
        shutil.rmtree(result.directory, ignore_errors=True)
    return 0 if result.ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
