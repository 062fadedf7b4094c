"""The frozen checks: each one argv, run in the workspace without a shell, in order, bounded by what is left of
the attempt; its exit code and the last 4 KiB of its output are the evidence."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harn_tui.core.specialists.streaming import run_streamed

TAIL_BYTES = 4096
NOT_RUN = -1


@dataclass(frozen=True)
class CheckResult:
    argv: list[str]
    exit_code: int
    output_tail: str

    @property
    def passed(self) -> bool:
        return self.exit_code == 0

    def to_json(self) -> dict[str, Any]:
        return {"argv": self.argv, "exit_code": self.exit_code, "output_tail": self.output_tail}

    def evidence(self) -> str:
        return f"check `{' '.join(self.argv)}` exited {self.exit_code}: {self.output_tail[-600:].strip()}"


class _Tail:
    """The last `TAIL_BYTES` of what a check printed (both streams, in order)."""

    def __init__(self) -> None:
        self.data = bytearray()

    def add(self, _stream: str, line: str) -> None:
        self.data += (line + "\n").encode()
        del self.data[:-TAIL_BYTES]

    def text(self) -> str:
        return bytes(self.data).decode("utf-8", errors="replace")


def run_check(
    argv: list[str], *, cwd: Path, env: Mapping[str, str], timeout_s: float, keep_going: Callable[[], bool]
) -> CheckResult:
    if timeout_s <= 0:
        return CheckResult(argv, NOT_RUN, "not run: no time was left before the attempt's deadline")
    tail = _Tail()
    ended = run_streamed(
        argv,
        stdin_text="",
        cwd=cwd,
        env=env,
        timeout_s=timeout_s,
        on_line=tail.add,
        max_output_bytes=1 << 62,
        keep_going=keep_going,
    )
    if ended.start_error is not None:
        return CheckResult(argv, 127, f"the check cannot start: {ended.start_error}")
    if ended.timed_out:
        return CheckResult(argv, NOT_RUN, tail.text() + f"\n[harn: timed out after {timeout_s:.0f} s; killed]")
    code = ended.returncode if ended.returncode is not None else NOT_RUN
    return CheckResult(argv, code, tail.text())


def run_checks(
    argvs: Sequence[list[str]],
    *,
    cwd: Path,
    env: Mapping[str, str],
    seconds_left: Callable[[], float],
    keep_going: Callable[[], bool],
    emit: Callable[[str], None],
) -> list[CheckResult]:
    results: list[CheckResult] = []
    for number, argv in enumerate(argvs, 1):
        emit(f"harn: check {number}/{len(argvs)}: {' '.join(argv)}")
        result = run_check(argv, cwd=cwd, env=env, timeout_s=seconds_left(), keep_going=keep_going)
        emit(f"harn: check {number}/{len(argvs)} exited {result.exit_code}")
        results.append(result)
    return results
