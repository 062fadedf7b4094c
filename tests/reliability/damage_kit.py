"""Damaged trees: a valid tree built with real transitions, the corruptions applied to it, and a snapshot of the
tree that never reads a huge file whole (for "nothing was written" checks)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from harn_tui.core.creation import init_tree
from harn_tui.core.layout import Layout
from harn_tui.core.transitions import approve_plan, reopen_work
from tests.conftest import EXAMPLES
from tests.plan_builders import add_plan, make_goal, record_attempt

DAMAGED = "goal-damaged"
SOUND = "goal-sound"
GIB = 1024**3
MIB = 1024**2


@dataclass(frozen=True)
class BaseTree:
    """Where the pristine tree is and the addresses in it."""

    root: Path
    plan_id: str
    investigate: str  # in review, with two open findings from a reopen
    implement: str  # waiting on investigate
    damaged_root: str  # the goal's original root, failed and superseded by the plan
    sound_root: str

    @property
    def layout(self) -> Layout:
        return Layout(self.root)


def build_base(directory: Path) -> BaseTree:
    """Two goals built with real transitions: DAMAGED (a failed root, a reviewed plan approved and materialized,
    an attempt passed, reopened with findings, passed again) and SOUND (a root whose attempt passed)."""
    examples = directory / "examples"
    shutil.copytree(EXAMPLES, examples)
    root = directory / "root"
    root.mkdir()
    init_tree(root)
    layout = Layout(root)
    make_goal(layout, examples, goal_id=DAMAGED, root_work="work-a-root", max_attempts=1)
    record_attempt(layout, "work-a-root", passed=False)
    plan_id = add_plan(layout, DAMAGED)
    approve_plan(layout, DAMAGED, plan_id, actor="tester")
    investigate, implement = f"{plan_id}-investigate", f"{plan_id}-implement"
    record_attempt(layout, investigate, passed=True)
    reopen_work(layout, investigate, actor="tester", findings=["the cause is not written down", "cite the proof"])
    record_attempt(layout, investigate, passed=True, trigger="reopen")
    make_goal(layout, examples, goal_id=SOUND, root_work="work-b-root")
    record_attempt(layout, "work-b-root", passed=True)
    return BaseTree(root, plan_id, investigate, implement, "work-a-root", "work-b-root")


def copy_tree(base: BaseTree, target: Path) -> BaseTree:
    shutil.copytree(base.root, target, symlinks=True)
    return BaseTree(target, base.plan_id, base.investigate, base.implement, base.damaged_root, base.sound_root)


def damaged_goal_files(tree: BaseTree) -> list[Path]:
    """Every record and log of the damaged goal: its goal.json, plan records and log, its work's intents and logs,
    and the manifests and proofs of its runs (run ids from its work logs)."""
    layout = tree.layout
    files = [layout.goal(DAMAGED) / "goal.json"]
    plan = layout.plan(DAMAGED, tree.plan_id)
    files += sorted(p for p in plan.iterdir() if p.is_file() and p.name != "lease")
    for work_id in (tree.damaged_root, tree.investigate, tree.implement):
        files += [layout.work(work_id) / "intent.json", layout.work(work_id) / "events.jsonl"]
        for run_id in run_ids(layout, work_id):
            files += [layout.run(run_id) / "manifest.json", layout.run(run_id) / "proof.json"]
    return files


def damaged_goal_dirs(tree: BaseTree) -> list[Path]:
    layout = tree.layout
    dirs = [layout.goal(DAMAGED), layout.goal(DAMAGED) / "plans", layout.plan(DAMAGED, tree.plan_id)]
    for work_id in (tree.damaged_root, tree.investigate, tree.implement):
        dirs.append(layout.work(work_id))
        dirs += [layout.run(run_id) for run_id in run_ids(layout, work_id)]
    return dirs


def run_ids(layout: Layout, work_id: str) -> list[str]:
    lines = (layout.work(work_id) / "events.jsonl").read_text().splitlines()
    return [e["run_id"] for e in map(json.loads, lines) if e["event"] == "attempt.started"]


def is_log(path: Path) -> bool:
    return path.name.endswith(".jsonl")


def is_run_file(path: Path) -> bool:
    """A run's directory or a file in it (its proof and manifest belong to the run, not to the goal's records)."""
    return "runs" in (path.parent.name, path.parent.parent.name)


# ----- corruptions: each changes the tree and says whether a reader must notice (certain) or may not


@dataclass(frozen=True)
class Damage:
    kind: str
    path: Path
    reported: bool  # every correct reader (and `verify`) reports a problem naming `path`
    torn_only: bool = False  # reported as a torn tail only: SPEC 2 says that alone does not make a goal corrupt

    @property
    def corrupts_goal(self) -> bool:
        """The damaged goal must project as corrupt: its own records (not a run's proof or manifest) are damaged."""
        return self.reported and not self.torn_only and not is_run_file(self.path)


def truncate(path: Path, fraction: float) -> Damage:
    data = path.read_bytes()
    keep = int(len(data) * fraction)
    path.write_bytes(data[:keep])
    if is_log(path):  # cut inside a line: a torn tail; at a line boundary: a valid shorter log
        torn = keep > 0 and data[keep - 1 : keep] != b"\n"
        return Damage("truncate", path, reported=torn, torn_only=True)
    return Damage("truncate", path, reported=keep < len(data) - 1)  # only the final newline gone still parses


def bit_flip(path: Path, position: float, bit: int) -> Damage:
    data = bytearray(path.read_bytes())
    index = min(int(len(data) * position), len(data) - 1)
    data[index] ^= 1 << bit
    path.write_bytes(bytes(data))
    return Damage("bit flip", path, reported=False)  # a flipped letter in a title is still a valid record


def delete(path: Path) -> Damage:
    path.unlink()
    return Damage("delete", path, reported=False)  # e.g. a plan without request.json is an aborted creation (SPEC 2)


def log_lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def duplicate_line(path: Path, index: int) -> Damage:
    lines = log_lines(path)
    index %= len(lines)
    lines.insert(index + 1, lines[index])
    path.write_bytes(b"".join(lines))
    return Damage("duplicate line", path, reported=True)  # the copy repeats a seq


def swap_lines(path: Path, index: int) -> Damage:
    lines = log_lines(path)
    if len(lines) < 2:
        return duplicate_line(path, 0)
    index %= len(lines) - 1
    lines[index], lines[index + 1] = lines[index + 1], lines[index]
    path.write_bytes(b"".join(lines))
    return Damage("reorder lines", path, reported=True)  # seq goes backwards


def drop_line(path: Path, index: int) -> Damage:
    lines = log_lines(path)
    index %= len(lines)
    last = index == len(lines) - 1
    del lines[index]
    path.write_bytes(b"".join(lines))
    return Damage("delete line", path, reported=not last)  # a gap in seq, unless the last line went


def wrong_schema(path: Path, version: int) -> Damage:
    data = path.read_bytes()
    if is_log(path):
        lines = log_lines(path)
        lines[-1] = lines[-1].replace(b'"schema_version":1', b'"schema_version":%d' % version, 1)
        path.write_bytes(b"".join(lines))
    else:
        path.write_bytes(data.replace(b'"schema_version": 1', b'"schema_version": %d' % version, 1))
    return Damage("wrong schema_version", path, reported=True)


def huge_line(path: Path) -> Damage:
    """A 5 MiB line: over the 4 MiB line limit in a log; in a record, an unknown 5 MiB member."""
    filler = b"x" * (5 * MIB)
    if is_log(path):
        with path.open("ab") as handle:
            handle.write(b'{"schema_version":1,"seq":99,"pad":"' + filler + b'"}\n')
    else:
        data = path.read_bytes().rstrip()
        path.write_bytes(data[:-1].rstrip() + b',\n  "pad": "' + filler + b'"\n}\n')
    return Damage("huge line", path, reported=True)


def sparse(path: Path) -> Damage:
    """The file grown to 3 GiB of holes (costs no disk): over every per-file limit."""
    os.truncate(path, 3 * GIB)
    return Damage("3 GiB sparse file", path, reported=True)


def garbage(path: Path, noise: bytes) -> Damage:
    path.write_bytes(b"\xff\x00" + noise + (b"\n" if is_log(path) else b""))
    return Damage("binary garbage", path, reported=True)


def symlink_out(path: Path, outside: Path) -> Damage:
    """The file replaced by a link to a byte-identical copy outside the tree: only the link is wrong."""
    outside.mkdir(parents=True, exist_ok=True)
    target = outside / f"{path.parent.name}-{path.name}"
    shutil.copyfile(path, target)
    path.unlink()
    path.symlink_to(target)
    return Damage("symlink outside", path, reported=True)


def dangling_link(path: Path, outside: Path) -> Damage:
    """A file or directory replaced by a link to nothing (an aborted creation has no such entry: this is damage)."""
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()
    path.symlink_to(outside / "nowhere")
    return Damage("dangling link", path, reported=True)


def directory_instead(path: Path) -> Damage:
    path.unlink()
    path.mkdir()
    (path / "inner").write_text("{}")
    return Damage("directory for a file", path, reported=True)


def fifo_instead(path: Path) -> Damage:
    path.unlink()
    os.mkfifo(path)
    return Damage("named pipe for a file", path, reported=True)


def linked_directory(path: Path, outside: Path) -> Damage:
    """A goal, plan, work or run directory replaced by a link to an identical copy outside the tree."""
    target = outside / f"dir-{path.name}"
    shutil.copytree(path, target, symlinks=True)
    shutil.rmtree(path)
    path.symlink_to(target, target_is_directory=True)
    return Damage("symlinked directory", path, reported=True)


# ----- snapshots that never read a huge file whole


def snapshot(directory: Path) -> dict[str, object]:
    """Every entry under `directory` (leases, presence and cache aside) without following links: small files by
    content, files over 1 MiB by (size, sha256 of their first MiB, mtime), links by target, pipes by kind."""
    found: dict[str, object] = {}
    for current, dirs, files in os.walk(directory):
        for name in sorted(dirs + files):
            path = Path(current) / name
            rel = str(path.relative_to(directory))
            if name in ("lease", "supervisor.lock") or rel.startswith((".harnery/cache", ".harnery/presence")):
                continue
            mode = os.lstat(path)
            if stat.S_ISLNK(mode.st_mode):
                found[rel] = ("link", os.readlink(path))
            elif stat.S_ISDIR(mode.st_mode):
                found[rel] = "dir"
            elif not stat.S_ISREG(mode.st_mode):
                found[rel] = ("special", stat.S_IFMT(mode.st_mode))
            elif mode.st_size > MIB:
                with path.open("rb") as handle:
                    head = hashlib.sha256(handle.read(MIB)).hexdigest()
                found[rel] = ("large", mode.st_size, head, mode.st_mtime_ns)
            else:
                found[rel] = path.read_bytes()
    return found
