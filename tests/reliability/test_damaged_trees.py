"""Damaged trees: a valid tree, corrupted (truncated, bit-flipped, deleted, lines duplicated, reordered or dropped,
wrong schema_version, a huge line, a 3 GiB sparse file, binary garbage, a link out of the tree, a directory or a
pipe where a file should be, a linked directory), is read without an unexpected exception, without hanging and
in bounded memory; the damage is reported with its exact path, the sound goal beside it still reads, and every
write to the damaged goal is refused (exit 5) leaving the tree byte for byte as it was.

`HARN_FUZZ_EXAMPLES=N` runs N hypothesis examples (random ones; CI runs the same 250 every time) instead of the
CI default, e.g. `HARN_FUZZ_EXAMPLES=3000 python -m pytest tests/reliability/test_damaged_trees.py -k any_damage`.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harn_tui.core.errors import CorruptJournal, HarnError, NotFound
from harn_tui.core.queries import list_goals, pending, show_goal
from harn_tui.core.supervisor import tick_goal
from harn_tui.core.transitions import (
    accept_work,
    approve_plan,
    cancel_work,
    reject_plan,
    reopen_work,
    retry_plan,
)
from harn_tui.core.verify import verify_tree
from tests.conftest import harn_env
from tests.reliability import damage_kit as k
from tests.reliability.conftest import Figures

EXAMPLES = int(os.environ.get("HARN_FUZZ_EXAMPLES", "250"))
DEEP = "HARN_FUZZ_EXAMPLES" in os.environ  # a deeper run also draws fresh random examples each time
HANG_S = 20.0
FIGURE = "damaged trees: corruptions tried"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> k.BaseTree:
    return k.build_base(tmp_path_factory.mktemp("damaged-base"))


@pytest.fixture(scope="module")
def sound_baseline(base: k.BaseTree) -> dict[str, Any]:
    return show_goal(base.layout, k.SOUND).to_json()


class Hang(Exception):
    """A reader ran past HANG_S."""


@contextlib.contextmanager
def deadline(seconds: float = HANG_S) -> Iterator[None]:
    """Fail (instead of hanging the suite) when the body runs longer than `seconds`."""

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"still reading after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ----- what hypothesis draws: a target and a corruption


def corruption(data: st.DataObject, tree: k.BaseTree, outside: Path) -> k.Damage:
    files = k.damaged_goal_files(tree)
    choice = data.draw(st.sampled_from(["file"] * 6 + ["directory"]), label="target kind")
    if choice == "directory":
        directory = data.draw(st.sampled_from(k.damaged_goal_dirs(tree)), label="dir")
        if data.draw(st.booleans(), label="dangling"):
            return k.dangling_link(directory, outside)
        return k.linked_directory(directory, outside)
    path = data.draw(st.sampled_from(files), label="file")
    kinds: list[str] = [
        "truncate",
        "bit flip",
        "delete",
        "wrong schema",
        "garbage",
        "symlink",
        "dangling link",
        "directory",
        "fifo",
        "sparse",
        "huge line",
    ]
    if k.is_log(path):
        kinds += ["duplicate", "reorder", "drop line"] * 2
    kind = data.draw(st.sampled_from(kinds), label="corruption")
    if kind == "truncate":
        return k.truncate(path, data.draw(st.floats(0.0, 0.999), label="keep"))
    if kind == "bit flip":
        return k.bit_flip(path, data.draw(st.floats(0.0, 1.0)), data.draw(st.integers(0, 7)))
    if kind == "delete":
        return k.delete(path)
    if kind == "wrong schema":
        return k.wrong_schema(path, data.draw(st.sampled_from([0, 2, 3, 99])))
    if kind == "garbage":
        return k.garbage(path, data.draw(st.binary(min_size=0, max_size=512), label="noise"))
    if kind == "symlink":
        return k.symlink_out(path, outside)
    if kind == "dangling link":
        return k.dangling_link(path, outside)
    if kind == "directory":
        return k.directory_instead(path)
    if kind == "fifo":
        return k.fifo_instead(path)
    if kind == "sparse":
        return k.sparse(path)
    if kind == "huge line":
        return k.huge_line(path)
    index = data.draw(st.integers(0, 20), label="line")
    return {"duplicate": k.duplicate_line, "reorder": k.swap_lines, "drop line": k.drop_line}[kind](path, index)


def named(problems: list[dict[str, str]], path: Path) -> bool:
    return any(p["path"] == str(path) for p in problems)


WRITES: list[tuple[str, Callable[[k.BaseTree], object]]] = [
    ("plan approve", lambda t: approve_plan(t.layout, k.DAMAGED, t.plan_id, actor="tester")),
    ("plan reject", lambda t: reject_plan(t.layout, k.DAMAGED, t.plan_id, actor="tester", reason="no")),
    ("plan retry", lambda t: retry_plan(t.layout, k.DAMAGED, t.plan_id, actor="tester", reason="again")),
    ("work accept", lambda t: accept_work(t.layout, t.investigate, actor="tester", dispositions=[])),
    ("work reopen", lambda t: reopen_work(t.layout, t.investigate, actor="tester", findings=["still wrong"])),
    ("work cancel", lambda t: cancel_work(t.layout, t.implement, actor="tester", reason="stop")),
    ("work reopen (original root)", lambda t: reopen_work(t.layout, t.damaged_root, actor="tester", findings=["x"])),
    ("supervisor tick", lambda t: tick_goal(t.layout, k.DAMAGED)),
]


def goal_state(tree: k.BaseTree) -> tuple[str, str]:
    """(state, reason) of the damaged goal as `supervisor show` reads it; an addressed goal directory that is
    itself damaged (a link) is refused before any read: corrupt, with the message."""
    try:
        view = show_goal(tree.layout, k.DAMAGED)
    except CorruptJournal as error:
        return "corrupt", error.message
    return view.state, view.reason


def check_damaged_tree(tree: k.BaseTree, damage: k.Damage, outside: Path, sound: dict[str, Any]) -> None:
    """Everything a user would notice about one damaged tree, read in this process."""
    layout = tree.layout
    with deadline():
        problems = verify_tree(layout)
        listed = list_goals(layout)
        pending(layout)
        state, reason = goal_state(tree)
        assert show_goal(layout, k.SOUND).to_json() == sound, "the sound goal beside the damaged one changed"
    assert [g["id"] for g in listed["goals"]] == [k.DAMAGED, k.SOUND]
    if damage.reported:
        assert named(problems, damage.path), (damage, problems)
    if damage.corrupts_goal:
        assert state == "corrupt", (damage, reason)
        assert str(damage.path) in reason, (damage, reason)
    if state != "corrupt":
        return
    before = k.snapshot(tree.root), k.snapshot(outside)
    for name, write in WRITES:
        with deadline(), pytest.raises((CorruptJournal, NotFound)) as refused:
            write(tree)
        assert isinstance(refused.value, HarnError), name
    assert (k.snapshot(tree.root), k.snapshot(outside)) == before, "a refused write changed the tree"


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not DEEP,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_damage_is_read_reported_and_refuses_writes(
    data: st.DataObject,
    base: k.BaseTree,
    sound_baseline: dict[str, Any],
    tmp_path: Path,
    figures: Figures,
) -> None:
    scratch = tmp_path / f"example-{figures_count(figures)}"
    tree = k.copy_tree(base, scratch / "root")
    outside = scratch / "outside"
    outside.mkdir()
    damage = corruption(data, tree, outside)
    figures.add(FIGURE)
    try:
        check_damaged_tree(tree, damage, outside, sound_baseline)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


_COUNT = [0]


def figures_count(figures: Figures) -> int:
    _COUNT[0] += 1
    return _COUNT[0]


# ----- every corruption on every kind of record, deterministically (the matrix hypothesis samples from)

MATRIX_KINDS: dict[str, Callable[[Path, Path], k.Damage]] = {
    "garbage": lambda p, o: k.garbage(p, b"\x00\x01binary\xfe"),
    "wrong schema": lambda p, o: k.wrong_schema(p, 2),
    "symlink": k.symlink_out,
    "dangling link": k.dangling_link,
    "directory": lambda p, o: k.directory_instead(p),
    "fifo": lambda p, o: k.fifo_instead(p),
    "sparse": lambda p, o: k.sparse(p),
    "huge line": lambda p, o: k.huge_line(p),
    "truncate": lambda p, o: k.truncate(p, 0.5),
}


def _at(rel: Path, damage: Callable[[Path, Path], k.Damage], tree: k.BaseTree, outside: Path) -> k.Damage:
    """`damage` applied to the entry at `rel` in `tree` (with `outside` for what a link may point at)."""
    return damage(tree.root / rel, outside)


def test_every_corruption_of_every_record_kind(
    base: k.BaseTree,
    sound_baseline: dict[str, Any],
    tmp_path: Path,
    figures: Figures,
) -> None:
    """One file of each kind (goal, plan records and log, work intent and log, manifest, proof) under every
    corruption above, plus every directory linked out of the tree."""
    kinds: dict[str, Path] = {}
    for path in k.damaged_goal_files(base):
        kinds.setdefault(f"{path.parent.parent.name}/{path.name}", path)
    cases: list[tuple[str, Callable[[k.BaseTree, Path], k.Damage]]] = []
    for path in kinds.values():
        rel = path.relative_to(base.root)
        for name, corrupt in MATRIX_KINDS.items():
            cases.append((f"{name} {rel}", functools.partial(_at, rel, corrupt)))
    for directory in k.damaged_goal_dirs(base):
        rel = directory.relative_to(base.root)
        cases.append((f"linked {rel}", functools.partial(_at, rel, k.linked_directory)))
        cases.append((f"dangling {rel}", functools.partial(_at, rel, k.dangling_link)))
    for number, (_label, damage_case) in enumerate(cases):
        scratch = tmp_path / f"case-{number}"
        tree = k.copy_tree(base, scratch / "root")
        outside = scratch / "outside"
        outside.mkdir()
        damage = damage_case(tree, outside)
        check_damaged_tree(tree, damage, outside, sound_baseline)
        shutil.rmtree(scratch, ignore_errors=True)
    figures.add(FIGURE, len(cases))


# ----- bounded memory on the huge cases


@pytest.mark.parametrize("target", ["goal.json", "work log", "proof"])
@pytest.mark.parametrize("corrupt", ["sparse", "huge line"])
def test_huge_files_are_reported_in_bounded_memory(
    base: k.BaseTree,
    tmp_path: Path,
    figures: Figures,
    target: str,
    corrupt: str,
) -> None:
    tree = k.copy_tree(base, tmp_path / "root")
    layout = tree.layout
    path = {
        "goal.json": layout.goal(k.DAMAGED) / "goal.json",
        "work log": layout.work(tree.investigate) / "events.jsonl",
        "proof": layout.run(k.run_ids(layout, tree.investigate)[0]) / "proof.json",
    }[target]
    damage = k.sparse(path) if corrupt == "sparse" else k.huge_line(path)
    figures.add(FIGURE)
    tracemalloc.start()
    try:
        with deadline(10):
            problems = verify_tree(layout)
            state, _ = goal_state(tree)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert named(problems, damage.path)
    assert (state == "corrupt") == damage.corrupts_goal
    # a 3 GiB file is never read; a 5 MiB line in a log is read at most one 4 MiB piece at a time; a 5 MiB
    # record is under the 64 MiB record limit, so it is read (and refused by validation) once
    limit = 4 * k.MIB if corrupt == "sparse" else 24 * k.MIB
    assert peak < limit, f"peak {peak / k.MIB:.1f} MiB reading {damage.kind} at {target}"
    MEASURED[f"{corrupt} {target}"] = peak


MEASURED: dict[str, int] = {}


# ----- the CLI: exit 5 naming the path, never a traceback, bounded RSS, writes refused with nothing written


# Linux keeps a process's peak RSS across exec, and a child forked from this (large) test process starts with
# this process's RSS as its peak: `harn` is forked from a small launcher instead, which reports its child's peak.
LAUNCHER = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as report:
    report.write(str(usage.ru_maxrss))
code = os.waitstatus_to_exitcode(status)
os._exit(code if code >= 0 else 128 - code)
"""


