"""The installed `harn` answers and a fresh tree verifies clean."""

from __future__ import annotations

from tests.conftest import Harn


def test_fresh_tree_verifies_clean(harn: Harn) -> None:
    assert harn.json("verify") == {"ok": True, "problems": []}
