"""Entry point the CLI calls for `harn tui` and `harn demo`; the only place the CLI reaches Textual."""

from __future__ import annotations

from harn_tui.core.console_model import ConsoleModel
from harn_tui.core.layout import Layout


def run_console(layout: Layout, *, actor: str, supervisor: bool) -> None:
    """Load the tree (so the first frame already shows every panel filled), then run the console."""
    from harn_tui.tui.app import HarnConsole

    model = ConsoleModel.load(layout)
    HarnConsole(layout, actor=actor, supervisor=supervisor, model=model).run()
