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

    The core, Textual and the console's modules are imported with the collector paused: importing builds
    tens of thousands of long-lived objects (record schemas, CSS, widget classes), and a full collection in the
    middle walks them all for nothing (40-60 ms of a console's start). The watcher is told when the load began:
    once armed (after the first paint) it reports what changed since, and the console re-reads it. The loaded
    records are long-lived too: `gc.freeze()` moves them out of the collector's reach, so a full collection
    during a keypress does not walk hundreds of thousands of events on a large tree.
    """
    gc.disable()
    try:
        from harn_tui.console.model import ConsoleModel
        from harn_tui.tui.app import HarnConsole
        from harn_tui.tui.watcher import TreeWatcher
    finally:
        gc.enable()
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
        ).run()
    finally:
        watcher.close()
