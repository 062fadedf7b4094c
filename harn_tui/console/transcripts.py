"""The last lines attempts printed, as the console follows them: each transcript is read on from the byte offset
where the previous read stopped, so a running attempt's new lines cost what they add, not the whole file.

A transcript only grows (its writer appends whole lines and, on a resume, cuts back only a partial last line no
reader has consumed); one that shrank or was replaced is read again from its last `TAIL_BYTES`. So is one that
grew by more than that since the last read: the lines in between are skipped, never shown out of order.
"""

from __future__ import annotations

import json
import os
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from pathlib import Path

from harn_tui.core.reader_bounds import READ_FLAGS

TAIL_BYTES = 16_384
KEPT_LINES = 20
KEPT_RUNS = 16


@dataclass
class _Tail:
    identity: tuple[int, int]
    offset: int = 0
    lines: deque[str] = field(default_factory=lambda: deque(maxlen=KEPT_LINES))


def shown_line(raw: bytes) -> str | None:
    """One transcript record as the console shows it (`stderr: text`), None if it is not one."""
    try:
        record = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(record, dict) or not isinstance(record.get("line"), str):
        return None
    stream = record.get("stream")
    return f"{stream}: {record['line']}" if isinstance(stream, str) else record["line"]


class TranscriptTails:
    """The tails of the few transcripts last asked for (`KEPT_RUNS`), each with its offset."""

    def __init__(self, runs: Path) -> None:
        self.runs = runs
        self._tails: OrderedDict[str, _Tail] = OrderedDict()
        self.bytes_read = 0  # what every read so far cost, for tests and measurements

    def lines(self, run_id: str, count: int) -> list[str]:
        """The last `count` (at most `KEPT_LINES`) lines the run printed, after reading what was appended since
        the last call; [] for a run that printed nothing or has no readable transcript."""
        try:
            fd = os.open(self.runs / run_id / "transcript.jsonl", READ_FLAGS)  # never through a link or a pipe
        except OSError:
            self._tails.pop(run_id, None)
            return []
        try:
            tail = self._read(run_id, fd)
        except OSError:  # not a regular file (verify reports it)
            self._tails.pop(run_id, None)
            return []
        finally:
            os.close(fd)
        return list(tail.lines)[-count:] if count > 0 else []

    def _read(self, run_id: str, fd: int) -> _Tail:
        status = os.fstat(fd)
        identity = (status.st_dev, status.st_ino)
        tail = self._tails.pop(run_id, None)
        if tail is None or tail.identity != identity or status.st_size < tail.offset:
            tail = _Tail(identity)
        self._tails[run_id] = tail
        while len(self._tails) > KEPT_RUNS:
            self._tails.popitem(last=False)
        start = tail.offset
        jumped = status.st_size - start > TAIL_BYTES
        if jumped:  # the first piece read is then the end of a line skipped
            start = status.st_size - TAIL_BYTES
            tail.lines.clear()
        if status.st_size == start:
            return tail
        data = os.pread(fd, status.st_size - start, start)
        self.bytes_read += len(data)
        end = data.rfind(b"\n")
        if end < 0:
            return tail  # a line still being written: read again from here next time
        tail.offset = start + end + 1
        pieces = data[:end].split(b"\n")
        for raw in pieces[1:] if jumped else pieces:
            line = shown_line(raw)
            if line is not None:
                tail.lines.append(line)
        return tail
