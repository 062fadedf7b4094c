"""Following a transcript from its byte offset: each read costs what was appended, a torn last line waits for its
newline, a jump past `TAIL_BYTES` never shows lines out of order, a replaced transcript is read afresh."""

from __future__ import annotations

import json
from pathlib import Path

from harn_tui.console.transcripts import TAIL_BYTES, TranscriptTails

RUN = "run-follow-1"


def record(number: int, text: str | None = None, stream: str = "stdout") -> bytes:
    line = text if text is not None else f"line {number}"
    return (json.dumps({"seq": number, "ts": "t", "stream": stream, "line": line}) + "\n").encode()


def append(runs: Path, data: bytes) -> None:
    path = runs / RUN / "transcript.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        handle.write(data)


def test_each_read_costs_only_what_was_appended(tmp_path: Path) -> None:
    tails = TranscriptTails(tmp_path)
    assert tails.lines(RUN, 5) == []
    first = b"".join(record(n) for n in range(1, 4))
    append(tmp_path, first)
    assert tails.lines(RUN, 5) == ["stdout: line 1", "stdout: line 2", "stdout: line 3"]
    assert tails.bytes_read == len(first)
    assert tails.lines(RUN, 5) == ["stdout: line 1", "stdout: line 2", "stdout: line 3"]
    assert tails.bytes_read == len(first)  # nothing new, nothing read
    more = record(4, "boom", stream="stderr")
    append(tmp_path, more)
    assert tails.lines(RUN, 2) == ["stdout: line 3", "stderr: boom"]
    assert tails.bytes_read == len(first) + len(more)


def test_a_torn_last_line_is_shown_once_its_newline_arrives(tmp_path: Path) -> None:
    tails = TranscriptTails(tmp_path)
    whole = record(1) + record(2)
    append(tmp_path, whole[: len(record(1)) + 10])
    assert tails.lines(RUN, 5) == ["stdout: line 1"]
    append(tmp_path, whole[len(record(1)) + 10 :])
    assert tails.lines(RUN, 5) == ["stdout: line 1", "stdout: line 2"]


def test_a_burst_past_the_tail_bound_skips_to_the_newest_lines(tmp_path: Path) -> None:
    tails = TranscriptTails(tmp_path)
    append(tmp_path, record(1))
    assert tails.lines(RUN, 3) == ["stdout: line 1"]
    burst = b"".join(record(n, "x" * 200 + str(n)) for n in range(2, 400))
    assert len(burst) > TAIL_BYTES
    read_before = tails.bytes_read
    append(tmp_path, burst)
    shown = tails.lines(RUN, 20)
    assert shown[-1] == "stdout: " + "x" * 200 + "399" and len(shown) == 20
    assert "stdout: line 1" not in shown
    assert tails.bytes_read - read_before == TAIL_BYTES


def test_a_replaced_transcript_is_read_afresh(tmp_path: Path) -> None:
    tails = TranscriptTails(tmp_path)
    append(tmp_path, record(1) + record(2))
    assert tails.lines(RUN, 5) == ["stdout: line 1", "stdout: line 2"]
    path = tmp_path / RUN / "transcript.jsonl"
    replacement = tmp_path / "new.jsonl"
    replacement.write_bytes(record(1, "again"))
    replacement.replace(path)
    assert tails.lines(RUN, 5) == ["stdout: again"]