def harn_run(root: Path, *args: str, timeout: float = 60) -> tuple[int, str, str, int]:
    """`harn` as a real subprocess: (exit code, stdout, stderr, peak RSS in KiB of that process)."""
    out, err, peak = root.parent / "out.txt", root.parent / "err.txt", root.parent / "peak.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        argv = [sys.executable, "-c", LAUNCHER, str(peak), "-m", "harn_tui", "--root", str(root), *args]
        process = subprocess.Popen(argv, stdout=stdout, stderr=stderr, env=harn_env(), start_new_session=True)
        timer = threading.Timer(timeout, lambda: os.killpg(process.pid, signal.SIGKILL))
        timer.start()
        try:
            process.wait()
        finally:
            timer.cancel()
    return process.returncode, out.read_text(), err.read_text(), int(peak.read_text())


CLI_CASES = {
    "3 GiB sparse goal.json": lambda t, o: k.sparse(t.layout.goal(k.DAMAGED) / "goal.json"),
    "huge line in a work log": lambda t, o: k.huge_line(t.layout.work(t.investigate) / "events.jsonl"),
    "garbage plan log": lambda t, o: k.garbage(t.layout.plan(k.DAMAGED, t.plan_id) / "events.jsonl", b"\x00"),
    "work intent linked out": lambda t, o: k.symlink_out(t.layout.work(t.implement) / "intent.json", o),
    "work directory linked out": lambda t, o: k.linked_directory(t.layout.work(t.investigate), o),
    "directory for goal.json": lambda t, o: k.directory_instead(t.layout.goal(k.DAMAGED) / "goal.json"),
    "pipe for a work log": lambda t, o: k.fifo_instead(t.layout.work(t.investigate) / "events.jsonl"),
    "schema_version 2": lambda t, o: k.wrong_schema(t.layout.plan(k.DAMAGED, t.plan_id) / "request.json", 2),
    "duplicated line": lambda t, o: k.duplicate_line(t.layout.work(t.investigate) / "events.jsonl", 1),
}


