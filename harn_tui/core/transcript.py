"""An attempt's `transcript.jsonl`: what the template printed, one bounded `{seq, ts, stream, line}` per line.

A line longer than `MAX_LINE_CHARS` is recorded truncated, with `truncated: true`, its full `size` in bytes and
the `sha256` of its bytes, so memory and the file stay bounded whatever a template prints.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from harn_tui.core.clock import now_iso
from harn_tui.core.fsio import FILE_MODE, complete_length

MAX_LINE_CHARS = 4000
MAX_LINE_BYTES = MAX_LINE_CHARS * 4
READ_CHUNK = 65536


def _count_lines(path: Path) -> int:
    good, _ = complete_length(path)
    if good == 0:
        return 0
    with path.open("rb") as handle:
        return handle.read(good).count(b"\n")


class TranscriptWriter:
    """Appends transcript lines from several reader threads; `seq` continues an existing transcript (a resume)."""

    def __init__(self, path: Path) -> None:
        good, size = complete_length(path)
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
        if good != size:
            os.ftruncate(self._fd, good)
        self._seq = _count_lines(path)
        self._lock = threading.Lock()

    def record(self, stream: str, head: bytes, size: int, digest: str) -> None:
        text = head.decode("utf-8", errors="replace")
        entry: dict[str, object] = {"stream": stream, "line": text}
        if size > len(head) or len(text) > MAX_LINE_CHARS:
            entry.update(line=text[:MAX_LINE_CHARS], truncated=True, size=size, sha256=digest)
        with self._lock:
            self._seq += 1
            document = {"seq": self._seq, "ts": now_iso(), **entry}
            os.write(self._fd, (json.dumps(document, ensure_ascii=False) + "\n").encode())

    def close(self) -> None:
        with self._lock:
            os.fsync(self._fd)
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


def pump(source: BinaryIO, stream: str, writer: TranscriptWriter) -> None:
    """Copy one pipe into the transcript until end of file (run in its own thread)."""
    assembler = LineAssembler(lambda head, size, digest: writer.record(stream, head, size, digest))
    fd = source.fileno()
    while True:
        chunk = os.read(fd, READ_CHUNK)
        if not chunk:
            break
        assembler.feed(chunk)
    assembler.close()
