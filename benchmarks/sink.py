"""Fast, non-durable file output for generated trees: 0700 directories, 0600 files, no fsync."""

from __future__ import annotations

import os
from pathlib import Path


class Sink:
    """Writes files under one tree, creating each directory once; counts files and bytes written."""

    def __init__(self) -> None:
        self.files = 0
        self.bytes = 0
        self._made: set[str] = set()

    def mkdir(self, path: str) -> None:
        if path in self._made:
            return
        try:
            os.mkdir(path, 0o700)
        except FileExistsError:
            pass
        except FileNotFoundError:
            self.mkdir(os.path.dirname(path))
            os.mkdir(path, 0o700)
        self._made.add(path)

    def write(self, directory: str, name: str, body: bytes, mode: int = 0o600) -> None:
        self.mkdir(directory)
        fd = os.open(os.path.join(directory, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            os.write(fd, body)
        finally:
            os.close(fd)
        self.files += 1
        self.bytes += len(body)

    def write_path(self, path: Path, body: bytes, mode: int = 0o600) -> None:
        self.write(str(path.parent), path.name, body, mode)
