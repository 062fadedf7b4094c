"""The import cycles a reader of the package would trip over are gone, and stay gone: the app imports its
screens (which ask it for things by message), and the projection imports its cache (which names the goal's view
from a module of its own). Counted with grimp, as `lint-imports` does, TYPE_CHECKING imports included."""

from __future__ import annotations

import grimp
import pytest

GRAPH = grimp.build_graph("harn_tui")


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("harn_tui.tui.screens.main", "harn_tui.tui.app"),
        ("harn_tui.tui.screens.transitions", "harn_tui.tui.app"),
        ("harn_tui.core.projection.cache", "harn_tui.core.projection.goal"),
        ("harn_tui.tui.dispatch", "harn_tui.tui.messages"),
    ],
)
def test_no_chain_back(importer: str, imported: str) -> None:
    assert GRAPH.find_shortest_chain(importer=importer, imported=imported) is None
