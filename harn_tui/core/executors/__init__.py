"""Where a template process runs: the executor interface, the local executor, and choosing one per invocation.

An executor runs one template process for the host and says how it ended. The host keeps everything else: the
manifest, `attempt.started`/`attempt.finished`, the run lease, the transcript file, proof validation, parking,
resuming, timeouts and charging. The executor is chosen per invocation (`--executor local|ray`), never frozen in
a goal: the same goal may run one attempt here and the next on a cluster.

- `local` runs the template as a child of this process (`template_process`), in the run's own scratch directory.
- `ray` (`harn_tui.core.executors.ray`, needs the `ray` extra) runs it as a Ray task on a cluster: the
  template's bytes travel with the task, the transcript streams back line by line, the proof and approval
  request come back as bytes into the run's scratch directory, where the host judges them as locally.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from harn_tui.core.errors import Refused, UsageError
from harn_tui.core.template_process import ProcessExit, run_template
from harn_tui.core.transcript import TranscriptWriter

EXECUTORS = ("local", "ray")
RAY_EXTRA = "pip install 'harn_tui[ray]'"
# what the host never passes on to a template, whatever runs it
HIDDEN_ENV = ("HARN_APPROVAL", "HARN_APPROVAL_REQUEST", "HARN_FAULT", "HARN_FAULT_TRACE")


class ExecutorUnavailable(Refused):
    """The executor cannot take an attempt (the cluster is unreachable); nothing was recorded (exit 3)."""

    code = "executor_unavailable"


@dataclass(frozen=True)
class TemplateRun:
    """One run of a template, as any executor needs it.

    `body` is the template's bytes, read and hashed against `sha256` by the host before `attempt.started`.
    `contract` holds the `HARN_*` variables of the run with this machine's paths (`HARN_MANIFEST`,
    `HARN_RUN_DIR`, `HARN_PROOF`, `HARN_RUN_ID`, `HARN_DEADLINE`, and on a resume `HARN_APPROVAL` and
    `HARN_APPROVAL_REQUEST`). The outcome files a template leaves (proof, approval request) are found in
    `scratch` once `run` returns, wherever the template ran. `root` is the tree's root: a template run
    elsewhere than in `scratch` finds its tree (and its repository) through it."""

    run_id: str
    template_path: str
    sha256: str
    body: bytes
    scratch: Path
    contract: Mapping[str, str]
    timeout_s: float
    root: Path


@dataclass(frozen=True)
class Ended:
    """How a run ended: the process's exit, or `lost` (the executor lost the process: a dead worker or node, a
    refused task), which is a failed proof with class `environment`, uncharged."""

    process: ProcessExit
    lost: str | None = None


class Executor(Protocol):
    """Runs template processes for the host; thread-safe (a tick runs its attempts from several threads)."""

    name: str

    @property
    def connected(self) -> bool:
        """True once `connect` succeeded (always, for an executor with nothing to connect to)."""
        ...

    def connect(self) -> None:
        """Be ready to run (a cluster: connect to it). Idempotent; raises ExecutorUnavailable, before any
        attempt is recorded, when it cannot be."""

    def run(self, job: TemplateRun, transcript: TranscriptWriter, on_start: Callable[[], None]) -> Ended:
        """Run `job`'s template to its end (exit, timeout, output cap), streaming its lines into `transcript`;
        `on_start` is called once the process runs."""
        ...


class LocalExecutor:
    """The template as a child process of this one: environment inherited plus the run's contract."""

    name = "local"
    connected = True

    def connect(self) -> None:
        return None

    def run(self, job: TemplateRun, transcript: TranscriptWriter, on_start: Callable[[], None]) -> Ended:
        env = {k: v for k, v in os.environ.items() if k not in HIDDEN_ENV}
        env.update(job.contract)
        ended = run_template(
            job.template_path,
            cwd=job.scratch,
            env=env,
            timeout_s=job.timeout_s,
            transcript=transcript,
            on_start=on_start,
        )
        return Ended(ended)


LOCAL: Executor = LocalExecutor()


def ray_installed() -> bool:
    """The `ray` extra is importable (looked up, not imported: importing Ray takes a second)."""
    try:
        return importlib.util.find_spec("ray") is not None
    except (ImportError, ValueError):  # a finder that refuses it, a module blocked as None in sys.modules
        return False


def check_executor_choice(name: str | None, ray_address: str | None) -> None:
    """The pure checks of `--executor` / `--ray-address` (UsageError, exit 2): an address needs `--executor
    ray`, and `ray` needs the extra installed."""
    if ray_address is not None and name != "ray":
        raise UsageError("--ray-address needs --executor ray")
    if name == "ray" and not ray_installed():
        raise UsageError(f"--executor ray needs Ray, which is not installed: {RAY_EXTRA}")


def select_executor(name: str | None, ray_address: str | None = None) -> Executor:
    """The executor of this invocation: `local` (the default) or a Ray executor for `ray_address`, else
    `$RAY_ADDRESS`, else a local Ray started for the invocation. Nothing connects until the first dispatch."""
    check_executor_choice(name, ray_address)
    if name in (None, "local"):
        return LOCAL
    if name != "ray":
        raise UsageError(f"unknown executor {name!r}: one of {', '.join(EXECUTORS)}")
    from harn_tui.core.executors.ray_cluster import RayExecutor

    return RayExecutor(ray_address)


__all__ = [
    "EXECUTORS",
    "HIDDEN_ENV",
    "LOCAL",
    "Ended",
    "Executor",
    "ExecutorUnavailable",
    "LocalExecutor",
    "TemplateRun",
    "check_executor_choice",
    "select_executor",
]
