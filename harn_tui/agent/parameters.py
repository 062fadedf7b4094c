"""The agent template's frozen parameters: what `harn template new agent` writes literally into the script."""

from __future__ import annotations

import shlex
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from harn_tui.core.records import SpecialistProfile
from harn_tui.core.records.common import Id

DEFAULT_MAX_DIFF_KB = 256
Check = Annotated[str, StringConstraints(min_length=1, max_length=4000)]


class AgentParameters(BaseModel):
    """One agent template's parameters.

    - `worker` / `judge`: team members (looked up in the manifest's team, then in `team`); they must differ.
    - `team`: profiles embedded with `template new --team FILE` (paths already frozen absolute).
    - `checks`: each one argv written as a string (shell rules split it; it runs without a shell).
    - `ask_first`: have the worker's plan approved before it edits anything.
    - `workspace`: `git`, `none`, or None for "git when the tree's root is inside a git work tree".
    - `base`: the ref a first attempt starts from (default: the repository's HEAD when the attempt starts).
    - `agent_args`: frozen arguments added to the worker's CLI.
    - `max_diff_kb`: the most of the diff the judge is shown.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    worker: Id
    judge: Id | None = None
    team: dict[Id, SpecialistProfile] = Field(default_factory=dict)
    checks: list[Check] = Field(default_factory=list, max_length=50)
    ask_first: bool = False
    workspace: Literal["git", "none"] | None = None
    base: Annotated[str, StringConstraints(min_length=1, max_length=255)] | None = None
    agent_args: list[Annotated[str, StringConstraints(max_length=4000)]] = Field(default_factory=list, max_length=50)
    max_diff_kb: Annotated[int, Field(ge=1, le=65_536)] = DEFAULT_MAX_DIFF_KB

    @field_validator("checks")
    @classmethod
    def _checks_split(cls, checks: list[str]) -> list[str]:
        for check in checks:
            try:
                argv = shlex.split(check)
            except ValueError as error:
                raise ValueError(f"check {check!r} does not split with shell rules: {error}") from None
            if not argv:
                raise ValueError(f"check {check!r} is empty")
        return checks

    @model_validator(mode="after")
    def _distinct_members(self) -> AgentParameters:
        if self.judge is not None and self.judge == self.worker:
            raise ValueError(f"the worker and the judge must be different team members (both are {self.worker!r})")
        for member in (self.worker, self.judge):
            profile = self.team.get(member or "")
            if profile is not None and profile.adapter == "scripted":
                raise ValueError(f"{member!r} is a scripted profile, which cannot be a worker or a judge")
        return self

    def check_argvs(self) -> list[list[str]]:
        return [shlex.split(check) for check in self.checks]