@pytest.mark.parametrize("case", sorted(CLI_CASES))
def test_cli_on_a_damaged_goal(base: k.BaseTree, tmp_path: Path, figures: Figures, case: str) -> None:
    tree = k.copy_tree(base, tmp_path / "root")
    outside = tmp_path / "outside"
    outside.mkdir()
    damage = CLI_CASES[case](tree, outside)
    figures.add(FIGURE)
    code, out, err, rss = harn_run(tree.root, "supervisor", "show", k.DAMAGED, "--json")
    assert code == 5 and "Traceback" not in err, (code, out, err)
    error = json.loads(out)["error"]
    assert error["code"] == "corrupt" and str(damage.path) in error["message"], error
    assert rss < 200 * 1024, f"harn supervisor show peaked at {rss // 1024} MiB"
    code, out, err, _ = harn_run(tree.root, "verify", "--json")
    assert code == 5 and "Traceback" not in err
    assert named(json.loads(out)["problems"], damage.path)
    code, out, err, _ = harn_run(tree.root, "supervisor", "show", k.SOUND, "--json")
    assert code == 0 and json.loads(out)["state"] == "awaiting_attention", (out, err)
    before = k.snapshot(tree.root), k.snapshot(outside)
    code, out, err, _ = harn_run(tree.root, "work", "reopen", tree.investigate, "--finding", "again", "--json")
    assert code == 5 and "Traceback" not in err, (code, out, err)
    assert (k.snapshot(tree.root), k.snapshot(outside)) == before


