"""The attempt an agent template runs in, read from the `HARN_*` variables the host sets."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from harn_tui.core.journal import describe_validation
from harn_tui.core.layout import HARNERY, Layout
from harn_tui.core.records import ApprovalDecision, AttemptManifest


class AttemptSetupError(Exception):
    """The template was not started the way the host starts templates (a variable missing, a manifest that does
    not parse): nothing can be proved, so the template exits non-zero and the host records the failure."""


@dataclass(frozen=True)
class AgentAttempt:
    """One attempt: its manifest, its scratch directory, where the proof goes, its deadline and, on a resume,
    the approval decided."""

    manifest: AttemptManifest
    run_id: str
    scratch: Path
    proof_path: Path
    deadline: datetime | None
    approval: Path | None
    approval_request: Path | None
    root: Path | None = None  # `HARN_ROOT`: how a template run outside its tree (on a Ray worker) finds it

    @property
    def layout(self) -> Layout | None:
        """The tree the run belongs to: the one its scratch sits in (`<root>/.harnery/runs/<id>/scratch`), else
        the one `HARN_ROOT` names, when it holds a `.harnery/`."""
        runs = self.scratch.parent.parent
        if runs.parent.name == HARNERY and runs.name == "runs":
            return Layout(runs.parent.parent)
        if self.root is not None and (self.root / HARNERY).is_dir():
            return Layout(self.root)
        return None

    @property
    def work_id(self) -> str:
        return self.manifest.work.id

    @property
    def resumed(self) -> bool:
        return self.approval is not None

    def seconds_left(self) -> float | None:
        """Until `HARN_DEADLINE`; None without one."""
        if self.deadline is None:
            return None
        return (self.deadline - datetime.now(UTC)).total_seconds()

    def decision(self) -> ApprovalDecision:
        assert self.approval is not None
        try:
            return ApprovalDecision.model_validate_json(self.approval.read_bytes())
        except (OSError, ValidationError) as error:
            raise AttemptSetupError(f"the approval decision {self.approval} cannot be read: {error}") from None

    @classmethod
    def from_environment(cls, env: Mapping[str, str] | None = None) -> AgentAttempt:
        env = os.environ if env is None else env
        missing = [name for name in ("HARN_MANIFEST", "HARN_RUN_DIR", "HARN_PROOF", "HARN_RUN_ID") if not env.get(name)]
        if missing:
            raise AttemptSetupError(f"not run by harn: {', '.join(missing)} not set")
        try:
            manifest = AttemptManifest.model_validate_json(Path(env["HARN_MANIFEST"]).read_bytes())
        except OSError as error:
            raise AttemptSetupError(f"the manifest {env['HARN_MANIFEST']} cannot be read: {error}") from None
        except ValidationError as error:
            raise AttemptSetupError(f"the manifest is invalid: {describe_validation(error)}") from None
        return cls(
            manifest=manifest,
            run_id=env["HARN_RUN_ID"],
            scratch=Path(env["HARN_RUN_DIR"]).resolve(),
            proof_path=Path(env["HARN_PROOF"]),
            deadline=_deadline(env.get("HARN_DEADLINE")),
            approval=Path(env["HARN_APPROVAL"]) if env.get("HARN_APPROVAL") else None,
            approval_request=Path(env["HARN_APPROVAL_REQUEST"]) if env.get("HARN_APPROVAL_REQUEST") else None,
            root=Path(env["HARN_ROOT"]) if env.get("HARN_ROOT") else None,
        )


def _deadline(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except ValueError:
        raise AttemptSetupError(f"HARN_DEADLINE {text!r} is not an ISO 8601 time") from None


class Clock:
    """What is left of the attempt, with a reserve kept for the steps after the worker (commit, checks, judge,
    proof): the worker gets at most what is left minus a quarter of it (at most `RESERVE_CAP_S`)."""

    RESERVE_CAP_S = 60.0

    def __init__(self, attempt: AgentAttempt) -> None:
        self.attempt = attempt
        self.started = time.monotonic()

    def left(self, fallback: float) -> float:
        left = self.attempt.seconds_left()
        return fallback if left is None else max(0.0, min(fallback, left))

    def for_worker(self, timeout_s: float) -> float:
        left = self.attempt.seconds_left()
        if left is None:
            return timeout_s
        return max(0.0, min(timeout_s, left - min(self.RESERVE_CAP_S, left / 4)))


def dump_json(path: Path, document: object) -> None:
    """A scratch file the template writes for itself or the host (the host re-validates what it reads)."""
    temp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    temp.write_text(json.dumps(document, ensure_ascii=False, indent=2) + "\n")
    os.replace(temp, path)
