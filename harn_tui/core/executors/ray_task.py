"""The worker's half of an attempt on Ray: one streaming generator task that runs one template process.

The task receives the template's bytes and frozen digest and re-hashes them (a mismatch ends the task at once:
the host records a failed proof, class `environment`). It builds a private directory of its own (0700, removed
when the task ends): the template file, a copy of the manifest, on a resume copies of the approval's decision
and request, and the scratch directory the template runs in, with the same `HARN_*` contract as locally,
pointing at those copies, on top of the worker's own environment. The process runs under the same bounds as
locally (`template_process`: its own session, the timeout with SIGTERM then SIGKILL of its group, the output cap)
and, on Linux, dies with the worker thread that started it (`PR_SET_PDEATHSIG`), so a worker the cluster kills
takes its template along.

What the task yields, in order: `{"kind": "started"}` once the process runs; `{"kind": "lines", "lines": [[stream,
head, size, sha256], ...]}` as lines are printed (each batch is what was printed since the last one: streamed,
not collected); last `{"kind": "end", "exit": {...}, "files": {name: bytes}}` with the proof and approval request
the template left, or `{"kind": "end", "lost": reason}`. A cancel (the host's, or the job's end) kills the group.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import queue
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from harn_tui.core.executors import HIDDEN_ENV
from harn_tui.core.proof_intake import APPROVAL_REQUEST, MAX_FILE_BYTES, PROOF
from harn_tui.core.template_process import ProcessExit, run_template

BATCH_LINES = 512
PR_SET_PDEATHSIG = 1
_DONE = object()


class RelaySink:
    """A transcript sink that queues each line for the generator to yield; it enforces the output cap on what
    the template printed (the host's writer enforces it again on what it stores)."""

    def __init__(self, cap_bytes: int, out: queue.Queue[Any]) -> None:
        self.cap_bytes, self.out = cap_bytes, out
        self.capped = False
        self.on_cap: Callable[[], None] = lambda: None
        self._printed = 0

    def count(self, printed: int) -> None:
        self._printed += printed
        if self._printed > self.cap_bytes and not self.capped:
            self.capped = True
            self.on_cap()

    def record(self, stream: str, head: bytes, size: int, digest: str) -> None:
        if not self.capped:
            self.out.put((stream, head, size, digest))

    def stop(self) -> None:
        """Kill the template's group (a cancel): the runner then reaps it and returns."""
        self.on_cap()


def default_sigchld() -> None:
    """SIGCHLD back to its default where Ray ignores it (its subreaper option does, in drivers and workers, from
    C++, so Python's `getsignal` does not show it): ignored, the kernel reaps children itself and every exit code
    reads as 0. Python lets only the main thread set a disposition and a task may run on another, so libc's
    `signal` does it (the disposition is the process's)."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).signal(int(signal.SIGCHLD), 0)  # 0: SIG_DFL
    else:
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)


def _die_with_parent() -> Callable[[], None] | None:
    """In the child, before exec: SIGKILL when the thread that started it dies (Linux only)."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def arm() -> None:
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)

    return arm


def _stage(base: Path, spec: dict[str, Any]) -> tuple[Path, Path, dict[str, str]]:
    """The template file, the copies and the scratch directory under `base`; the template's environment."""
    template = base / "template" / (spec["name"] or "template")
    template.parent.mkdir(mode=0o700)
    template.write_bytes(spec["body"])
    template.chmod(0o700)
    scratch = base / "scratch"
    scratch.mkdir(mode=0o700)
    env = {k: v for k, v in os.environ.items() if k not in HIDDEN_ENV}
    env.update(spec["contract"])
    manifest = base / "manifest.json"
    manifest.write_bytes(spec["manifest"])
    # the scratch is not in the tree here: HARN_ROOT names it (`harn` inside the template, the agent's repository)
    env.update(
        HARN_MANIFEST=str(manifest), HARN_RUN_DIR=str(scratch), HARN_PROOF=str(scratch / PROOF), HARN_ROOT=spec["root"]
    )
    if spec.get("approval") is not None:
        approval = base / "approval"
        approval.mkdir(mode=0o700)
        (approval / "decision.json").write_bytes(spec["approval"])
        (approval / "request.json").write_bytes(spec["approval_request"] or b"")
        env.update(HARN_APPROVAL=str(approval / "decision.json"), HARN_APPROVAL_REQUEST=str(approval / "request.json"))
    return template, scratch, env


def _outcome_files(scratch: Path) -> dict[str, bytes]:
    """The proof and approval request the template left (at most one byte over the host's bound: it judges)."""
    found: dict[str, bytes] = {}
    for name in (PROOF, APPROVAL_REQUEST):
        with contextlib.suppress(OSError), (scratch / name).open("rb") as handle:
            found[name] = handle.read(MAX_FILE_BYTES + 1)
    return found


def attempt_task(spec: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Run one template process as the module docstring says; `spec` comes from the host's `RayExecutor`."""
    default_sigchld()
    digest = hashlib.sha256(spec["body"]).hexdigest()
    if digest != spec["sha256"]:
        yield {
            "kind": "end",
            "lost": f"the template's bytes reached the worker with sha256 {digest}, frozen {spec['sha256']}: refused",
        }
        return
    base = Path(tempfile.mkdtemp(prefix=f"harn-{spec['run_id']}-"))
    out: queue.Queue[Any] = queue.Queue()
    sink = RelaySink(spec["cap_bytes"], out)
    thread: threading.Thread | None = None
    try:
        template, scratch, env = _stage(base, spec)
        ended: list[ProcessExit] = []

        def run() -> None:
            try:
                ended.append(
                    run_template(
                        str(template),
                        cwd=scratch,
                        env=env,
                        timeout_s=spec["timeout_s"],
                        transcript=sink,
                        on_start=lambda: out.put("started"),
                        preexec_fn=_die_with_parent(),
                    )
                )
            finally:
                out.put(_DONE)

        thread = threading.Thread(target=run, name=f"harn-template-{spec['run_id']}", daemon=True)
        thread.start()
        yield from _relay(out)
        thread.join()
        process = ended[0]
        yield {
            "kind": "end",
            "files": _outcome_files(scratch),
            "exit": {
                "returncode": process.returncode,
                "timed_out": process.timed_out,
                "start_error": process.start_error,
                "output_capped_at": process.output_capped_at,
            },
        }
    finally:
        if thread is not None and thread.is_alive():  # cancelled: end the template first
            sink.stop()
            thread.join(10)
        shutil.rmtree(base, ignore_errors=True)


def _relay(out: queue.Queue[Any]) -> Iterator[dict[str, Any]]:
    """Yield what the runner thread queues, a batch of the lines printed so far at a time, until it is done."""
    while True:
        item = out.get()
        lines: list[list[Any]] = []
        done = False
        while True:
            if item is _DONE:
                done = True
            elif item == "started":
                if lines:
                    yield {"kind": "lines", "lines": lines}
                    lines = []
                yield {"kind": "started"}
            else:
                lines.append(list(item))
            if done or len(lines) >= BATCH_LINES:
                break
            try:
                item = out.get_nowait()
            except queue.Empty:
                break
        if lines:
            yield {"kind": "lines", "lines": lines}
        if done:
            return
