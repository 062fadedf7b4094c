"""`harn template new agent FILE ...`: the short script a goal freezes. It names every parameter literally and
calls one library entry point, so the file's sha256 freezes its parameters and the code lives in the library."""

from __future__ import annotations

import os
import pprint
import shlex
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harn_tui.agent.git import GitFailure
from harn_tui.agent.parameters import DEFAULT_MAX_DIFF_KB, AgentParameters
from harn_tui.agent.workspace import repository_of
from harn_tui.core.creation import load_team
from harn_tui.core.errors import Refused, UsageError
from harn_tui.core.journal import describe_validation

SCRIPT_MODE = 0o700
TEMPLATE_KINDS: dict[str, str] = {
    "agent": "a team member (the worker) does the work item in its own git workspace; the host commits, runs the "
    "frozen checks, has a second member (the judge) judge every criterion, and writes the proof",
}

SCRIPT = '''#!{interpreter}
"""A Harnery agent template, written by `harn template new agent`.

Every parameter is written here literally, so the sha256 a goal freezes covers them; the work itself is done by
the library (harn_tui.agent.run_agent_template). To change a parameter, write a new template with `harn template
new agent` (a goal created earlier keeps the template it froze)."""

from harn_tui.agent import AgentParameters, run_agent_template

PARAMETERS = AgentParameters(
{fields})

if __name__ == "__main__":
    raise SystemExit(run_agent_template(PARAMETERS))
'''


def template_list() -> dict[str, Any]:
    """`harn template list`: what `template new` can write."""
    return {"templates": [{"kind": kind, "description": text} for kind, text in TEMPLATE_KINDS.items()]}


def agent_parameters(
    *,
    worker: str,
    judge: str | None = None,
    team_file: Path | None = None,
    checks: Sequence[str] = (),
    ask_first: bool = False,
    workspace: str | None = None,
    base: str | None = None,
    agent_args: Sequence[str] = (),
    max_diff_kb: int = DEFAULT_MAX_DIFF_KB,
    where: Path,
) -> AgentParameters:
    """The parameters `template new` freezes, checked as bad input (2): members distinct, present in `--team`
    when it is given and not scripted; checks that split and whose bare command is on PATH; `--workspace git`
    only inside a git work tree (`where`, the script's directory)."""
    team = load_team(team_file) if team_file is not None else {}
    for member, what in ((worker, "--worker"), (judge, "--judge")):
        if member is not None and team_file is not None and member not in team:
            raise UsageError(f"{what} {member!r} is not a member of the team file {team_file}")
    embedded = {m: team[m] for m in (worker, judge) if m is not None and m in team}
    try:
        parameters = AgentParameters(
            worker=worker,
            judge=judge,
            team=embedded,
            checks=list(checks),
            ask_first=ask_first,
            workspace=workspace,
            base=base,
            agent_args=list(agent_args),
            max_diff_kb=max_diff_kb,
        )
    except ValidationError as error:
        raise UsageError(f"template new agent: {describe_validation(error)}") from None
    for argv in parameters.check_argvs():
        if "/" not in argv[0] and shutil.which(argv[0]) is None:
            raise UsageError(f"--check {shlex.join(argv)!r}: {argv[0]!r} is not a command on PATH")
    try:
        repository = repository_of(where) if workspace == "git" else None
    except GitFailure as error:
        raise UsageError(f"--workspace git: {error.message}") from None
    if workspace == "git" and repository is None:
        raise UsageError(f"--workspace git: {where} is not inside a git work tree")
    return parameters


def agent_script(parameters: AgentParameters, interpreter: str = sys.executable) -> str:
    """The script's text: `#!` the interpreter harn runs on, then every parameter as a Python literal."""
    values = parameters.model_dump(mode="json")
    values["team"] = {
        member: {k: v for k, v in profile.items() if v is not None} for member, profile in values["team"].items()
    }
    fields = "".join(f"    {name}={_literal(value)},\n" for name, value in values.items())
    return SCRIPT.format(interpreter=interpreter, fields=fields)


def _literal(value: Any) -> str:
    text = pprint.pformat(value, width=100, sort_dicts=False)
    return text.replace("\n", "\n    ")


def write_agent_template(path: Path, parameters: AgentParameters, interpreter: str = sys.executable) -> Path:
    """Write the script at `path` (mode 0700, its directory created); an existing file is refused (3)."""
    body = agent_script(parameters, interpreter).encode()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, SCRIPT_MODE)
    except FileExistsError:
        raise Refused(f"{path} already exists; template new never overwrites a file") from None
    try:
        os.write(fd, body)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(path, SCRIPT_MODE)
    return path
