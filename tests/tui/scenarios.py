"""Named trees for console tests and snapshots: each goal waits for one kind of decision."""

from __future__ import annotations

from harn_tui.core.layout import Layout
from tests.tui import builders as b
from tests.tui import git_attempts as g

PLAN_GOAL = "goal-01-plan"
ATTENTION_GOAL = "goal-02-attention"
REVIEW_GOAL = "goal-03-review"
CORRUPT_GOAL = "goal-04-corrupt"
APPROVAL_GOAL = "goal-05-approval"
STALE_GOAL = "goal-06-stale"
AGENTS_GOAL = "goal-07-agents"
AGENT_RUNS = ("run-greet-1", "run-greet-2")
PENDING_PLAN = "plan-0002-bbbbbbbb"
APPLIED_PLAN = "plan-0001-aaaaaaaa"
ATTENTION_PLAN = "plan-0001-cccccccc"
STALE_PLAN = "plan-0001-dddddddd"


def plan_goal(layout: Layout, rationale: str | None = None) -> None:
    """A goal whose first graph was superseded by an applied plan; plan 2 awaits approval (shared dep)."""
    b.work(layout, "fixtures", title="Write the fixtures")
    b.work(layout, "investigate", title="Investigate the crash", deps=("fixtures",))
    b.work(layout, "parser", title="Ship the parser", deps=("investigate", "fixtures"))
    b.attempt(layout, "fixtures", "run-fixtures-1", status="passed")
    b.accept(layout, "fixtures", "run-fixtures-1")
    b.attempt(
        layout,
        "investigate",
        "run-investigate-1",
        status="failed",
        summary="segfault in the lexer",
        criteria=(("it works", "unsatisfied"),),
    )
    b.goal(layout, PLAN_GOAL, root="parser", title="Ship the parser rewrite", reviewers=True)
    b.plan(
        layout,
        PLAN_GOAL,
        APPLIED_PLAN,
        sequence=1,
        root_key="fix",
        steps=(
            b.step("lexer", "Fix the lexer", deps=("fixtures",)),
            b.step("fix", "Re-run the parser suite", deps=("lexer", "fixtures")),
        ),
    )
    b.applied(layout, PLAN_GOAL, APPLIED_PLAN)
    b.attempt(
        layout,
        f"{APPLIED_PLAN}-lexer",
        "run-lexer-1",
        status="failed",
        summary="lexer still crashes",
        criteria=(("lexer done", "unsatisfied"),),
    )
    b.plan(
        layout,
        PLAN_GOAL,
        PENDING_PLAN,
        sequence=2,
        root_key="verify",
        rationale=rationale
        or (
            "The lexer fix failed twice on nested brackets. Split the work: first add a "
            "bracket-depth guard, then verify the suite on the fixtures. " + b.HOSTILE
        ),
        steps=(
            b.step(
                "guard",
                "Add a bracket-depth guard",
                deps=(f"{APPLIED_PLAN}-lexer",),
                objective="Guard recursion depth in the lexer so nested input cannot overflow.",
            ),
            b.step("verify", "Verify the parser suite", deps=("guard", "fixtures")),
        ),
    )
    b.review(layout, PLAN_GOAL, PENDING_PLAN)


def attention_goal(
    layout: Layout,
    *,
    eligible: bool = True,
    goal_id: str = ATTENTION_GOAL,
    plan_id: str = ATTENTION_PLAN,
    root: str = "deploy",
) -> None:
    """A blocked root and a plan in attention; not eligible when its fingerprint is stale."""
    b.work(layout, root, title="Deploy the service")
    b.attempt(
        layout,
        root,
        f"run-{root}-1",
        status="failed",
        summary="health check timed out",
        criteria=(("it works", "unsatisfied"),),
    )
    b.goal(layout, goal_id, root=root, title="Deploy to staging")
    b.plan(
        layout,
        goal_id,
        plan_id,
        sequence=1,
        decision="attention",
        stale=not eligible,
        rationale="I cannot tell whether the health check or the network is at fault.",
    )
    b.attention(layout, goal_id, plan_id, "the planner needs a human: is staging reachable?")


def review_goal(layout: Layout) -> None:
    """Work in review carrying two open findings from an earlier reopen."""
    b.work(layout, "docs", title="Write the user guide")
    b.attempt(layout, "docs", "run-docs-1", status="passed")
    b.reopen(layout, "docs", "the install section skips the venv", "screenshots are missing", actor="bob")
    b.attempt(layout, "docs", "run-docs-2", status="passed", number=2)
    b.goal(layout, REVIEW_GOAL, root="docs", title="Publish the guide")


