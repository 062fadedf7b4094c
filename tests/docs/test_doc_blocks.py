"""The guide tests itself: every shell block in README.md and docs/guide/ runs against the installed `harn`.

Sybil finds the blocks. A ```sh block runs as one bash script (`set -e`) and must exit 0. A ```console block is
a session: each `$ ` line is a command, the lines under it the output it shows. The whole session runs in one
bash (so a variable set by one command reaches the next), stdout and stderr together, and each command's output
must match what the page shows (`…` stands for any text within a line, a line of `…` alone for any lines) and
its exit code must be 0, or non-zero when the shown output starts `harn: ` (a refusal). The console blocks of a
page run in order, each starting where the one before it ended: its directory, shell functions and variables
carry over, as in the reader's terminal. A block a reader would
not run as it stands (it installs, needs root or a cluster, opens the console, or shows a session on goals the
page does not set up) is marked illustrative with `<!-- skip: next "illustrative: WHY" -->` before it.

Each page runs in its own new directory holding `.venv` (this interpreter's environment, so `.venv/bin/harn` is
the installed CLI) and `tests/fixtures/examples`, as a checkout has them.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from unittest import SkipTest

import pytest
from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, SkipParser

CHECKOUT = Path(__file__).resolve().parents[2]
PAGES = [CHECKOUT / "README.md", *sorted((CHECKOUT / "docs" / "guide").glob("*.md"))]
MARK = "<<<harn-doc-command-exit"
TIMEOUT_S = 120


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("HARN_")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _bash(script: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        stdin=subprocess.DEVNULL,
    )


def run_sh(example: Example) -> str | None:
    done = _bash("set -e -o pipefail\n" + str(example.parsed), example.namespace["cwd"])
    if done.returncode != 0:
        return f"exit {done.returncode}\n{done.stdout}{done.stderr}"
    return None


def _session(text: str) -> list[tuple[str, list[str]]]:
    """[(command, the output lines shown under it)]; a command continued with a trailing backslash is joined."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        if not line.startswith("$ "):
            if not steps:
                raise ValueError(f"a console block must start with a `$ ` command, not {line!r}")
            steps[-1][1].append(line)
            continue
        command = line[2:]
        while command.endswith("\\") and index < len(lines):
            command += "\n" + lines[index]
            index += 1
        steps.append((command, []))
    return steps


def _pattern(shown: list[str]) -> re.Pattern[str]:
    parts = [
        r"(?:.*\n)*?" if line.strip() == "…" else re.escape(line.rstrip()).replace("…", r"[^\n]*?") + r"\n"
        for line in shown
    ]
    return re.compile("".join(parts))


def _carried(state: Path, script: str) -> str:
    """`script` run in the shell state (directory, functions, variables) the page's previous session left in
    `state`, and leaving its own there. Only what the page set is kept: not bash's own variables."""
    base = "declare -A __base; for __v in $(compgen -v); do __base[$__v]=1; done\n"
    keep = (
        '{ declare -f; for __v in $(compgen -v); do [[ $__v == __* || -n ${__base[$__v]} ]] || declare -p "$__v";'
        " done; printf 'cd %q\\n' \"$PWD\"; }"
    )
    return f"{base}[ -f {state} ] && . {state}\n{script}{keep} >{state}.new 2>/dev/null && mv {state}.new {state}\n"


def run_console(example: Example) -> str | None:
    steps = _session(str(example.parsed))
    script = "exec 2>&1\n" + "".join(f"{command}\nprintf '\\n{MARK} %s\\n' $?\n" for command, _ in steps)
    script = _carried(example.namespace["shell_state"], script)
    merged = _bash(script, example.namespace["cwd"]).stdout
    pieces = re.split(rf"\n{MARK} (\d+)\n", merged)  # [output, code, output, code, ..., the rest]
    for number, (command, shown) in enumerate(steps):
        if 2 * number + 1 >= len(pieces):
            return f"`{command}` did not finish:\n{merged}"
        output, code = pieces[2 * number], int(pieces[2 * number + 1])
        if (code != 0) != (bool(shown) and shown[0].startswith("harn: ")):
            return f"`{command}` exited {code}:\n{output}"
        got = "".join(line.rstrip() + "\n" for line in output.strip("\n").splitlines())
        if not _pattern(shown).fullmatch(got):
            return f"`{command}` printed:\n{got}the page shows:\n" + "\n".join(shown)
    return None


SYBIL = Sybil(parsers=[CodeBlockParser("sh", run_sh), CodeBlockParser("console", run_console), SkipParser()])


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(CHECKOUT)) for p in PAGES])
def test_every_shell_block_of_the_page_runs_as_shown(page: Path, tmp_path: Path) -> None:
    cwd = tmp_path / "page"
    (cwd / "tests" / "fixtures").mkdir(parents=True)
    (cwd / ".venv").symlink_to(Path(sys.prefix))
    (cwd / "tests" / "fixtures" / "examples").symlink_to(CHECKOUT / "tests" / "fixtures" / "examples")
    document = SYBIL.parse(page)
    document.namespace["cwd"] = cwd
    document.namespace["shell_state"] = tmp_path / "shell-state"
    for example in document:
        try:
            example.evaluate()
        except SkipTest as marked:
            assert str(marked).startswith("illustrative: "), f"{page}:{example.line}: {marked}"
