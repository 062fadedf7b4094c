"""An attempt's `transcript.jsonl`: what the template printed, one bounded `{seq, ts, stream, line}` per line.

A line longer than `MAX_LINE_CHARS` is recorded truncated, with `truncated: true`, its full `size` in bytes and
the `sha256` of its bytes, so memory and the file stay bounded whatever a template prints.

The whole attempt is bounded too (the output cap, `$HARN_OUTPUT_CAP_BYTES`, default 64 MiB): once the template
has printed more than the cap, or the transcript would grow past it, nothing more is stored and the writer calls
its `on_cap` callback once (the process runner kills the template's group; the attempt fails with reason
`output cap`). A flood of short lines, one endless line without a newline and plain gigabytes all stop there.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from harn_tui.core.clock import now_iso
from harn_tui.core.errors import CorruptJournal, SystemRefused, is_system_refusal, system_refused
from harn_tui.core.fsio import complete_length
from harn_tui.core.reader_bounds import os_problem
from harn_tui.core.sharing import open_new

MAX_LINE_CHARS = 4000
MAX_LINE_BYTES = MAX_LINE_CHARS * 4
READ_CHUNK = 65536
DEFAULT_OUTPUT_CAP_BYTES = 64 * 1024 * 1024


def output_cap_bytes() -> int:
    """`$HARN_OUTPUT_CAP_BYTES`, else 64 MiB: the most one run of a template may print, and the most its
    transcript may grow by."""
    return int(os.environ.get("HARN_OUTPUT_CAP_BYTES", DEFAULT_OUTPUT_CAP_BYTES))


def _count_lines(path: Path) -> int:
    good, _ = complete_length(path)
    if good == 0:
        return 0
    with path.open("rb") as handle:
        return handle.read(good).count(b"\n")


class TranscriptSink(Protocol):
    """Where a template's lines go as its pipes are read: a `TranscriptWriter` here, or (on a cluster's worker)
    a relay that sends each line back to the host's writer. Past `cap_bytes` printed it sets `capped` and calls
    `on_cap` once (the process runner kills the template's group)."""

    cap_bytes: int
    capped: bool
    on_cap: Callable[[], None]

    def count(self, printed: int) -> None: ...

    def record(self, stream: str, head: bytes, size: int, digest: str) -> None: ...


class TranscriptWriter:
    """Appends transcript lines from both of the template's pipes (`TranscriptStream`), on the runner's one
    thread; `seq` continues an existing transcript (a resume)."""

    def __init__(self, path: Path, cap_bytes: int | None = None) -> None:
        self.path = path
        try:  # never through a link (a resumed run appends to an existing transcript)
            self._fd = open_new(path, os.O_WRONLY | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as error:
            if is_system_refusal(error):
                raise system_refused(error, path) from None
            raise CorruptJournal(os_problem(path, error)) from None
        good, size = complete_length(path)
        # the bytes this writer changed; only then is there anything to fsync (an empty transcript's name is
        # made durable by the run directory's fsync when the proof is linked)
        self._dirty = good != size
        self._good = good
        if self._dirty:
            os.ftruncate(self._fd, good)
        self._seq = _count_lines(path)
        self.refused: SystemRefused | None = None
        self.cap_bytes = output_cap_bytes() if cap_bytes is None else cap_bytes
        self._printed = 0
        self._stored = 0
        self.capped = False
        self.on_cap: Callable[[], None] = lambda: None

    def _reach_cap(self) -> None:
        """Stop storing and tell the runner, once."""
        if not self.capped:
            self.capped = True
            self.on_cap()

    def count(self, printed: int) -> None:
        """Count bytes the template printed (on any stream); past the cap, storing stops."""
        self._printed += printed
        if self._printed > self.cap_bytes:
            self._reach_cap()

    def record(self, stream: str, head: bytes, size: int, digest: str) -> None:
        text = head.decode("utf-8", errors="replace")
        entry: dict[str, object] = {"stream": stream, "line": text}
        if size > len(head) or len(text) > MAX_LINE_CHARS:
            entry.update(line=text[:MAX_LINE_CHARS], truncated=True, size=size, sha256=digest)
        if self.capped or self.refused is not None:
            return
        document = {"seq": self._seq + 1, "ts": now_iso(), **entry}
        body = (json.dumps(document, ensure_ascii=False) + "\n").encode()
        if self._stored + len(body) > self.cap_bytes:
            self._reach_cap()
            return
        try:
            written = os.write(self._fd, body)
            if written != len(body):
                os.write(self._fd, body[written:])  # the rest: the system's own error, if it refuses
        except OSError as error:
            self._refuse(error)
            return
        self._seq += 1
        self._stored += len(body)
        self._good += len(body)
        self._dirty = True

    def _refuse(self, error: OSError) -> None:
        """The system refused a transcript write: what the template prints can no longer be recorded, so the
        attempt cannot be judged on it; stop storing, end the template (as at the cap), take back a partial
        line. Any other OSError is the runner's to raise."""
        if not is_system_refusal(error):
            raise error
        self.refused = system_refused(error, self.path)
        with contextlib.suppress(OSError):
            os.ftruncate(self._fd, self._good)
        self.on_cap()

    def close(self) -> None:
        try:
            if self._dirty:
                os.fsync(self._fd)
        except OSError as error:
            if not is_system_refusal(error):
                raise
            self.refused = self.refused or system_refused(error, self.path)
        finally:
            os.close(self._fd)


class LineAssembler:
    """Splits a byte stream into lines, keeping at most `MAX_LINE_BYTES` of each while hashing all of it."""

    def __init__(self, emit: Callable[[bytes, int, str], None]) -> None:
        self._emit = emit
        self._reset()

    def _reset(self) -> None:
        self._head = bytearray()
        self._size = 0
        self._hash = hashlib.sha256()

    def feed(self, chunk: bytes) -> None:
        start = 0
        while True:
            newline = chunk.find(b"\n", start)
            part = chunk[start:] if newline < 0 else chunk[start:newline]
            room = MAX_LINE_BYTES - len(self._head)
            if room > 0:
                self._head += part[:room]
            self._size += len(part)
            self._hash.update(part)
            if newline < 0:
                return
            self._flush()
            start = newline + 1

    def _flush(self) -> None:
        self._emit(bytes(self._head), self._size, self._hash.hexdigest())
        self._reset()

    def close(self) -> None:
        """Emit a final line that had no newline."""
        if self._size:
            self._flush()


class TranscriptStream:
    """One of the template's pipes (`stdout` or `stderr`) copied into the transcript a chunk at a time."""

    def __init__(self, name: str, writer: TranscriptSink) -> None:
        self.name, self.writer = name, writer
        self._lines = LineAssembler(lambda head, size, digest: writer.record(name, head, size, digest))

    def copy(self, fd: int) -> bool:
        """Copy what the pipe holds now (it is readable); False at end of file, its last line recorded."""
        chunk = os.read(fd, READ_CHUNK)
        writer = self.writer
        if not chunk:
            if not writer.capped:
                self._lines.close()
            return False
        writer.count(len(chunk))
        if not writer.capped:  # past the cap the pipe is drained (the group is being killed), nothing stored
            self._lines.feed(chunk)
        return True
