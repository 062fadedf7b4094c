"""Run as a member of the group (argv: root, group, assets, goal ids...): a tree shared with the group holding one
goal per id, each with a failed root and a recovery plan proposed, waiting for approval. One process for all of
it (the consoles test measures the consoles, not this setup)."""

from __future__ import annotations

import sys
from pathlib import Path

from harn_tui.core.creation import GoalOptions, create_supervisor, create_work, init_shared_tree
from harn_tui.core.sharing import login_name
from harn_tui.core.supervisor import run_goal


def main(root: str, group: str, assets: str, *goal_ids: str) -> None:
    layout = init_shared_tree(Path(root), group).layout
    files = Path(assets)
    for goal_id in goal_ids:
        work_id = f"{goal_id}-root"
        create_work(
            layout,
            title=f"Retry the flaky test of {goal_id}",
            template=files / "templates" / "attempt-fails.py",
            objective="Pass by retrying.",
            acceptance=["green"],
            max_attempts=1,
            work_id=work_id,
            actor=login_name(),
        )
        create_supervisor(
            layout,
            team_file=files / "team.json",
            root_work=work_id,
            replanning_file=files / "replanning-recovery.json",
            options=GoalOptions(goal_id=goal_id, title=f"Fix the flaky test ({goal_id})"),
        )
        report = run_goal(layout, goal_id)
        assert report.goal is not None and report.goal.pending_plan_id is not None, report
        print(report.goal.pending_plan_id)


if __name__ == "__main__":
    main(*sys.argv[1:])
