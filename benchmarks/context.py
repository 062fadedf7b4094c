"""What every figure is measured with: the trees, how many repeats, and where results are shared."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.trees import CACHE_DIR, GeneratedTree, ensure_tree

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Context:
    """`large` is the tree targets are defined on (L); `small` is the reference of the L/S ratios (S).

    With `enforce` false (the smoke run) every figure is measured but none is judged.
    """

    large: str = "L"
    small: str = "S"
    repeats: int = 15
    heavy_repeats: int = 5
    enforce: bool = True
    cache_dir: Path = CACHE_DIR
    log: Callable[[str], None] = lambda message: print(message, file=sys.stderr, flush=True)
    shared: dict[str, Any] = field(default_factory=dict)
    _trees: dict[str, GeneratedTree] = field(default_factory=dict)

    def tree(self, size: str) -> GeneratedTree:
        if size not in self._trees:
            tree = ensure_tree(size, self.cache_dir)
            if tree.generated_in_s is not None:
                self.log(f"generated tree {size} in {tree.generated_in_s:.1f} s ({tree.targets['files']} files)")
            self._trees[size] = tree
        return self._trees[size]

    def warm_page_cache(self, size: str) -> None:
        """Read every file of the tree once, so what is measured next finds the files in the page cache. Some
        machines reclaim page cache behind the benchmark's back (this VM does: reading the L tree took 14 s with
        the cache reclaimed, 3 s right after), and a reclaimed cache would be paid by whichever side of a
        comparison reads first. Untimed."""
        self.warm_page_cache_at(self.tree(size).root)

    def warm_page_cache_at(self, root: Path) -> None:
        """`warm_page_cache` for any tree (a scratch copy)."""
        for folder, _, names in os.walk(root):
            for name in names:
                try:
                    fd = os.open(os.path.join(folder, name), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
                except OSError:
                    continue
                try:
                    while os.read(fd, 1 << 20):
                        pass
                except OSError:
                    pass
                finally:
                    os.close(fd)

    def judge(self, passed: bool) -> bool | None:
        return passed if self.enforce else None

    @property
    def python(self) -> str:
        return sys.executable

    def harn_argv(self) -> list[str]:
        """The installed `harn` script beside this interpreter, else `python -m harn_tui`."""
        script = Path(sys.executable).parent / "harn"
        return [str(script)] if script.exists() else [sys.executable, "-m", "harn_tui"]

    def probe(self, name: str, root: Path) -> dict[str, Any]:
        """Run one probe of `benchmarks.probes` in a fresh interpreter and return its JSON."""
        result = subprocess.run(
            [sys.executable, "-m", "benchmarks.probes", name, str(root)],
            env={**os.environ, "BENCH_SPAWNED_AT": repr(time.time())},
            cwd=REPO,
            capture_output=True,
            text=True,
            check=True,
        )
        document: dict[str, Any] = json.loads(result.stdout)
        return document
