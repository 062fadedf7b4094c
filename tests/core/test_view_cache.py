"""The read documents kept in `.harnery/cache/`: a read of an unchanged tree prints what reading the records prints,
without loading the record models; any change, liveness flip, damaged, foreign or hostile entry, or racing writer
falls back to the records, never to a wrong document."""

from __future__ import annotations

import contextlib
import fcntl
import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generator import generate_tree
from benchmarks.shapes import TreeShape
from harn_tui.cli import main
from harn_tui.core import view_cache
from harn_tui.core.view_cache import ViewCache
from tests.conftest import harn_env

SETTLED_NS = 50_000_000  # the tests' files are made moments before they are read
SHAPE = TreeShape("T", goals=6, items_per_goal=5)  # one goal of each kind: review, approval, a plan proposed ...


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    root = tmp_path_factory.mktemp("view-cache") / "root"
    root.mkdir()
    return root, generate_tree(root, SHAPE)


@pytest.fixture
def tree(
    built: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Path, dict[str, Any]]]:
    root = tmp_path / "root"
    shutil.copytree(built[0], root, symlinks=True)
    monkeypatch.setattr(view_cache, "SETTLED_NS", SETTLED_NS)
    monkeypatch.setenv("HARN_ACTOR", "tester")
    monkeypatch.delenv("HARN_NO_VIEW_CACHE", raising=False)
    time.sleep(2 * SETTLED_NS / 1e9)
    yield root, {goal["kind"]: goal for goal in built[1]["goals"]}


def harn(root: Path, *argv: str, cache: bool = True) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.ExitStack() as stack:
        if not cache:
            stack.enter_context(pytest.MonkeyPatch.context()).setenv("HARN_NO_VIEW_CACHE", "1")
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(io.StringIO()))
        code = main(["--root", str(root), *argv])
    return code, out.getvalue()


def reads(goals: dict[str, Any]) -> list[tuple[str, ...]]:
    review = goals["review"]
    return [
        ("supervisor", "show", review["id"], "--json"),
        ("supervisor", "list", "--json"),
        ("pending", "--json"),
        ("pending",),
        ("work", "show", review["frontier_work_id"], "--json"),
        ("supervisor", "show", review["id"]),
        ("work", "list", "--json"),
        ("approval", "list", "--json"),
        ("supervisor", "plan", "list", review["id"], "--json"),
    ]


def entry(root: Path, key: str) -> Path:
    return ViewCache((root / ".harnery").absolute()).path(key)


def test_an_unchanged_tree_is_read_from_the_cache_without_the_record_models(
    tree: tuple[Path, dict[str, Any]],
) -> None:
    root, goals = tree
    for argv in reads(goals):
        truth = harn(root, *argv, cache=False)
        assert harn(root, *argv) == truth, argv  # reads the records and keeps the document
    probe = (
        "import contextlib, io, sys\n"
        "from harn_tui.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    code = main({['--root', str(root)]!r} + sys.argv[1:])\n"
        "print(code, 'pydantic' in sys.modules or 'dataclasses' in sys.modules, out.getvalue(), sep='\\n', end='')\n"
    )
    for argv in [*reads(goals)[:5], *reads(goals)[6:]]:
        result = subprocess.run(
            [sys.executable, "-c", probe, *argv], capture_output=True, text=True, env=harn_env(), check=True
        )
        code, models, document = result.stdout.split("\n", 2)
        assert (int(code), document) == harn(root, *argv, cache=False), argv
        assert models == "False", f"{argv} loaded pydantic or dataclasses: it read the records"


def test_every_change_to_the_tree_is_seen(tree: tuple[Path, dict[str, Any]]) -> None:
    root, goals = tree
    review, proposed = goals["review"], goals["plan_proposed"]
    steps = [
        (
            "work",
            "accept",
            review["frontier_work_id"],
            "--dispose",
            "f1=fixed",
            "--dispose",
            "f2=deferred:next release",
        ),
        ("supervisor", "plan", "approve", proposed["id"], proposed["latest_plan_id"]),
    ]
    everything = [*reads(goals), ("supervisor", "show", proposed["id"], "--json")]
    keys = [
        f"show~{review['id']}",
        "list",
        "pending",
        "pending-questions",
        f"work~{review['frontier_work_id']}",
        f"show~{proposed['id']}",
    ]
    cache = ViewCache((root / ".harnery").absolute())
    for step in steps:
        time.sleep(2 * SETTLED_NS / 1e9)  # what the last step wrote has settled: the reads below keep entries
        before = {argv: harn(root, *argv) for argv in everything}
        assert all(cache.get(key) is not None for key in keys)
        assert harn(root, *step, "--json")[0] == 0, step
        for argv in everything:
            assert harn(root, *argv) == harn(root, *argv, cache=False), (step, argv)
        assert any(harn(root, *argv) != before[argv] for argv in everything), step
    # damage is a change too: a torn log is reported at once, cache or not
    log = root / ".harnery" / "work" / review["frontier_work_id"] / "events.jsonl"
    log.write_bytes(log.read_bytes()[:-40])
    show = ("supervisor", "show", review["id"], "--json")
    assert harn(root, *show) == harn(root, *show, cache=False)
    assert str(log) in [problem["path"] for problem in json.loads(harn(root, *show)[1])["problems"]]


