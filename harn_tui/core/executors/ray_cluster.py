"""The host's half of an attempt on Ray: connect to the cluster once, send each attempt as one task, relay what
it streams back into the run's transcript, and turn Ray's own failures into the attempt's outcome.

- Connecting: `ray.init(address=...)` with the address given, else `$RAY_ADDRESS`, else `"local"` (a Ray of this
  process's own, started for the invocation). A `host:port` address is first reached over TCP (a few seconds at
  most), so an unreachable cluster is reported at once instead of after Ray's own long retries.
- Each attempt is one streaming generator task (`ray_task.attempt_task`) with Ray's retries off (`max_retries=0`,
  `retry_exceptions=False`): it runs at most once. It asks for `$HARN_RAY_NUM_CPUS` CPUs (default 1) and the
  custom resources of `$HARN_RAY_RESOURCES` (a JSON object, e.g. `{"gpu-box": 1}`; default none), so an
  operator can steer attempts to nodes started with `ray start --resources`.
- The task enforces the timeout itself; 30 s after the deadline the host force-cancels it, which is recorded as
  a timeout (charged). The host's transcript reaching the output cap (or a refused transcript write) cancels it.
- Any other Ray error (a worker or node lost, an object lost, the task refused) is the attempt lost by the
  executor: `Ended.lost = "executor: <what Ray said>"`, a failed proof with class `environment` (uncharged).
- The process owning the tasks dying (harn killed) ends its Ray job; Ray then kills the job's workers, and each
  worker's template dies with it.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import logging
import os
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harn_tui.core.errors import UsageError
from harn_tui.core.executors import RAY_EXTRA, Ended, ExecutorUnavailable, TemplateRun
from harn_tui.core.executors.ray_task import attempt_task, default_sigchld
from harn_tui.core.sharing import open_new
from harn_tui.core.template_process import ProcessExit
from harn_tui.core.transcript import TranscriptWriter

FORCE_CANCEL_AFTER_S = 30.0
REACH_TIMEOUT_S = 5.0
SAID_MAX = 300


def import_ray() -> Any:
    """The `ray` module (the `ray` extra); without it a usage error naming the extra."""
    try:
        return importlib.import_module("ray")
    except ImportError:
        raise UsageError(f"--executor ray needs Ray, which is not installed: {RAY_EXTRA}") from None


def ray_said(error: BaseException) -> str:
    """What Ray said, on one bounded line: the error's type and its first non-empty line."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = f"{type(error).__name__}: {lines[0]}" if lines else type(error).__name__
    return text if len(text) <= SAID_MAX else text[: SAID_MAX - 3] + "..."


def _reach(address: str) -> None:
    """A `host:port` address accepts a TCP connection, or the cluster is unavailable."""
    if address in ("local", "auto") or "://" in address or ":" not in address:
        return
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host, int(port)), timeout=REACH_TIMEOUT_S):
            pass
    except (OSError, ValueError) as error:
        raise ExecutorUnavailable(f"the Ray cluster at {address} cannot be reached: {error}") from None


def _errors_to_stderr() -> None:
    """Ray's driver prints the cluster's error messages (a raylet died, ...) to stdout from a thread of its own,
    at any time; a harn command's stdout is its document. Those messages go to stderr instead. (The hook is
    Ray's private printer, pinned with Ray's version; should it move, the messages stay on stdout.)"""
    with contextlib.suppress(ImportError, AttributeError):
        worker = importlib.import_module("ray._private.worker")
        printer = worker.print_to_stdstream
        if getattr(printer, "harn_to_stderr", False):
            return

        def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
            printer({**data, "is_err": True}, ignore_prefix)

        to_stderr.harn_to_stderr = True  # type: ignore[attr-defined]
        worker.__dict__["print_to_stdstream"] = to_stderr


def resource_request() -> tuple[float, dict[str, float]]:
    """The CPUs and custom resources each attempt's task asks for (`$HARN_RAY_NUM_CPUS`, `$HARN_RAY_RESOURCES`)."""
    cpus = float(os.environ.get("HARN_RAY_NUM_CPUS", "1"))
    text = os.environ.get("HARN_RAY_RESOURCES", "").strip()
    try:
        resources = json.loads(text) if text else {}
        if not isinstance(resources, dict) or not all(
            isinstance(k, str) and isinstance(v, int | float) for k, v in resources.items()
        ):
            raise ValueError("not an object of numbers")
    except ValueError as error:
        raise UsageError(f"HARN_RAY_RESOURCES {text!r} is not a JSON object of resource amounts ({error})") from None
    return cpus, {k: float(v) for k, v in resources.items()}


