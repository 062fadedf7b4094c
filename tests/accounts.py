"""Real Unix accounts for the shared-tree tests: a group, two members and an outsider, and a Python they can run.

The accounts are created with `groupadd`/`useradd` (so the tests need root, as CI has; elsewhere they are
skipped, saying why) and removed afterwards. Each command runs as its account through `setpriv` with that
account's groups, its own HOME and an explicit umask. The project's interpreter may live where other accounts
cannot go (a pyenv under /root, a checkout under a private home): then the interpreter's prefix, the installed
packages and this checkout's `harn_tui` are linked (or copied) into a world-readable directory first.
"""

from __future__ import annotations

import compileall
import json
import os
import secrets
import shutil
import stat
import subprocess
import sys
import sysconfig
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harn_tui

TOOLS = ("groupadd", "groupdel", "useradd", "userdel", "setpriv")
PROJECT = Path(harn_tui.__file__).resolve().parent
DEMO_ASSETS = PROJECT / "demo"


def unavailable() -> str | None:
    """Why real accounts cannot be made here, or None."""
    if sys.platform != "linux":
        return "real-account tests need Linux (setpriv, useradd)"
    if os.geteuid() != 0:
        return "real-account tests create Unix users and a group: they need root (CI runs as root)"
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"real-account tests need {', '.join(missing)} (util-linux, passwd)"
    return None


@dataclass(frozen=True)
class Account:
    name: str
    uid: int
    gid: int
    home: Path


