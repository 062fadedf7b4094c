"""Where every record lives under `.harnery/`; IDs are checked before any path is built."""

from __future__ import annotations

import os
from pathlib import Path
from typing import NamedTuple

from harn_tui.core.errors import NotFound
from harn_tui.core.ids import check_id
from harn_tui.core.sharing import refused_read, require_readable

HARNERY = ".harnery"
TOP_DIRS = ("supervisors", "work", "runs", "approvals", "presence", "cache", "service")


def find_root(explicit: str | os.PathLike[str] | None = None, start: Path | None = None) -> Path:
    """`--root`, else `$HARN_ROOT`, else the nearest ancestor holding `.harnery/` (NotFound otherwise). A tree
    this account may not read is SystemRefused (exit 6), one line naming it (and, when shared, its group)."""
    if explicit is not None or os.environ.get("HARN_ROOT"):
        root = root_argument(explicit if explicit is not None else os.environ["HARN_ROOT"])
        if not _holds_tree(root, refuse=True):
            raise NotFound(f"no {HARNERY}/ under {root} (run `harn init` there)")
        require_readable(root / HARNERY)
        return root
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if _holds_tree(candidate):
            require_readable(candidate / HARNERY)
            return candidate
    raise NotFound(f"no {HARNERY}/ found in {here} or any parent (use --root, $HARN_ROOT or `harn init`)")


def root_argument(path: str | os.PathLike[str]) -> Path:
    """A root as the operator names it: the directory holding `.harnery/`, absolute. A path naming `.harnery`
    itself is understood as the directory holding it (so no tree is ever made inside another's `.harnery/`)."""
    resolved = Path(path).resolve()
    return resolved.parent if resolved.name == HARNERY else resolved


def enclosing_root(directory: Path) -> Path | None:
    """The nearest ancestor of `directory` (itself excluded) holding `.harnery/`, or None."""
    return next((parent for parent in directory.parents if _holds_tree(parent)), None)


def _holds_tree(directory: Path, refuse: bool = False) -> bool:
    """Whether `directory/.harnery` is a directory; a path the OS cannot even look up (name too long) holds none.
    With `refuse`, a directory this account may not enter is SystemRefused instead: the tree may well be there."""
    try:
        return (directory / HARNERY).is_dir()
    except PermissionError as error:
        if refuse:
            raise refused_read(directory, error) from None
        return False
    except OSError:
        return False


class Layout(NamedTuple):
    """Paths of one tree. Every method validates the IDs it is given. A named tuple, not a dataclass: every CLI
    verb makes one, and `dataclasses` is a fifth of a read served from the view cache."""

    root: Path

    @property
    def base(self) -> Path:
        return self.root / HARNERY

    @property
    def supervisors(self) -> Path:
        return self.base / "supervisors"

    @property
    def work_dir(self) -> Path:
        return self.base / "work"

    @property
    def runs(self) -> Path:
        return self.base / "runs"

    @property
    def approvals(self) -> Path:
        return self.base / "approvals"

    @property
    def presence(self) -> Path:
        return self.base / "presence"

    @property
    def cache(self) -> Path:
        return self.base / "cache"

    @property
    def service(self) -> Path:
        return self.base / "service"

    def goal(self, goal_id: str) -> Path:
        return self.supervisors / check_id(goal_id, "goal id")

    def plan(self, goal_id: str, plan_id: str) -> Path:
        return self.goal(goal_id) / "plans" / check_id(plan_id, "plan id")

    def work(self, work_id: str) -> Path:
        return self.work_dir / check_id(work_id, "work id")

    def run(self, run_id: str) -> Path:
        return self.runs / check_id(run_id, "run id")

    def approval(self, approval_id: str) -> Path:
        return self.approvals / check_id(approval_id, "approval id")
