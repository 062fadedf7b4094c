"""What every command needs: the tree's layout, the acting operator, and how to print."""

from __future__ import annotations

import argparse
import getpass
import os
from dataclasses import dataclass
from typing import Any

from harn_tui.core.ids import check_id
from harn_tui.core.layout import Layout, find_root


def resolve_actor(explicit: str | None) -> str:
    """`--actor`, else `$HARN_ACTOR`, else the login name; always ID syntax."""
    actor = explicit if explicit is not None else (os.environ.get("HARN_ACTOR") or getpass.getuser())
    return check_id(actor, "actor")


@dataclass(frozen=True)
class Context:
    args: argparse.Namespace

    @property
    def json(self) -> bool:
        return bool(self.args.json)

    @property
    def actor(self) -> str:
        return resolve_actor(self.args.actor)

    def layout(self) -> Layout:
        return Layout(find_root(self.args.root))

    def arg(self, name: str, default: Any = None) -> Any:
        return getattr(self.args, name, default)
