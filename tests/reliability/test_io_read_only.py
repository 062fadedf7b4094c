"""Reads need no write: on a tree read-only to its user (`chmod -R a-w`, the commands run as `nobody` through
`setpriv`, since root ignores modes) and on a read-only bind mount, every read verb prints what it prints on
the writable tree, and the console runs (presence off, saying why; a form says writes are refused). A
transition is exit 6 naming the path and the system's reason, and writes nothing."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.creation import init_tree
from harn_tui.core.layout import Layout
from tests.reliability.conftest import Figures
from tests.reliability.crash_kit import snapshot
from tests.reliability.read_only_kit import NOBODY, READS, WRITES, run_reads, run_writes
from tests.tui import scenarios as s

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture
def tree() -> Iterator[Path]:
    """A tree with every kind of decision, a corrupt goal and git attempts, owned by `nobody`, in a directory
    anyone may enter (built in place: records name the repository's absolute path)."""
    base = Path(tempfile.mkdtemp(prefix="harn-read-only-"))
    base.chmod(0o755)
    root = base / "root"
    root.mkdir()
    init_tree(root)
    layout = Layout(root)
    s.everything(layout)
    s.agents_goal(layout)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(root)], check=True)
    try:
        yield root
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(root)], check=False)
        shutil.rmtree(base, ignore_errors=True)


def as_nobody(*argv: str) -> Any:
    """`python -m tests.reliability.read_only_kit ARGV...` as `nobody` (setpriv): a fresh interpreter, so that
    every module it imports is one `nobody` may read; returns the JSON document it prints."""
    python, env = nobody_python()
    done = subprocess.run(
        [
            "setpriv",
            f"--reuid={NOBODY}",
            f"--regid={NOBODY}",
            "--clear-groups",
            python,
            "-m",
            "tests.reliability.read_only_kit",
            *argv,
        ],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@functools.cache
def nobody_python() -> tuple[str, dict[str, str]]:
    """An interpreter `nobody` may run (and start again: the console's watcher is a child process) that imports
    this checkout: the test's own, else the system's python3 of the same version given this venv's packages
    (a venv built from a python under /root, which `nobody` may not enter)."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to run the commands as another user")
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARN_")}
    env.update(HOME="/tmp", PYTHONPATH=os.pathsep.join([str(REPOSITORY), sysconfig.get_paths()["purelib"]]))
    probe = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import harn_tui, textual'], check=True)"
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    for python in (sys.executable, f"/usr/bin/{version}"):
        done = subprocess.run(
            ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", python, "-c", probe],
            cwd=REPOSITORY,
            capture_output=True,
            env=env,
            timeout=60,
        )
        if done.returncode == 0:
            return python, env
    pytest.skip(f"no {version} that user {NOBODY} may run (and that imports this checkout)")


def listing(root: Path) -> list[str]:
    """Every name under `.harnery/` (leases, presence, temporary files included)."""
    return sorted(str(p.relative_to(root)) for p in (root / ".harnery").rglob("*"))


def require_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("the read-only tests switch to another user and mount: they need root (CI runs as root)")


def check_refused(found: dict[str, tuple[int, str]], root: Path, reason: str) -> None:
    for verb, (code, stdout) in found.items():
        assert code == 6, (verb, stdout)
        error = json.loads(stdout)["error"]
        assert error["code"] == "io" and error["message"].startswith(f"cannot write {root}/.harnery/"), error
        assert error["message"].endswith(reason) and "\n" not in error["message"], error


def test_every_read_verb_works_on_a_tree_its_user_may_not_write(tree: Path, figures: Figures) -> None:
    require_root()
    writable = as_nobody("reads", str(tree))
    codes = {verb: code for verb, (code, _) in writable.items()}
    assert {verb for verb, code in codes.items() if code != 0} == {"verify", f"supervisor show {s.CORRUPT_GOAL}"}, codes
    before, names = snapshot(tree), listing(tree)
    subprocess.run(["chmod", "-R", "a-w", str(tree)], check=True)
    assert as_nobody("reads", str(tree)) == writable
    check_refused(as_nobody("writes", str(tree)), tree, "Permission denied (EACCES)")
    assert (snapshot(tree), listing(tree)) == (before, names), "a read or a refused write changed the tree"
    figures.add("io: read verbs run on a read-only tree (chmod -R a-w, bind mount)", len(READS))
    figures.add("io: transitions refused on a read-only tree (chmod -R a-w, bind mount)", len(WRITES))


def test_every_read_verb_works_on_a_read_only_bind_mount(tree: Path, figures: Figures) -> None:
    require_root()
    writable = run_reads(tree)
    before, names = snapshot(tree), listing(tree)
    mounted = subprocess.run(["mount", "--bind", str(tree), str(tree)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {mounted.stderr.strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(tree)], check=True)
        assert run_reads(tree) == writable
        check_refused(run_writes(tree), tree, "Read-only file system (EROFS)")
        assert (snapshot(tree), listing(tree)) == (before, names)
    finally:
        subprocess.run(["umount", "-l", str(tree)], check=False)
    figures.add("io: read verbs run on a read-only tree (chmod -R a-w, bind mount)", len(READS))
    figures.add("io: transitions refused on a read-only tree (chmod -R a-w, bind mount)", len(WRITES))


def test_the_console_runs_on_a_tree_its_user_may_not_write(tree: Path) -> None:
    """As `nobody` on the chmod'ed copy, with the watcher, presence and the embedded supervisor on: the goals
    show, the header says presence is off and why, the reject form says writes are refused before any typing,
    and the submit is refused verbatim; the console is still running at the end."""
    require_root()
    subprocess.run(["chmod", "-R", "a-w", str(tree)], check=True)
    before = snapshot(tree)
    seen = as_nobody("console", str(tree))
    denied = "Permission denied (EACCES)"
    assert seen["goals"] >= 5
    assert seen["presence_off"].startswith(f"cannot write {tree}/.harnery/presence/") and denied in seen["presence_off"]
    assert "presence off: cannot write" in seen["header"]
    assert seen["banner"].startswith(f"writes are refused: cannot write {tree}/.harnery") and denied in seen["banner"]
    assert any(
        n.startswith(f"error|refused: reject plan {s.PENDING_PLAN}|cannot write {tree}/.harnery/")
        and n.endswith(denied)
        for n in seen["notices"]
    ), seen["notices"]
    assert seen["running"]
    assert snapshot(tree) == before