# ----- the console shows the damaged goal as corrupt, beside the sound one


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_console_shows_the_damaged_goal_as_corrupt(
    base: k.BaseTree,
    tmp_path: Path,
    figures: Figures,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from harn_tui.tui.app import HarnConsole
    from harn_tui.tui.widgets.goals import GoalsPanel

    monkeypatch.setenv("HARN_LEASE_TIMEOUT_S", "10")
    tree = k.copy_tree(base, tmp_path / "root")
    k.sparse(tree.layout.work(tree.investigate) / "events.jsonl")
    figures.add(FIGURE)
    app = HarnConsole(tree.layout, actor="alice", watch=False, presence=False, root_label="ROOT")
    app.animation_level = "none"
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        goals = app.main.query_one(GoalsPanel)
        damaged = goals.get_row(k.DAMAGED)
        assert damaged[0].plain == "⌧ corrupt"
        assert f"{tree.investigate}/events.jsonl" in damaged[-1].plain
        assert "over the 256 MiB limit" in damaged[-1].plain
        assert "corrupt" not in goals.get_row(k.SOUND)[0].plain


def rename_in(path: Path, old: bytes, new: bytes) -> k.Damage:
    path.write_bytes(path.read_bytes().replace(old, new, 1))
    return k.Damage("edited", path, reported=True)


ORPHANING = {
    "garbage": lambda t: k.garbage(t.layout.goal(k.DAMAGED) / "goal.json", b"x"),
    "root key renamed": lambda t: rename_in(
        t.layout.goal(k.DAMAGED) / "goal.json", b'"root_work_id"', b'"root_work_hd"'
    ),
    "root names no work": lambda t: rename_in(
        t.layout.goal(k.DAMAGED) / "goal.json", b'"work-a-root"', b'"work-c-root"'
    ),
}


@pytest.mark.parametrize("case", sorted(ORPHANING))
def test_the_original_root_of_a_goal_with_a_damaged_goal_json_is_not_standalone(
    base: k.BaseTree,
    tmp_path: Path,
    figures: Figures,
    case: str,
) -> None:
    """Bug found here: with goal.json unreadable (or parsing but damaged: a renamed key, a root naming no work),
    nothing said the goal governs its original root, so the root was treated as standalone work and
    `work reopen` appended to it under its own lease. Now it is refused (5) naming goal.json."""
    tree = k.copy_tree(base, tmp_path / "root")
    damage = ORPHANING[case](tree)
    figures.add(FIGURE)
    before = k.snapshot(tree.root)
    code, out, err, _ = harn_run(tree.root, "work", "reopen", tree.damaged_root, "--json")
    assert code == 5 and "Traceback" not in err, (code, out, err)
    assert str(damage.path) in json.loads(out)["error"]["message"]
    assert k.snapshot(tree.root) == before


def test_pipes_and_links_in_presence_and_transcripts_never_block_the_console_model(
    base: k.BaseTree,
    tmp_path: Path,
    figures: Figures,
) -> None:
    """A named pipe where a presence heartbeat or a transcript should be used to block the console's reads
    forever (open waits for a writer); a link was followed out of the tree. Both are skipped now."""
    from harn_tui.console.model import ConsoleModel
    from harn_tui.core.presence import read_presence

    tree = k.copy_tree(base, tmp_path / "root")
    layout = tree.layout
    layout.presence.mkdir(exist_ok=True)
    os.mkfifo(layout.presence / "mallory@host-1.json")
    secret = tmp_path / "secret.json"
    secret.write_text("{}")
    (layout.presence / "eve@host-2.json").symlink_to(secret)
    run_id = k.run_ids(layout, tree.investigate)[0]
    os.mkfifo(layout.run(run_id) / "transcript.jsonl")
    figures.add(FIGURE, 3)
    with deadline(10):
        assert read_presence(layout) == []
        model = ConsoleModel.load(layout)
        assert model.transcript_tail(run_id) == []
        problems = verify_tree(layout)
    assert named(problems, layout.run(run_id) / "transcript.jsonl")
    assert named(problems, layout.presence / "eve@host-2.json")


@pytest.mark.parametrize("top", ["work", "runs", "supervisors"])
def test_a_linked_top_level_directory_is_never_entered(
    base: k.BaseTree,
    tmp_path: Path,
    figures: Figures,
    top: str,
) -> None:
    """`.harnery/work` (or runs/, supervisors/) replaced by a link to an identical copy outside: reported, nothing
    read through it, every write refused, nothing written on either side."""
    tree = k.copy_tree(base, tmp_path / "root")
    outside = tmp_path / "outside"
    outside.mkdir()
    damage = k.linked_directory(tree.layout.base / top, outside)
    figures.add(FIGURE)
    with deadline():
        problems = verify_tree(tree.layout)
        state, reason = goal_state(tree)
    assert named(problems, damage.path), problems
    if top != "runs":  # a goal's own records are reached through work/ and supervisors/; proofs through runs/
        assert state == "corrupt" and str(damage.path) in reason, reason
    before = k.snapshot(tree.root), k.snapshot(outside)
    for name, write in WRITES:
        with deadline(), contextlib.suppress(HarnError):
            write(tree)
            assert top == "runs", f"{name} was not refused with {top}/ linked"
    if top == "runs":  # the goal's own records are sound: its legal writes apply, none goes through the link
        assert k.snapshot(outside) == before[1]
    else:
        assert (k.snapshot(tree.root), k.snapshot(outside)) == before


def test_a_resumed_transcript_is_never_appended_through_a_link(tmp_path: Path, figures: Figures) -> None:
    """A parked run resumes by appending to its transcript; a transcript replaced by a link out of the tree is
    refused (5) and the link's target is untouched."""
    from harn_tui.core.transcript import TranscriptWriter

    target = tmp_path / "elsewhere.txt"
    target.write_bytes(b"keep me")
    link = tmp_path / "transcript.jsonl"
    link.symlink_to(target)
    figures.add(FIGURE)
    with pytest.raises(CorruptJournal, match="symbolic link"):
        TranscriptWriter(link)
    assert target.read_bytes() == b"keep me"
