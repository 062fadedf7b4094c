"""The race soak's command log: one JSON line per transition a worker or console issued, with its outcome.

A participant first writes a `pending` entry with a `token`, then the same `token` with the outcome: a
participant killed in between leaves the pending entry alone (the command may or may not have been applied).

An entry: `actor`, `n` (1-based per actor), `via` (`cli` in-process, `subprocess`, `console`), `verb` (e.g.
`plan approve`), `target` (the plan, work or approval id it addressed), `goal` (for plan verbs), `argv` (the
CLI arguments, when it came through the CLI), `exit` (0, 2, 3, 4, 5; anything else is a crash), `doc` (the JSON
the CLI printed, or the console's outcome / refusal), `t0`/`t1` (monotonic seconds).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import IO, Any

TRANSITION_VERBS = frozenset(
    {
        "plan approve",
        "plan reject",
        "plan retry",
        "work accept",
        "work reopen",
        "work cancel",
        "work run",
        "work retry",
        "approval approve",
        "approval deny",
    }
)


class CommandLog:
    """Appends entries to one file, flushed per line (a reader after the soak sees every finished command)."""

    def __init__(self, path: Path, actor: str) -> None:
        self.actor = actor
        self.count = 0
        self._file: IO[str] = path.open("a", encoding="utf-8")

    def write(self, **entry: Any) -> None:
        self.count += 1
        self._file.write(json.dumps({"actor": self.actor, "n": self.count, **entry}, ensure_ascii=False) + "\n")
        self._file.flush()

    def begin(self, **entry: Any) -> str:
        """Say a command is about to run; returns the token its outcome entry carries."""
        token = f"{os.getpid()}-{self.count + 1}"
        self.write(pending=True, token=token, **entry)
        return token

    def close(self) -> None:
        self._file.close()


def read_logs(directory: Path) -> list[dict[str, Any]]:
    """Every entry of every `*.log.jsonl` in `directory`."""
    entries: list[dict[str, Any]] = []
    for path in sorted(directory.glob("*.log.jsonl")):
        with path.open(encoding="utf-8") as handle:
            entries.extend(json.loads(line) for line in handle if line.strip())
    return entries


def participant_parser(description: str | None) -> argparse.ArgumentParser:
    """The options every soak participant (worker, console) takes: its tree, actor, time, seed and log."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--root", type=Path, required=True)
    parser.add_argument("--actor", required=True)
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--log", type=Path, required=True)
    return parser
