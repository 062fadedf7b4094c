"""The install Python users do: `python -m build` makes an sdist and a wheel (from that sdist), the wheel goes
into a fresh virtual environment (not editable), and from another directory, with nothing of the checkout on
`sys.path`, the installed `harn` works: `--version`, `demo --no-tui`, `schema`, and the console in tmux with
its panels drawn (the stylesheets travel inside the wheel)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from harn_tui import __version__

REPO = Path(__file__).resolve().parents[2]
BUILD_TIMEOUT_S = 300

pytestmark = pytest.mark.timeout(2 * BUILD_TIMEOUT_S)


def clean_env(home: Path) -> dict[str, str]:
    """This machine's environment minus anything that would point Python or harn at the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HARN_", "PYTHON", "VIRTUAL_ENV")) and k != "PATH"}
    env.update(PATH=os.defpath, HOME=str(home), HARN_ACTOR="tester")
    return env


def run(
    argv: list[str | Path], *, cwd: Path, env: dict[str, str], timeout: float = BUILD_TIMEOUT_S
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [str(part) for part in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
    )
    assert result.returncode == 0, (argv, result.stdout[-2000:], result.stderr[-4000:])
    return result


def test_the_wheel_installs_into_a_fresh_venv_and_runs_from_elsewhere(tmp_path: Path) -> None:
    home = tmp_path / "home"
    elsewhere = tmp_path / "elsewhere"
    for directory in (home, elsewhere):
        directory.mkdir()
    env = clean_env(home)
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "build", "--outdir", dist, REPO], cwd=elsewhere, env=env)
    (wheel,) = dist.glob(f"harn_tui-{__version__}-*.whl")
    (sdist,) = dist.glob(f"harn_tui-{__version__}.tar.gz")
    with zipfile.ZipFile(wheel) as wheel_files, tarfile.open(sdist) as sdist_files:
        assert "harn_tui/styles/console.tcss" in wheel_files.namelist()
        assert f"harn_tui-{__version__}/styles/console.tcss" in sdist_files.getnames()

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], cwd=elsewhere, env=env)
    run([venv / "bin" / "python", "-m", "pip", "install", "--quiet", wheel], cwd=elsewhere, env=env)
    harn = venv / "bin" / "harn"
    where = run(
        [venv / "bin" / "python", "-c", "import harn_tui, sys; print(harn_tui.__file__); print(sys.path)"],
        cwd=elsewhere,
        env=env,
    ).stdout
    assert where.startswith(str(venv / "lib")), where
    assert str(REPO) not in where, "nothing of the checkout is on sys.path"

    assert run([harn, "--version"], cwd=elsewhere, env=env).stdout == f"harn {__version__}\n"
    demo = tmp_path / "demo"
    built = json.loads(run([harn, "demo", "--no-tui", demo, "--json"], cwd=elsewhere, env=env).stdout)
    assert len(built["goals"]) == 5 and built["problems"] == []
    schemas = json.loads(run([harn, "schema", "--json"], cwd=elsewhere, env=env).stdout)
    assert {"goal", "work", "proof"} <= set(schemas)
    copied = json.loads(run([harn, "examples", tmp_path / "files", "--json"], cwd=elsewhere, env=env).stdout)
    assert {"team.json", "replanning.json", "mission.json", "planner.py", "templates/fail.py"} <= set(copied["files"])
    console_in_tmux(harn, demo, elsewhere, env, tmp_path.name)


def console_in_tmux(harn: Path, root: Path, cwd: Path, env: dict[str, str], name: str) -> None:
    tmux = shutil.which("tmux")
    assert tmux is not None, "tmux is needed to see the installed console"
    base = [tmux, "-L", f"harn-wheel-{name}"]
    command = f"{harn} --root {root} tui --no-supervisor"
    subprocess.run(
        [*base, "new-session", "-d", "-s", "wheel", "-x", "120", "-y", "40", command], cwd=cwd, env=env, check=True
    )
    try:
        deadline = time.monotonic() + 60
        screen = ""
        while not all(panel in screen for panel in ("Goals", "Goal graph", "Plan history", "APPROVAL NEEDED")):
            assert time.monotonic() < deadline, f"the installed console did not draw its panels:\n{screen}"
            time.sleep(0.2)
            screen = subprocess.run(
                [*base, "capture-pane", "-p", "-t", "wheel"], capture_output=True, text=True, env=env
            ).stdout
        assert "Replace the lock-based job queue" in screen
        subprocess.run([*base, "send-keys", "-t", "wheel", "C-q"], env=env, check=True)
        while subprocess.run([*base, "has-session", "-t", "wheel"], capture_output=True, env=env).returncode == 0:
            assert time.monotonic() < deadline + 15, "ctrl+q did not end the installed console"
            time.sleep(0.2)
    finally:
        subprocess.run([*base, "kill-server"], capture_output=True, env=env)
