"""Generated trees cached under `benchmarks/.trees/<size>-v<generator version>-<interpreter>/`, regenerated when
stale."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.generator import GENERATOR_VERSION, generate_tree, targets_bytes
from benchmarks.shapes import SIZES

CACHE_DIR = Path(__file__).resolve().parent / ".trees"


@dataclass(frozen=True)
class GeneratedTree:
    """A generated tree: its root (the directory holding `.harnery/`) and what the generator put where."""

    size: str
    root: Path
    targets: dict[str, Any]
    generated_in_s: float | None

    @property
    def base(self) -> Path:
        return self.root / ".harnery"

    def goals_of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [goal for goal in self.targets["goals"] if goal["kind"] == kind]


def _stamp(root: Path) -> dict[str, Any]:
    return {"version": GENERATOR_VERSION, "root": str(root), "python": sys.executable}


def ensure_tree(size: str, cache_dir: Path = CACHE_DIR, fresh: bool = False) -> GeneratedTree:
    """The cached tree of `size`, generated first if missing, from an older generator or another location.

    The cache is keyed by size and generator version; the stamp also records the absolute root and the
    interpreter, because records hold absolute template paths and the template's shebang.
    """
    shape = SIZES[size]
    # one directory per interpreter: records hold the template's shebang, so each virtual environment needs its
    # own tree, and one checkout's run must never delete (regenerate) the tree another's is reading
    interpreter = hashlib.sha256(sys.executable.encode()).hexdigest()[:8]
    directory = cache_dir / f"{size}-v{GENERATOR_VERSION}-{interpreter}"
    root = directory / "root"
    stamp_path = directory / "complete.json"
    try:
        current = json.loads(stamp_path.read_text()) == _stamp(root)
    except (FileNotFoundError, ValueError):
        current = False
    if current and not fresh:
        targets = json.loads((directory / "targets.json").read_text())
        return GeneratedTree(size, root, targets, None)
    if directory.exists():
        stamp_path.unlink(missing_ok=True)  # first: a removal cut short leaves no tree that looks complete
        shutil.rmtree(directory)
    root.mkdir(parents=True)
    started = time.perf_counter()
    targets = generate_tree(root, shape)
    elapsed = time.perf_counter() - started
    (directory / "targets.json").write_bytes(targets_bytes(targets))
    stamp_path.write_text(json.dumps(_stamp(root)))
    return GeneratedTree(size, root, targets, elapsed)