class RayExecutor:
    """Attempts as Ray tasks on one cluster (see the module docstring); one per invocation, thread-safe."""

    name = "ray"

    def __init__(self, address: str | None = None) -> None:
        self.address = address or os.environ.get("RAY_ADDRESS") or "local"
        self._lock = threading.Lock()
        self._task: Any = None

    @property
    def connected(self) -> bool:
        return self._task is not None

    def connect(self) -> None:
        with self._lock:
            if self._task is not None:
                return
            ray = import_ray()
            _reach(self.address)
            options: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING}
            if self.address == "local":
                options["include_dashboard"] = False
            try:
                if not ray.is_initialized():
                    ray.init(address=self.address, **options)
            except Exception as error:  # Ray raises ConnectionError, RuntimeError, ValueError ... for one cause
                raise ExecutorUnavailable(
                    f"the Ray cluster at {self.address} cannot be reached: {ray_said(error)}"
                ) from None
            default_sigchld()  # this process's own children (planners, local templates) keep their exit codes
            _errors_to_stderr()
            self._task = ray.remote(attempt_task)

    def run(self, job: TemplateRun, transcript: TranscriptWriter, on_start: Callable[[], None]) -> Ended:
        try:
            self.connect()
        except ExecutorUnavailable as error:
            return Ended(ProcessExit(None), lost=f"executor: {error.message}")
        ray = import_ray()
        cpus, resources = resource_request()
        generator = self._task.options(
            num_returns="streaming",
            max_retries=0,
            retry_exceptions=False,
            num_cpus=cpus,
            resources=resources,
        ).remote(_spec(job, transcript.cap_bytes))
        forced = threading.Event()

        def cancel(force: bool) -> None:
            if force:
                forced.set()
            with contextlib.suppress(Exception):
                ray.cancel(generator, force=force)

        transcript.on_cap = lambda: cancel(False)
        watchdog = threading.Timer(job.timeout_s + FORCE_CANCEL_AFTER_S, cancel, args=(True,))
        watchdog.daemon = True
        watchdog.start()
        try:
            end = _relay(ray, generator, transcript, on_start)
        except ray.exceptions.RayError as error:
            if forced.is_set():
                return Ended(ProcessExit(None, timed_out=True))
            if transcript.capped:
                return Ended(ProcessExit(None, output_capped_at=transcript.cap_bytes))
            return Ended(ProcessExit(None), lost=f"executor: {ray_said(error)}")
        finally:
            watchdog.cancel()
        if transcript.capped and (end is None or end.get("lost")):
            # the host's cap cancelled the task, which may end its stream without an error or a last item
            return Ended(ProcessExit(None, output_capped_at=transcript.cap_bytes))
        if end is None:
            return Ended(ProcessExit(None), lost="executor: the task ended without a result")
        if end.get("lost"):
            return Ended(ProcessExit(None), lost=f"executor: {end['lost']}")
        for name, body in end["files"].items():
            _place(job.scratch / name, body)
        ended = ProcessExit(**end["exit"])
        if transcript.capped and ended.output_capped_at is None:
            ended = ProcessExit(ended.returncode, output_capped_at=transcript.cap_bytes)
        return Ended(ended)


def _relay(ray: Any, generator: Any, transcript: TranscriptWriter, on_start: Callable[[], None]) -> Any:
    """Write each streamed line into the transcript as it arrives; the task's last item."""
    end = None
    for ref in generator:
        item = ray.get(ref)
        kind = item["kind"]
        if kind == "lines":
            for stream, head, size, digest in item["lines"]:
                transcript.record(stream, head, size, digest)
        elif kind == "started":
            on_start()
        elif kind == "end":
            end = item
    return end


def _spec(job: TemplateRun, cap_bytes: int) -> dict[str, Any]:
    """What travels with the task: the template's bytes and digest, the run's contract, the files it reads."""
    contract = dict(job.contract)
    approval = contract.pop("HARN_APPROVAL", None)
    request = contract.pop("HARN_APPROVAL_REQUEST", None)
    manifest = contract.pop("HARN_MANIFEST")
    for moved in ("HARN_RUN_DIR", "HARN_PROOF"):
        contract.pop(moved, None)
    return {
        "run_id": job.run_id,
        "name": Path(job.template_path).name,
        "body": job.body,
        "sha256": job.sha256,
        "contract": contract,
        "manifest": Path(manifest).read_bytes(),
        "timeout_s": job.timeout_s,
        "cap_bytes": cap_bytes,
        "root": str(job.root),
        "approval": Path(approval).read_bytes() if approval else None,
        "approval_request": Path(request).read_bytes() if request else None,
    }


def _place(path: Path, body: bytes) -> None:
    """An outcome file the template left on the worker, written where the host judges it (the tree's mode)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    fd = open_new(path, os.O_WRONLY | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC)
    with os.fdopen(fd, "wb") as handle:
        handle.write(body)
