"""Entry point the CLI calls for `harn tui` and `harn demo`; the only place the CLI reaches Textual."""

from __future__ import annotations

import gc
import time

from harn_tui.core.console_model import ConsoleModel
from harn_tui.core.layout import Layout
from harn_tui.core.tree import bulk_allocation


def run_console(layout: Layout, *, actor: str, supervisor: bool) -> None:
    """Load the tree (so the first frame already shows every panel filled), then run the console.

    The watcher is told when the load began: once armed (after the first paint) it reports what changed since,
    and the console re-reads it. The loaded records are
    long-lived: `gc.freeze()` moves them out of the collector's reach, so a full collection during a keypress
    does not walk hundreds of thousands of events on a large tree.
    """
    with bulk_allocation(freeze=False):
        from harn_tui.tui.app import HarnConsole
        from harn_tui.tui.watcher import TreeWatcher
    watcher = TreeWatcher(layout.base, since=time.time())
    try:
        model = ConsoleModel.load(layout)
        gc.freeze()
        HarnConsole(layout, actor=actor, supervisor=supervisor, model=model, watcher=watcher).run()
    finally:
        watcher.close()
