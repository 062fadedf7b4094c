"""What every command needs: the tree's layout, the acting operator, and how to print."""

from __future__ import annotations

import argparse
import getpass
import os
from functools import cached_property
from typing import Any

from harn_tui.core.ids import check_id
from harn_tui.core.layout import Layout, find_root


def resolve_actor(explicit: str | None, layout: Layout | None = None) -> str:
    """`--actor`, else `$HARN_ACTOR`, else the login name; always ID syntax. In a shared tree (`layout`'s) the
    operator acts as their login name, and a different `--actor` or `$HARN_ACTOR` is bad input."""
    if layout is not None:
        from harn_tui.core.sharing import shared_actor

        shared = shared_actor(layout.base, explicit)
        if shared is not None:
            return shared
    actor = explicit if explicit is not None else (os.environ.get("HARN_ACTOR") or getpass.getuser())
    return check_id(actor, "actor")


class Context:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args

    @property
    def json(self) -> bool:
        return bool(self.args.json)

    @property
    def actor(self) -> str:
        """Who acts on this command's tree (found first: in a shared tree it is the login name)."""
        return resolve_actor(self.args.actor, self.layout())

    def layout(self) -> Layout:
        return self._layout

    @cached_property
    def _layout(self) -> Layout:
        """The tree, found and readable; in a shared tree an `--actor` or `$HARN_ACTOR` other than the login name
        is bad input for every verb (a read verb too: the operator would otherwise learn of it at the first
        transition)."""
        from harn_tui.core.sharing import enter_tree, shared_actor

        layout = Layout(find_root(self.args.root))
        shared_actor(layout.base, self.args.actor)
        enter_tree(layout.base)
        return layout

    def arg(self, name: str, default: Any = None) -> Any:
        return getattr(self.args, name, default)