def test_a_loop_that_starts_or_stops_is_seen_though_no_file_changed(tree: tuple[Path, dict[str, Any]]) -> None:
    root, goals = tree
    goal_id = goals["plan_proposed"]["id"]
    show = ("supervisor", "show", goal_id, "--json")
    harn(root, *show)
    cache = ViewCache((root / ".harnery").absolute())
    assert cache.get(f"show~{goal_id}") is not None
    fd = os.open(root / ".harnery" / "supervisors" / goal_id / "supervisor.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        time.sleep(2 * SETTLED_NS / 1e9)  # the lock file itself is new: let it settle
        harn(root, *show)
        assert cache.get(f"show~{goal_id}") is not None
        fcntl.flock(fd, fcntl.LOCK_EX)
        assert cache.get(f"show~{goal_id}") is None, "the loop's lease is held now: the entry no longer holds"
        assert harn(root, *show) == harn(root, *show, cache=False)
    finally:
        os.close(fd)
    assert cache.get(f"show~{goal_id}") is None, "released again"


def test_a_run_is_read_through_its_proof_and_directory_only(tree: tuple[Path, dict[str, Any]]) -> None:
    """A document reads a run's proof (and its finish note, which would be new in the directory): a proof that
    changes, or a run directory that becomes a link, is seen; the run's other files are not what it was read from."""
    root, goals = tree
    work_id = goals["review"]["frontier_work_id"]
    show, key = ("work", "show", work_id, "--json"), f"work~{work_id}"
    cache = ViewCache((root / ".harnery").absolute())
    before = harn(root, *show)
    run = root / ".harnery" / "runs" / json.loads(before[1])["attempts"][-1]["run_id"]
    assert cache.get(key) is not None
    with (run / "manifest.json").open("a") as manifest:
        manifest.write("\n")
    assert cache.get(key) is not None, "no document reads the manifest"
    proof = json.loads((run / "proof.json").read_text())
    proof["summary"] = "rewritten"
    (run / "proof.json").write_text(json.dumps(proof))
    assert cache.get(key) is None
    after = harn(root, *show)
    assert after == harn(root, *show, cache=False) != before
    assert json.loads(after[1])["attempts"][-1]["summary"] == "rewritten"
    time.sleep(2 * SETTLED_NS / 1e9)
    harn(root, *show)
    assert cache.get(key) is not None
    moved = root / "moved-run"
    run.rename(moved)
    run.symlink_to(moved)
    assert cache.get(key) is None
    assert harn(root, *show) == harn(root, *show, cache=False)


def damage(path: Path, outside: Path, kind: str) -> None:
    body = path.read_bytes()
    header, _, rest = body.partition(b"\n")
    forged = json.loads(rest)
    forged["document"]["state"] = "succeeded"
    forged_body = json.dumps(forged).encode()
    forged_entry = view_cache._header(forged_body) + b"\n" + forged_body
    if kind == "truncated":
        path.write_bytes(body[: len(body) // 2])
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "garbage":
        path.write_bytes(os.urandom(4096))
    elif kind == "document edited, digest kept":
        path.write_bytes(header + b"\n" + forged_body)
    elif kind == "document edited, digest redone, group-writable":
        path.write_bytes(forged_entry)
        path.chmod(0o664)
    elif kind == "another format":
        other = json.loads(rest)
        other["format"] = 2
        other_body = json.dumps(other).encode()
        path.write_bytes(view_cache._header(other_body) + b"\n" + other_body)
    elif kind == "another account's":
        path.write_bytes(forged_entry)
        os.chown(path, 65534, -1)
    elif kind == "a link to a forged entry":
        (outside / "forged").write_bytes(forged_entry)
        path.unlink()
        path.symlink_to(outside / "forged")
    elif kind == "a directory":
        path.unlink()
        path.mkdir()
    elif kind == "a pipe":
        path.unlink()
        os.mkfifo(path)
    else:
        assert kind == "3 GiB sparse"
        os.truncate(path, 3 << 30)


DAMAGES = (
    "truncated",
    "empty",
    "garbage",
    "document edited, digest kept",
    "document edited, digest redone, group-writable",
    "another format",
    "another account's",
    "a link to a forged entry",
    "a directory",
    "a pipe",
    "3 GiB sparse",
)


@pytest.mark.parametrize("kind", DAMAGES)
def test_a_damaged_foreign_or_hostile_entry_is_ignored_and_rewritten(
    tree: tuple[Path, dict[str, Any]],
    tmp_path: Path,
    kind: str,
) -> None:
    root, goals = tree
    if kind == "another account's" and os.getuid() != 0:
        pytest.skip("needs root to give a file to another account")
    goal_id = goals["review"]["id"]
    show = ("supervisor", "show", goal_id, "--json")
    truth = harn(root, *show, cache=False)
    harn(root, *show)
    path = entry(root, f"show~{goal_id}")
    outside = tmp_path / "outside"
    outside.mkdir()
    damage(path, outside, kind)
    assert harn(root, *show) == truth
    replaceable = kind != "a directory"
    cache = ViewCache((root / ".harnery").absolute())
    assert (cache.get(f"show~{goal_id}") == json.loads(truth[1])) is replaceable


def test_a_cache_directory_of_another_account_is_not_read(tree: tuple[Path, dict[str, Any]]) -> None:
    root, goals = tree
    goal_id = goals["review"]["id"]
    show = ("supervisor", "show", goal_id, "--json")
    harn(root, *show)
    cache = ViewCache((root / ".harnery").absolute())
    cache.directory.chmod(0o777)
    assert cache.get(f"show~{goal_id}") is None
    assert harn(root, *show) == harn(root, *show, cache=False)


@pytest.fixture(scope="module")
def fuzzed(built: tuple[Path, dict[str, Any]], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, bytes]:
    """A tree, one goal's show as the records read it, and its entry; each example damages a copy of the entry."""
    root = tmp_path_factory.mktemp("fuzzed") / "root"
    shutil.copytree(built[0], root, symlinks=True)
    goal_id = next(goal["id"] for goal in built[1]["goals"] if goal["kind"] == "approval")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(view_cache, "SETTLED_NS", 0)
        patch.delenv("HARN_NO_VIEW_CACHE", raising=False)
        harn(root, "supervisor", "show", goal_id, "--json")
    return root, goal_id, entry(root, f"show~{goal_id}").read_bytes()


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(data=st.data())
def test_any_damage_to_an_entry_reads_the_records(data: st.DataObject, fuzzed: tuple[Path, str, bytes]) -> None:
    root, goal_id, good = fuzzed
    show = ("supervisor", "show", goal_id, "--json")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(view_cache, "SETTLED_NS", 0)
        patch.delenv("HARN_NO_VIEW_CACHE", raising=False)
        truth = harn(root, *show, cache=False)
        body = bytearray(good)
        for _ in range(data.draw(st.integers(1, 4), label="damages")):
            kind = data.draw(st.sampled_from(["flip", "cut", "splice"]), label="kind")
            at = int(data.draw(st.floats(0.0, 1.0, exclude_max=True), label="at") * len(body))
            if kind == "flip":
                body[at] ^= 1 << data.draw(st.integers(0, 7), label="bit")
            elif kind == "cut":
                del body[max(at, 1) :]
            else:
                body[at:at] = data.draw(st.binary(min_size=1, max_size=64), label="bytes")
        entry(root, f"show~{goal_id}").write_bytes(bytes(body))
        assert harn(root, *show) == truth


WRITER = """
import sys
import time
from pathlib import Path
from harn_tui.core import view_cache
base, name, rounds = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
view_cache.SETTLED_NS = 0
cache = view_cache.ViewCache(base)
sources = view_cache.Sources(base)
sources.add("supervisors", recursive=True)
document = {"writer": name, "padding": name * 20000}
for _ in range(rounds):
    cache.put("raced", document, sources, time.time_ns())
"""


def test_writers_at_once_leave_one_whole_entry(tree: tuple[Path, dict[str, Any]]) -> None:
    root, _ = tree
    base = (root / ".harnery").absolute()
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER, str(base), name, "150"], env=harn_env())
        for name in ("a", "b", "c")
    ]
    cache, seen = ViewCache(base), set()
    while any(writer.poll() is None for writer in writers):
        document = cache.get("raced")
        if document is not None:
            assert document == {"writer": document["writer"], "padding": document["writer"] * 20000}
            seen.add(document["writer"])
    assert all(writer.wait() == 0 for writer in writers)
    assert seen, "no reader saw an entry"
    assert not [p for p in cache.directory.iterdir() if view_cache.TEMP_MARK in p.name]


def test_a_shared_tree_keeps_no_entry(tree: tuple[Path, dict[str, Any]]) -> None:
    """Its group can write `cache/`: any member could forge what another is shown."""
    root, goals = tree
    (root / ".harnery").chmod(0o2770)  # what `init --shared` makes of the base
    show = ("supervisor", "show", goals["review"]["id"], "--json")
    assert harn(root, *show) == harn(root, *show, cache=False)
    assert not (root / ".harnery" / "cache").exists() or not any((root / ".harnery" / "cache").iterdir())
