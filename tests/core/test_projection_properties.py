"""Property tests: projection is a pure function of the journal, whether read whole or line by line."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harn_tui.core.creation import init_tree
from harn_tui.core.projection import project_goal
from harn_tui.core.records import AttemptFinished, AttemptStarted, WorkAccepted, WorkCancelled, WorkReopened
from harn_tui.core.tree import Tree
from tests.core import journal_builders as b

ITEMS = ("base", "side", "root")
Op = tuple[str, str, Any]

WORK_OPS = (
    st.tuples(st.just("start"), st.sampled_from(ITEMS), st.none()),
    st.tuples(
        st.just("finish"),
        st.sampled_from(ITEMS),
        st.tuples(
            st.sampled_from(["passed", "failed", "parked"]),
            st.sampled_from([None, "upstream", "environment", "decision"]),
        ),
    ),
    st.tuples(st.just("accept"), st.sampled_from(ITEMS), st.none()),
    st.tuples(st.just("cancel"), st.sampled_from(ITEMS), st.none()),
    st.tuples(st.just("reopen"), st.sampled_from(ITEMS), st.integers(0, 3)),
)
"""One operation on one of `ITEMS`: (kind, item, argument)."""
ops = st.lists(st.one_of(*WORK_OPS), max_size=25)


def apply(layout: Any, op: Op, runs: dict[str, list[str]]) -> None:
    kind, item, arg = op
    if kind == "start":
        run_id = f"run-{item}-{len(runs[item]) + 1}"
        runs[item].append(run_id)
        b.event(layout, item, AttemptStarted, run_id=run_id, attempt=len(runs[item]), trigger="initial")
    elif kind == "finish" and runs[item]:
        status, cls = arg
        b.event(
            layout,
            item,
            AttemptFinished,
            run_id=runs[item][-1],
            status=status,
            reason="r",
            **{"class": cls},
            approval_id=f"apr-{runs[item][-1]}-1" if status == "parked" else None,
        )
    elif kind == "accept" and runs[item]:
        b.event(layout, item, WorkAccepted, "alice", run_id=runs[item][-1], proof_sha256="0" * 64)
    elif kind == "cancel":
        b.event(layout, item, WorkCancelled, "alice", reason="stop")
    elif kind == "reopen":
        findings = [{"id": f"f{i}", "statement": f"finding {i}", "actor": "alice"} for i in range(1, arg + 1)]
        b.event(layout, item, WorkReopened, "alice", findings=findings)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops)
def test_incremental_reading_projects_the_same_as_a_fresh_load(sequence: list[Op]) -> None:
    with tempfile.TemporaryDirectory() as directory:
        layout = init_tree(Path(directory))
        b.work(layout, "base")
        b.work(layout, "side")
        b.work(layout, "root", deps=("base", "side"))
        b.goal(layout, "g", root="root")
        following = Tree.load(layout)
        runs: dict[str, list[str]] = {item: [] for item in ITEMS}
        for op in sequence:
            apply(layout, op, runs)
            following.refresh_path(layout.work(op[1]) / "events.jsonl")
            for run_id in runs[op[1]]:
                following.refresh_path(layout.run(run_id))
        fresh = Tree.load(layout)
        incremental = project_goal(following, "g")
        whole = project_goal(fresh, "g")
        assert incremental == whole
        assert project_goal(fresh, "g") == whole, "projecting twice gives the same value"
        assert whole.state != "corrupt"
