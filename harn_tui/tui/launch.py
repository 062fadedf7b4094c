"""Entry point the CLI calls for `harn tui` and `harn demo`; the only place the CLI reaches Textual."""

from __future__ import annotations

import gc
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from harn_tui.core.executors import Executor
    from harn_tui.core.layout import Layout


def run_console(
    layout: Layout, *, actor: str, supervisor: bool, bell: bool = True, executor: Executor | None = None
) -> None:
    """Load the tree (so the first frame already shows every panel filled), then run the console. On a tree that
    is slow to read whole, and whose goal list the last console kept, start from that list instead
    (`ConsoleModel.opening`): the first frame shows the kept rows, marked as last seen, and the selected goal
    read from its records; the whole tree is read behind it.

    The cyclic collector is paused from here to the first frame: importing the core, Textual and the console's
    modules, and building the first screen (its widgets, styles and the goal list), makes hundreds of thousands
    of long-lived objects and almost no cyclic garbage, and the collections in the middle walked them all for
    nothing (about 0.1 s of CPU of a console's start: a full collection of 50-65 ms and a hundred young ones).
    Once the first frame is shown, what is alive is moved out of the collector's reach (`gc.freeze`) and it
    runs again. The watcher is told when the load began:
    once armed (after the first paint) it reports what changed since, and the console re-reads it. The loaded
    records are long-lived too: `gc.freeze()` moves them out of the collector's reach, so a full collection
    during a keypress does not walk hundreds of thousands of events on a large tree.
    """
    gc.disable()
    try:
        _run(layout, actor=actor, supervisor=supervisor, bell=bell, executor=executor)
    finally:
        gc.enable()


YOUNG_COLLECTION_AFTER = 50_000  # container objects allocated (net) between two young collections; Python's is 700


def _resume_collector() -> None:
    """After the first frame: what start-up built lives as long as the console; the collector runs again.

    A keypress that redraws most of the screen (`n` to another goal) leaves about 13,000 more container objects
    than it frees (strips, segments, styles, line caches) and frees many more. With Python's threshold of 700
    the collector ran some twenty times inside such a key, each walking what was still alive, and a
    middle-generation pass every tenth: 3-5 ms of the key. At 50,000 a key's frame is drawn between
    collections; the console collects when the selection rests (`MainScreen._prefetch_history`) and the
    garbage of a few keys waits at most that long."""
    gc.freeze()
    gc.set_threshold(YOUNG_COLLECTION_AFTER)
    gc.enable()


def _run(layout: Layout, *, actor: str, supervisor: bool, bell: bool, executor: Executor | None) -> None:
    from harn_tui.console.model import ConsoleModel
    from harn_tui.tui.app import HarnConsole
    from harn_tui.tui.watcher import TreeWatcher

    watcher = TreeWatcher(layout.base, since=time.time())
    try:
        model = ConsoleModel.opening(layout)
        if model.complete:
            gc.freeze()
        from harn_tui.core.executors import LOCAL

        HarnConsole(
            layout,
            actor=actor,
            supervisor=supervisor,
            model=model,
            watcher=watcher,
            bell=bell,
            executor=executor or LOCAL,
            first_frame_shown=_resume_collector,
        ).run()
    finally:
        watcher.close()
