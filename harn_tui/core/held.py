"""Scoped trees a process keeps between its transitions and ticks, brought up to date instead of read again.

A transition or a tick re-reads its goal under the goal's lease (SPEC section 6). A process that acts on the
same goal again (the console, `serve`, the embedded supervisor, one tick's several reads) takes the tree it
kept, checks every file by identity and reads only what changed (`Tree.refresh_scoped`); anything it cannot
vouch for is read again from scratch. A tree is lent to one caller at a time, so threads never share one: a
second caller while it is out loads its own. A caller that fails does not give its tree back (it may be half
updated). See docs/design/incremental-reader.md.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator
from typing import Literal

from harn_tui.core.layout import Layout
from harn_tui.core.tree import Tree

CAPACITY = 8


class HeldTrees:
    """At most `CAPACITY` scoped trees, the least recently used dropped first."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self.capacity = capacity
        self._trees: OrderedDict[tuple[str, str], Tree] = OrderedDict()
        self._lock = threading.Lock()

    def take(self, layout: Layout, goal_id: str) -> Tree | None:
        with self._lock:
            return self._trees.pop((os.fspath(layout.base), goal_id), None)

    def give_back(self, layout: Layout, goal_id: str, tree: Tree) -> None:
        with self._lock:
            self._trees[(os.fspath(layout.base), goal_id)] = tree
            while len(self._trees) > self.capacity:
                self._trees.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._trees.clear()


HELD = HeldTrees()


Check = Literal["all", "logs", "none"]


@contextlib.contextmanager
def scoped_tree(layout: Layout, goal_id: str, check: Check = "all") -> Iterator[Tree]:
    """The goal's scoped tree, kept for the next caller afterwards; with `check`:

    - "all": as `Tree.load_scoped` would read it now (a read that decides, under the goal lease);
    - "logs": its logs checked, the records it read before trusted (a read that decides and writes nothing,
      such as the goal document a tick reports; `Tree.refresh_scoped(records=False)`);
    - "none": as the last caller left it; the caller brings what it reads up to date itself
      (`Tree.refresh_logs_of`: an attempt's finish, which reads its own item and few others).
    """
    tree = HELD.take(layout, goal_id)
    if tree is None or (check != "none" and not tree.refresh_scoped(goal_id, records=check == "all")):
        tree = Tree.load_scoped(layout, goal_id)
    yield tree
    HELD.give_back(layout, goal_id, tree)