@dataclass
class Accounts:
    """A group, its two members (`alice`, `bob`: the test's names for them) and `carol`, outside the group."""

    group: str
    gid: int
    alice: Account
    bob: Account
    carol: Account
    base: Path
    python: str
    pythonpath: str
    library_path: str
    created: list[str] = field(default_factory=list)

    def env(self, account: Account, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        env = {
            "PATH": f"{Path(self.python).parent}:/usr/local/bin:/usr/bin:/bin",
            "HOME": str(account.home),
            "USER": account.name,
            "LOGNAME": account.name,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "PYTHONPATH": self.pythonpath,
            "PYTHONDONTWRITEBYTECODE": "1",
            "HARN_LEASE_TIMEOUT_S": "20",
            "HARN_SERVER_IDLE_S": "60",
            "TERM": os.environ.get("TERM", "xterm-256color"),
        }
        if self.library_path:
            env["LD_LIBRARY_PATH"] = self.library_path
        env.update(extra or {})
        return env

    def argv(self, account: Account, command: Sequence[str]) -> list[str]:
        return ["setpriv", f"--reuid={account.uid}", f"--regid={account.gid}", "--init-groups", "--", *command]

    def run(
        self,
        account: Account,
        command: Sequence[str],
        *,
        umask: int = 0o022,
        env: Mapping[str, str] | None = None,
        timeout: float = 120,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            self.argv(account, command),
            capture_output=True,
            text=True,
            env=self.env(account, env),
            timeout=timeout,
            umask=umask,
            cwd=cwd or account.home,
            check=False,
        )

    def harn(
        self, account: Account, root: Path, *args: str, umask: int = 0o022, env: Mapping[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        return self.run(account, [self.python, "-m", "harn_tui", "--root", str(root), *args], umask=umask, env=env)

    def harn_json(
        self,
        account: Account,
        root: Path,
        *args: str,
        expect: int = 0,
        umask: int = 0o022,
        env: Mapping[str, str] | None = None,
    ) -> Any:
        done = self.harn(account, root, *args, "--json", umask=umask, env=env)
        assert done.returncode == expect, (account.name, args, done.returncode, done.stdout, done.stderr)
        return json.loads(done.stdout)

    def shell_command(self, account: Account, command: Sequence[str], umask: int = 0o022) -> list[str]:
        """`command` as `account` with its environment, for a terminal (tmux) to start."""
        env = [f"{key}={value}" for key, value in self.env(account).items()]
        return ["env", "-i", *env, "sh", "-c", f'umask {umask:03o} && exec "$@"', "sh", *self.argv(account, command)]


def create_accounts(base: Path) -> Iterator[Accounts]:
    """Make the group and the three accounts, and a runtime they can use under `base`; remove them after."""
    suffix = secrets.token_hex(3)
    group = f"hpair{suffix}"
    created: list[str] = []
    try:
        _run("groupadd", group)
        created.append(f"group:{group}")
        gid = int(_run("getent", "group", group).split(":")[2])
        accounts: dict[str, Account] = {}
        for short, member in (("a", True), ("b", True), ("c", False)):
            name = f"h{short}{suffix}"
            home = base / "home" / name
            _run(
                "useradd",
                "--no-create-home",
                "--no-user-group",
                "--home-dir",
                str(home),
                "--shell",
                "/bin/sh",
                *(["--groups", group] if member else []),
                name,
            )
            created.append(f"user:{name}")
            entry = _run("getent", "passwd", name).split(":")
            home.mkdir(parents=True)
            os.chown(home, int(entry[2]), int(entry[3]))
            home.chmod(0o700)
            accounts[short] = Account(name, int(entry[2]), int(entry[3]), home)
        python, pythonpath, library_path = _runtime(base / "runtime", accounts["a"])
        yield Accounts(
            group, gid, accounts["a"], accounts["b"], accounts["c"], base, python, pythonpath, library_path, created
        )
    finally:
        for made in reversed(created):
            kind, name = made.split(":")
            if kind == "user":  # --force: even if a process of it is still ending (a console's tmux pane)
                subprocess.run(["userdel", "--force", name], capture_output=True, check=False)
            else:
                subprocess.run(["groupdel", name], capture_output=True, check=False)


def _run(*argv: str) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return done.stdout.strip()


def _runtime(directory: Path, probe: Account) -> tuple[str, str, str]:
    """(python, PYTHONPATH, LD_LIBRARY_PATH) another account can use to run this checkout's harn_tui."""
    directory.mkdir(parents=True)
    lib = directory / "lib"
    purelib = Path(sysconfig.get_paths()["purelib"])
    lib.mkdir()
    for entry in purelib.iterdir():
        if entry.name.startswith(("harn_tui", "__editable__", "_editable_impl")) or entry.suffix == ".pth":
            continue
        _link_tree(entry, lib / entry.name)
    _link_tree(PROJECT, lib / "harn_tui", ignore=shutil.ignore_patterns("__pycache__"))
    styles = PROJECT.parent / "styles"
    if styles.is_dir() and not (lib / "harn_tui" / "styles").exists():
        _link_tree(styles, lib / "harn_tui" / "styles")
    compileall.compile_dir(str(lib / "harn_tui"), quiet=1)
    _open_up(directory)
    python = str(Path(sys.executable).absolute())
    same = f"import sys; sys.exit(sys.version != {sys.version!r})"  # the very interpreter, not one found instead
    if not _can_run(probe, [python, "-I", "-c", same]):
        python = _copy_interpreter(directory / "python")
    library = str(directory / "python" / "lib") if (directory / "python").exists() else ""
    return python, str(lib), library


def _copy_interpreter(prefix: Path) -> str:
    """The base interpreter's executable, shared library and standard library (no site-packages, no tests)."""
    base = Path(sys.base_prefix)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    (prefix / "bin").mkdir(parents=True)
    executable = Path(sys._base_executable).resolve()  # type: ignore[attr-defined]
    _link_file(executable, prefix / "bin" / version)
    (prefix / "bin" / "python3").symlink_to(version)
    (prefix / "lib").mkdir()
    for shared in (base / "lib").glob("libpython*.so*"):
        _link_file(shared.resolve(), prefix / "lib" / shared.name)
    _link_tree(
        base / "lib" / version,
        prefix / "lib" / version,
        ignore=shutil.ignore_patterns(
            "site-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3"
        ),
    )
    (prefix / "lib" / version / "site-packages").mkdir()
    _open_up(prefix)
    return str(prefix / "bin" / version)


def _link_file(source: Path, target: Path) -> None:
    """A hard link when every account may already read (and, for a program, run) `source`, else a copy made so:
    a link shares the source's inode, whose mode is never changed here."""
    mode = source.stat().st_mode
    readable = mode & stat.S_IROTH and (not mode & stat.S_IXUSR or mode & stat.S_IXOTH)
    try:
        if not readable:
            raise PermissionError
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
        target.chmod(stat.S_IMODE(mode) | 0o444 | (0o111 if mode & stat.S_IXUSR else 0))


def _link_tree(source: Path, target: Path, ignore: Any = None) -> None:
    if source.is_dir():
        shutil.copytree(
            source,
            target,
            symlinks=True,
            ignore=ignore,
            dirs_exist_ok=True,
            copy_function=lambda s, t: _link_file(Path(s), Path(t)),
        )
    else:
        _link_file(source, target)


def _open_up(directory: Path) -> None:
    """Every directory from `/` down to `directory`, and under it, enterable and readable by all (the files
    were made readable as they were linked or copied)."""
    for parent in (*reversed(directory.parents), directory):
        if not parent.stat().st_mode & stat.S_IXOTH:
            raise RuntimeError(f"{parent} is not enterable by other accounts; put the test's base elsewhere")
    for path in (directory, *directory.rglob("*")):
        if path.is_dir() and not path.is_symlink():
            path.chmod(0o755)


def _can_run(account: Account, command: Sequence[str]) -> bool:
    argv = ["setpriv", f"--reuid={account.uid}", f"--regid={account.gid}", "--init-groups", "--", *command]
    done = subprocess.run(
        argv,
        capture_output=True,
        env={"PATH": "/usr/bin:/bin", "HOME": str(account.home)},
        cwd=account.home,
        check=False,
    )
    return done.returncode == 0
