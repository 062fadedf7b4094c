"""The graph fingerprint (SPEC section 5), and a per-goal cached form built from per-item JSON fragments."""

from __future__ import annotations

import hashlib
import json

from harn_tui.core.projection.cache import ProjectionCache
from harn_tui.core.projection.work import WorkView


def graph_fingerprint(root: str | None, generation: int, active: list[WorkView]) -> str:
    """`sha256:` + hex digest of the canonical JSON of the active closure (SPEC section 5)."""
    document = {
        "root": root,
        "generation": generation,
        "work": [
            {"id": w.id, "dependencies": list(w.dependencies), "state": w.state, "last_seq": w.last_seq}
            for w in sorted(active, key=lambda w: w.id)
        ],
    }
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def cached_fingerprint(
    cache: ProjectionCache, goal_id: str, root: str | None, generation: int, active: list[WorkView]
) -> str:
    """`graph_fingerprint`, byte for byte, built from each item's canonical JSON fragment (cached per view)."""
    key = (root, generation, tuple(active))
    found = cache.fingerprints.get(goal_id)
    if found is not None and found[0] == key:
        return found[1]
    fragments = ",".join(_fragment(cache, w) for w in sorted(active, key=lambda w: w.id))
    head = f'{{"generation":{json.dumps(generation)},"root":{json.dumps(root, ensure_ascii=False)}'
    canonical = f'{head},"work":[{fragments}]}}'
    fingerprint = "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()
    cache.fingerprints[goal_id] = (key, fingerprint)
    return fingerprint


def _fragment(cache: ProjectionCache, view: WorkView) -> str:
    """One item of the canonical JSON (sorted keys, no spaces), as `graph_fingerprint` writes it."""
    entry = cache.work.get(view.id)
    own = entry is not None and (entry.view is view or entry.twin is view)
    if own and entry is not None and entry.fragment is not None:
        return entry.fragment
    item = {"id": view.id, "dependencies": list(view.dependencies), "state": view.state, "last_seq": view.last_seq}
    fragment = json.dumps(item, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if own and entry is not None:
        entry.fragment = fragment
    return fragment