def approval_goal(layout: Layout) -> None:
    b.work(layout, "migrate", title="Migrate the database")
    b.attempt(layout, "migrate", "run-migrate-1", status="parked")
    b.approval_request(layout, "migrate", "run-migrate-1", APPROVAL_GOAL, "May I run the migration on prod?")
    b.goal(layout, APPROVAL_GOAL, root="migrate", title="Migrate prod")


def everything(layout: Layout) -> None:
    """One goal per decision kind, plus a corrupt goal beside the sound ones."""
    plan_goal(layout)
    attention_goal(layout)
    review_goal(layout)
    b.corrupt_goal(layout, CORRUPT_GOAL)
    approval_goal(layout)


def standalone_work(layout: Layout) -> None:
    """Work created on its own (no goal): one in review with a finding, one parked on an approval, one done."""
    b.work(layout, "hotfix", title="Hotfix the login page")
    b.attempt(layout, "hotfix", "run-hotfix-1", status="passed")
    b.reopen(layout, "hotfix", "the error message leaks the user id", actor="bob")
    b.attempt(layout, "hotfix", "run-hotfix-2", status="passed", number=2)
    b.work(layout, "rotate", title="Rotate the API keys")
    b.attempt(layout, "rotate", "run-rotate-1", status="parked")
    b.approval_request(layout, "rotate", "run-rotate-1", None, "May I revoke the old keys now?")
    b.work(layout, "cleanup", title="Clean up the tmp bucket")
    b.attempt(layout, "cleanup", "run-cleanup-1", status="passed")
    b.accept(layout, "cleanup", "run-cleanup-1")


def agents_goal(layout: Layout) -> None:
    """The tree root is a git repository; `greet` had two attempts by an agent, each committed on its own branch
    (attempt 2 from attempt 1's commit, after a reopen), and is in review. Attempt 2's diff has a line of markup
    and an ANSI escape, a tab, and enough lines to scroll."""
    repo = g.repository(layout.root)
    b.work(layout, "greet", title="Greet the user by name", accept=("the greeting names the user",))
    first = g.commit_change(
        repo,
        layout.run(AGENT_RUNS[0]) / "scratch" / "workspace",
        f"harn/greet/{AGENT_RUNS[0]}",
        {"app.py": "def main(name):\n    return f'hello {name}'\n"},
    )
    b.attempt(layout, "greet", AGENT_RUNS[0], status="passed", summary="greets by name", workspace=first)
    b.reopen(layout, "greet", "say goodbye too", actor="bob")
    body = "".join(f"    print('line {n}')\n" for n in range(1, 41))
    second = g.commit_change(
        repo,
        layout.run(AGENT_RUNS[1]) / "scratch" / "workspace",
        f"harn/greet/{AGENT_RUNS[1]}",
        {
            "app.py": "def main(name):\n    return f'hello {name}, goodbye'\n",
            "farewell.py": f"# {b.HOSTILE}\ndef farewell():\n\treturn 'bye'\n{body}",
        },
        base=first["commit"],
    )
    b.attempt(
        layout, "greet", AGENT_RUNS[1], status="passed", number=2, summary="greets and says goodbye", workspace=second
    )
    b.goal(layout, AGENTS_GOAL, root="greet", title="Greet users")


REVISED_GOAL = "goal-08-revised"
REVISED_PLAN = "plan-0001-eeeeeeee"


def revised_goal(layout: Layout) -> None:
    """A plan the reviewer sent back once: round 0 (one step, review `revise` with a blocking finding), round 1
    (a probe step added, the fix now after it, review approved); the revised candidate awaits approval."""
    b.work(layout, "ingest", title="Ingest the feed")
    b.attempt(
        layout,
        "ingest",
        "run-ingest-1",
        status="failed",
        summary="feed parser crashed",
        criteria=(("it works", "unsatisfied"),),
    )
    b.goal(layout, REVISED_GOAL, root="ingest", title="Ingest the partner feed", reviewers=True)
    first = (b.step("fix", "Patch the feed parser"),)
    revised = (
        b.step("probe", "Capture a failing feed sample"),
        b.step("fix", "Patch the feed parser", deps=("probe",)),
    )
    b.revised_plan(
        layout,
        REVISED_GOAL,
        REVISED_PLAN,
        rounds=[
            (
                "Patch the parser where it crashed.",
                first,
                "fix",
                b.verdict("revise", "Reproduce it first.", blocking="no failing sample"),
            ),
            (
                "Capture a failing sample, then patch the parser against it.",
                revised,
                "fix",
                b.verdict("approve", "Now it is reproducible."),
            ),
        ],
    )
