"""Undo what a benchmarked write did to a cached tree, so every sample (and every run) starts from the same tree.

A checkpoint remembers the entries of the top directories and the size of every file under the directories it
watches (a goal's directory, the work items it governs); `restore` removes what appeared and truncates what grew.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

TOP = ("work", "runs", "approvals")


class Checkpoint:
    def __init__(self, base: Path, watched: list[Path]) -> None:
        self.base = base
        self.entries = {top: set(os.listdir(base / top)) for top in TOP}
        self.sizes: dict[Path, int] = {}
        self.watched = watched
        for directory in watched:
            for path in _files(directory):
                self.sizes[path] = path.stat().st_size

    def restore(self) -> None:
        for top, before in self.entries.items():
            for name in set(os.listdir(self.base / top)) - before:
                target = self.base / top / name
                if target.is_dir():
                    shutil.rmtree(target)
                else:
                    target.unlink()
        for directory in self.watched:
            for path in _files(directory):
                size = self.sizes.get(path)
                if size is None:
                    path.unlink()
                elif path.stat().st_size != size:
                    os.truncate(path, size)


def _files(directory: Path) -> list[Path]:
    found = []
    for folder, _, names in os.walk(directory):
        for name in names:
            if name not in ("lease", "supervisor.lock"):
                found.append(Path(folder) / name)
    return found
