"""A shared tree written by two real accounts (one under umask 077) through every kind of write: afterwards
every directory is 2770 and every file 0660, all in the group; drift is reported by verify and repaired."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

from tests.accounts import Account, Accounts
from tests.agent.kit import FAKE_CLI
from tests.shared.conftest import mode_problems, walk

PRIVATE = 0o077


def test_every_kind_of_write_by_two_accounts_keeps_the_group_and_modes(
    accounts: Accounts, place: Path, assets: Path
) -> None:
    alice, bob, group = accounts.alice, accounts.bob, accounts.group
    root = place / "pair"

    def harn(who: object, *args: str, expect: int = 0, **kwargs: object) -> Any:
        return accounts.harn_json(who, root, *args, expect=expect, **kwargs)  # type: ignore[arg-type]

    # a private tree with a record, converted: every entry gets the group and the shared modes
    harn(alice, "init")
    harn(
        alice,
        "work",
        "create",
        "Private first",
        str(assets / "templates" / "implement.py"),
        "--objective",
        "Exist before the tree is shared.",
        "--id",
        "before-sharing",
    )
    assert stat.S_IMODE((root / ".harnery").stat().st_mode) == 0o700
    converted = harn(alice, "init", "--shared", group)
    assert converted["group"] == group and converted["unrepaired"] == []
    assert str(root / ".harnery" / "work" / "before-sharing" / "intent.json") in converted["repaired"]
    assert mode_problems(root / ".harnery", accounts.gid) == []
    # `harn init` made the root 0700: the group's members could not reach the tree, and init says so
    assert converted["unreachable"] == [f"{root} (mode 0700, owner {alice.name}, group users)"]
    for command in (["chgrp", group, str(root)], ["chmod", "2750", str(root)]):
        assert accounts.run(alice, command).returncode == 0
    again = harn(alice, "init", "--shared", group)
    assert again["repaired"] == again["unrepaired"] == again["unreachable"] == []

    # bob, under umask 077: records, appends and leases of work and a goal, an attempt (run directory, scratch,
    # transcript, proof, run lease, supervisor.lock), the planner's plan records
    harn(
        bob,
        "work",
        "create",
        "Retry the flaky test",
        str(assets / "templates" / "attempt-fails.py"),
        "--objective",
        "Make it pass by retrying.",
        "--accept",
        "200 green runs",
        "--max-attempts",
        "1",
        "--id",
        "flaky-root",
        umask=PRIVATE,
    )
    harn(
        bob,
        "supervisor",
        "create",
        "--team",
        str(assets / "team.json"),
        "--replanning",
        str(assets / "replanning-recovery.json"),
        "--root-work",
        "flaky-root",
        "--id",
        "goal-pair",
        umask=PRIVATE,
    )
    ran = harn(bob, "supervisor", "run", "goal-pair", umask=PRIVATE)
    plan_id = ran["goal"]["pending_plan_id"]
    assert plan_id, ran

    # in a shared tree an operator acts as their login name, whatever --actor or $HARN_ACTOR say
    approve = ("supervisor", "plan", "approve", "goal-pair", plan_id)
    for verb, extra_args, env in (
        (approve, ("--actor", alice.name), {}),
        (approve, (), {"HARN_ACTOR": alice.name}),
        (("pending",), (), {"HARN_ACTOR": alice.name}),
    ):
        refused = accounts.harn(bob, root, *verb, *extra_args, env=env)
        assert refused.returncode == 2, refused
        assert f"in a shared tree you act as {bob.name}" in refused.stderr and "Traceback" not in refused.stderr

    # alice approves (plan event, work materialized), bob runs the new root, alice accepts it
    approved = harn(alice, "supervisor", "plan", "approve", "goal-pair", plan_id, "--actor", alice.name)
    assert (approved["outcome"], approved["event"]["actor"]) == ("applied", alice.name)
    reviewed = harn(bob, "supervisor", "run", "goal-pair", umask=PRIVATE)
    new_root = reviewed["goal"]["root_work_id"]
    accepted = harn(alice, "work", "accept", new_root)
    assert accepted["event"]["actor"] == alice.name

    # an attempt that parks on an approval (scratch file by the template), decided by alice, resumed by bob
    harn(
        bob,
        "work",
        "create",
        "Rotate credentials",
        str(assets / "templates" / "ask-first.py"),
        "--objective",
        "Rotate them.",
        "--accept",
        "rotated",
        "--id",
        "ask-first",
        umask=PRIVATE,
    )
    parked = harn(bob, "work", "run", "ask-first", umask=PRIVATE)
    assert parked["status"] == "parked", parked
    harn(alice, "approval", "approve", parked["approval_id"], "--reason", "go ahead")
    resumed = harn(bob, "work", "run", "ask-first", umask=PRIVATE)
    assert resumed["status"] == "passed", resumed

    # a console heartbeat written by the core under umask 077 (no CLI umask help): the mode is set explicitly
    beat = accounts.run(
        bob,
        [
            accounts.python,
            "-c",
            (
                "import sys; from pathlib import Path; from harn_tui.core.layout import Layout; "
                "from harn_tui.core.presence import Heartbeat; "
                "Heartbeat(Layout(Path(sys.argv[1])), sys.argv[2], 'host', 4242).beat('goal-pair', 'plans')"
            ),
            str(root),
            bob.name,
        ],
        umask=PRIVATE,
    )
    assert beat.returncode == 0, beat.stderr
    assert (root / ".harnery" / "presence" / f"{bob.name}@host-4242.json").exists()

    assert harn(alice, "verify") == {"ok": True, "problems": []}
    entries = walk(root / ".harnery")
    assert mode_problems(root / ".harnery", accounts.gid) == []
    kinds = {path.name for path, _ in entries}
    assert {
        "goal.json",
        "lease",
        "supervisor.lock",
        "intent.json",
        "events.jsonl",
        "manifest.json",
        "transcript.jsonl",
        "proof.json",
        "scratch",
        "request.json",
        "proposal.json",
        "decision.json",
        "cache",
        "presence",
    } <= kinds, kinds
    template_wrote = [path for path, found in entries if path.parent.name == "scratch" and stat.S_ISREG(found.st_mode)]
    assert template_wrote, "the templates' own files in scratch/ are checked too"
    owners = {found.st_uid for _, found in entries}
    assert {alice.uid, bob.uid} <= owners
    actors = {
        json.loads(line)["actor"]
        for log in (root / ".harnery").rglob("events.jsonl")
        for line in log.read_text().splitlines()
    }
    assert actors == {alice.name, bob.name, "supervisor"}, actors


def test_verify_reports_drift_and_init_shared_repairs_what_each_owner_may(
    accounts: Accounts, place: Path, assets: Path
) -> None:
    alice, bob, carol, group = accounts.alice, accounts.bob, accounts.carol, accounts.group
    root = place / "pair"
    accounts.harn_json(alice, root, "init", "--shared", group)
    template = str(assets / "templates" / "implement.py")
    accounts.harn_json(alice, root, "work", "create", "A", template, "--objective", "A.", "--id", "by-alice")
    accounts.harn_json(bob, root, "work", "create", "B", template, "--objective", "B.", "--id", "by-bob")
    work = root / ".harnery" / "work"
    os.chmod(work / "by-alice" / "intent.json", 0o640)  # a umask or a `cp` without -p
    os.chmod(work / "by-alice", 0o770)  # setgid lost
    os.chown(work / "by-bob" / "events.jsonl", -1, bob.gid)  # copied in with bob's own group

    verified = accounts.harn_json(alice, root, "verify", expect=5)
    named = {problem["path"]: problem["problem"] for problem in verified["problems"]}
    assert set(named) == {
        str(work / "by-alice" / "intent.json"),
        str(work / "by-alice"),
        str(work / "by-bob" / "events.jsonl"),
    }, named
    assert "mode 0640, not 0660" in named[str(work / "by-alice" / "intent.json")]
    assert "mode 0770, not 2770" in named[str(work / "by-alice")]
    assert f"not {group}" in named[str(work / "by-bob" / "events.jsonl")]

    partial = accounts.harn_json(alice, root, "init", "--shared", group, expect=6)
    assert sorted(partial["repaired"]) == [str(work / "by-alice"), str(work / "by-alice" / "intent.json")]
    assert [entry["path"] for entry in partial["unrepaired"]] == [str(work / "by-bob" / "events.jsonl")]
    assert f"only {bob.name} (or root) can repair it" in partial["unrepaired"][0]["problem"]
    assert accounts.harn_json(bob, root, "init", "--shared", group)["repaired"] == [
        str(work / "by-bob" / "events.jsonl")
    ]
    assert accounts.harn_json(alice, root, "verify") == {"ok": True, "problems": []}
    assert mode_problems(root / ".harnery", accounts.gid) == []

    # the agents' starter kit beside a new shared tree
    kit_root = place / "agents"
    with_kit = accounts.harn_json(alice, kit_root, "init", "--shared", group, "--agents", "codex")
    assert with_kit["group"] == group and (kit_root / "harn" / "team.json").exists(), with_kit
    assert "agents" in with_kit and mode_problems(kit_root / ".harnery", accounts.gid) == []

    # only a member may share a tree with the group
    outsider = accounts.harn(carol, place / "carols", "init", "--shared", group)
    assert outsider.returncode == 2, outsider
    assert outsider.stderr.strip() == (
        f"harn: you ({carol.name}) are not a member of group {group}; a tree shared "
        f"with {group} admits exactly its members"
    )
    assert not (place / "carols").exists()
    assert subprocess.run(["ls", str(place)], capture_output=True, text=True).returncode == 0


def test_an_agent_attempt_by_one_account_in_a_repository_the_group_shares(accounts: Accounts, place: Path) -> None:
    """The agents' starter kit beside a shared tree in a group-shared git repository: bob (umask 077) runs the
    worker, whose workspace is a worktree of alice's repository; alice reads its diff; the tree stays shared."""
    alice, bob, group = accounts.alice, accounts.bob, accounts.group
    fake = place / "fake_cli"
    shutil.copytree(FAKE_CLI, fake, ignore=shutil.ignore_patterns("__pycache__"))
    for path in (fake, *fake.rglob("*")):
        path.chmod(0o755)
    calls = place / "calls"
    calls.mkdir()
    calls.chmod(0o777)
    project = place / "project"
    env = {
        "PATH": f"{fake}:{Path(accounts.python).parent}:/usr/local/bin:/usr/bin:/bin",
        "FAKE_CLI_RECORD_DIR": str(calls),
        "GIT_AUTHOR_NAME": "a",
        "GIT_AUTHOR_EMAIL": "a@example.org",
        "GIT_COMMITTER_NAME": "a",
        "GIT_COMMITTER_EMAIL": "a@example.org",
    }

    def run(who: Account, *command: str, umask: int = 0o022) -> subprocess.CompletedProcess[str]:
        done = accounts.run(who, list(command), env=env, umask=umask, cwd=project if project.exists() else place)
        assert done.returncode == 0, (who.name, command, done.stdout, done.stderr)
        return done

    def harn(who: Account, *args: str, umask: int = 0o022) -> Any:
        return json.loads(run(who, accounts.python, "-m", "harn_tui", *args, "--json", umask=umask).stdout)

    run(alice, "mkdir", str(project))
    run(alice, "chgrp", group, str(project))
    run(alice, "chmod", "2770", str(project))
    run(alice, "git", "init", "-q", "--shared=group", "-b", "main", str(project))
    run(alice, "git", "commit", "-q", "--allow-empty", "-m", "start")
    for who in (alice, bob):  # git trusts a repository another account owns only when told so
        run(who, "git", "config", "--global", "--add", "safe.directory", str(project))
    assert harn(alice, "init", "--shared", group, "--agents", "claude-code")["agents"]["files"]
    harn(
        bob,
        "supervisor",
        "create",
        "--team",
        "harn/team.json",
        "--replanning",
        "harn/replanning.json",
        "--mission",
        "harn/mission.json",
        "--id",
        "goal-agents",
        umask=PRIVATE,
    )
    plan_id = harn(bob, "supervisor", "run", "goal-agents", umask=PRIVATE)["goal"]["pending_plan_id"]
    harn(alice, "supervisor", "plan", "approve", "goal-agents", plan_id)
    ran = harn(bob, "supervisor", "run", "goal-agents", umask=PRIVATE)
    [item] = [w for w in ran["goal"]["work"] if w["active"]]
    assert item["state"] == "in_review", ran
    diff = harn(alice, "work", "diff", item["id"])
    assert diff["workspace"]["kind"] == "git" and "+def greet(name):" in diff["diff"]
    assert harn(alice, "verify") == {"ok": True, "problems": []}
    assert mode_problems(project / ".harnery", accounts.gid) == []
