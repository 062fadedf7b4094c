"""Accounts that may not read a tree: outside a shared tree's group, or anyone but the owner of a private one.
Every read verb, verify and the console exit 6 with one line naming the path (and the group); nothing in the
tree changes. A file inside a readable tree that is not readable is a problem; the rest keeps showing."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.accounts import Account, Accounts
from tests.shared.conftest import snapshot

GOAL = "goal-pair"


def read_verbs(plan_id: str) -> list[tuple[str, ...]]:
    return [
        ("supervisor", "list"),
        ("supervisor", "show", GOAL),
        ("supervisor", "plan", "list", GOAL),
        ("supervisor", "plan", "show", GOAL, plan_id),
        ("work", "list"),
        ("work", "show", "flaky-root"),
        ("approval", "list"),
        ("approval", "show", "apr-run-20260101T000000Z-abcdef-1"),
        ("pending",),
        ("verify",),
        ("tui",),
        ("supervisor", "history", GOAL),
        ("supervisor", "show", GOAL, "--at", "event:1"),
        ("supervisor", "status"),
        ("supervisor", "plan", "diff", GOAL, plan_id),
        ("work", "diff", "flaky-root"),
        ("web", "--port", "18765"),
    ]


def shared_tree(accounts: Accounts, root: Path, assets: Path) -> str:
    """A tree shared with the group by alice (a goal with a pending plan); returns the plan id."""
    alice = accounts.alice
    accounts.harn_json(alice, root, "init", "--shared", accounts.group)
    accounts.harn_json(
        alice,
        root,
        "work",
        "create",
        "Retry the flaky test",
        str(assets / "templates" / "attempt-fails.py"),
        "--objective",
        "Pass.",
        "--accept",
        "green",
        "--max-attempts",
        "1",
        "--id",
        "flaky-root",
    )
    accounts.harn_json(
        alice,
        root,
        "supervisor",
        "create",
        "--team",
        str(assets / "team.json"),
        "--replanning",
        str(assets / "replanning-recovery.json"),
        "--root-work",
        "flaky-root",
        "--id",
        GOAL,
    )
    plan_id: str = accounts.harn_json(alice, root, "supervisor", "run", GOAL)["goal"]["pending_plan_id"]
    return plan_id


def assert_refused(accounts: Accounts, who: Account, root: Path, verbs: list[tuple[str, ...]], line: str) -> None:
    for verb in verbs:
        done = accounts.harn(who, root, *verb)
        assert (done.returncode, done.stdout, done.stderr) == (6, "", f"harn: {line}\n"), (verb, done)


def test_outside_the_group_every_read_verb_and_the_console_exit_6_naming_the_group(
    accounts: Accounts, place: Path, assets: Path
) -> None:
    alice, carol, group = accounts.alice, accounts.carol, accounts.group
    root = place / "pair"
    plan_id = shared_tree(accounts, root, assets)
    base = root / ".harnery"

    # the root as the guide sets it up (group-owned, 2750): carol cannot even enter it
    for command in (["chgrp", group, str(root)], ["chmod", "2750", str(root)]):
        assert accounts.run(alice, command).returncode == 0
    before = snapshot(root)
    assert_refused(
        accounts,
        carol,
        root,
        read_verbs(plan_id),
        f"cannot read {root}: Permission denied (EACCES); it is open to group {group} only (mode 2750), "
        f"and you ({carol.name}) are not in it: ask to be added to {group}",
    )
    # a root anyone may enter: the tree itself is what refuses, and says whose it is
    assert accounts.run(alice, ["chmod", "2755", str(root)]).returncode == 0
    before = snapshot(root)
    assert_refused(
        accounts,
        carol,
        root,
        [("supervisor", "show", GOAL), ("verify",), ("tui",)],
        f"cannot read {base}: Permission denied (EACCES); the tree is shared with group {group}, and "
        f"you ({carol.name}) are not in it: ask to be added to {group}",
    )
    as_json = accounts.harn(carol, root, "pending", "--json")
    assert as_json.returncode == 6 and json.loads(as_json.stdout)["error"]["code"] == "io"
    # found by searching upward from inside the tree's root, too
    found = accounts.run(carol, [accounts.python, "-m", "harn_tui", "supervisor", "list"], cwd=root)
    assert (found.returncode, found.stderr.count("\n"), "Traceback" in found.stderr) == (6, 1, False), found
    # write verbs are refused the same way, before anything is tried
    wrote = accounts.harn(
        carol, root, "work", "create", "X", str(assets / "templates" / "implement.py"), "--objective", "X."
    )
    assert wrote.returncode == 6 and f"group {group}" in wrote.stderr and "Traceback" not in wrote.stderr
    assert snapshot(root) == before


def test_a_private_tree_read_by_another_account_exits_6_in_one_line(
    accounts: Accounts, place: Path, assets: Path
) -> None:
    alice, bob = accounts.alice, accounts.bob
    root = place / "mine"
    accounts.harn_json(alice, root, "init")
    before = snapshot(root)
    verbs = [("supervisor", "list"), ("pending",), ("verify",), ("tui",)]
    assert_refused(
        accounts,
        bob,
        root,
        verbs,
        f"cannot read {root}: Permission denied (EACCES); it is private to {alice.name} (mode 0700): "
        f"ask {alice.name} to share it with `harn init --shared GROUP`",
    )
    assert accounts.run(alice, ["chmod", "0755", str(root)]).returncode == 0
    before = snapshot(root)
    assert_refused(
        accounts,
        bob,
        root,
        [("pending",), ("tui",)],
        f"cannot read {root / '.harnery'}: Permission denied (EACCES); it is private to {alice.name} "
        f"(mode 0700): ask {alice.name} to share it with `harn init --shared GROUP`",
    )
    assert snapshot(root) == before


def test_an_unreadable_file_in_a_readable_tree_is_a_problem_and_the_rest_shows(
    accounts: Accounts, place: Path, assets: Path
) -> None:
    alice, bob = accounts.alice, accounts.bob
    root = place / "pair"
    accounts.harn_json(alice, root, "init", "--shared", accounts.group)
    accounts.harn_json(
        alice,
        root,
        "work",
        "create",
        "Alice's",
        str(assets / "templates" / "implement.py"),
        "--objective",
        "A.",
        "--id",
        "alices",
    )
    for work_id in ("bobs", "bobs-dir"):
        accounts.harn_json(
            bob,
            root,
            "work",
            "create",
            "Bob's",
            str(assets / "templates" / "implement.py"),
            "--objective",
            "B.",
            "--id",
            work_id,
        )
    accounts.harn_json(
        bob,
        root,
        "supervisor",
        "create",
        "--team",
        str(assets / "team.json"),
        "--root-work",
        "bobs",
        "--id",
        "bobs-goal",
    )
    hidden = root / ".harnery" / "work" / "bobs" / "intent.json"
    os.chmod(hidden, 0o600)  # bob's umask on a copy: alice may no longer read it
    closed = root / ".harnery" / "work" / "bobs-dir"
    os.chmod(closed, 0o700)  # nor enter this directory
    goal_dir = root / ".harnery" / "supervisors" / "bobs-goal"
    os.chmod(goal_dir, 0o700)

    listed = accounts.harn_json(alice, root, "work", "list")
    ids = {item["id"]: item for item in listed["work"]}
    assert ids["alices"]["state"] == "ready"
    for work_id in ("bobs", "bobs-dir"):
        assert ids[work_id]["state"] == "corrupt" and "Permission denied" in ids[work_id]["reason"], ids[work_id]
    verified = accounts.harn_json(alice, root, "verify", expect=5)
    problems = {problem["path"]: problem["problem"] for problem in verified["problems"]}
    assert "Permission denied" in problems[str(hidden)], problems
    assert any(path.startswith(str(closed)) and "Permission denied" in problem for path, problem in problems.items()), (
        problems
    )

    # a serve loop (alice's console runs one) skips the goal it cannot read and goes on serving the others
    served = accounts.run(
        alice,
        [
            accounts.python,
            "-c",
            (
                "import json, sys, threading; from pathlib import Path; from harn_tui.core.layout import Layout; "
                "from harn_tui.core.supervisor.serve import enrolled_goals, serve_round; "
                "layout = Layout(Path(sys.argv[1])); goals = enrolled_goals(layout, []); "
                "result = serve_round(layout, goals, {}, threading.Event(), None); "
                "print(json.dumps([goals, result.errors]))"
            ),
            str(root),
        ],
    )
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout) == [["bobs-goal"], 0]
    assert "goal bobs-goal is unreadable, skipped" in served.stderr, served.stderr
