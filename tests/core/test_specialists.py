"""Specialist adapters: command (stdin/stdout, env, cwd, timeout kills the group, crash), scripted selection,
and the claude-code / codex adapters against fake CLIs on PATH that print what the real ones print."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.records import SpecialistProfile
from harn_tui.core.specialists import SpecialistCall, SpecialistFailure, call_specialist

FIXTURES = Path(__file__).parent.parent / "fixtures"
SPECIALISTS = FIXTURES / "specialists"
FAKE_CLI = FIXTURES / "fake_cli"


def make_call(
    profile: SpecialistProfile,
    request: dict[str, Any] | None = None,
    *,
    sequence: int = 1,
    call_index: int = 1,
    role: str = "planner",
) -> SpecialistCall:
    return SpecialistCall(
        role=role,  # type: ignore[arg-type]
        member_id="planner" if role == "planner" else "critic",
        profile=profile,
        request=request or {"plan_id": "plan-0001-abcdef01"},
        sequence=sequence,
        call_index=call_index,
        context={"HARN_GOAL_ID": "goal-1", "HARN_PLAN_ID": "plan-0001-abcdef01"},
    )


def command(*argv: str, timeout_s: int = 30, cwd: Path = SPECIALISTS) -> SpecialistProfile:
    return SpecialistProfile(
        adapter="command", argv=list(argv), timeout_s=timeout_s, instructions="Plan.", cwd=str(cwd)
    )


def test_command_gets_the_request_on_stdin_and_a_documented_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("INHERITED_MARKER", "kept")
    profile = command("python3", str(SPECIALISTS / "echo_env.py"))
    reply = json.loads(call_specialist(make_call(profile, {"hello": "planner"}, sequence=3, call_index=2)))
    assert reply["request"] == {"hello": "planner"}
    assert reply["cwd"] == str(SPECIALISTS)
    expected = {
        "INHERITED_MARKER": "kept",
        "HARN_ROLE": "planner",
        "HARN_SPECIALIST": "planner",
        "HARN_PLAN_SEQUENCE": "3",
        "HARN_CALL": "2",
        "HARN_GOAL_ID": "goal-1",
        "HARN_PLAN_ID": "plan-0001-abcdef01",
    }
    assert {key: reply["env"].get(key) for key in expected} == expected


def test_reviewer_role_is_in_the_environment() -> None:
    profile = command("python3", str(SPECIALISTS / "echo_env.py"))
    reply = json.loads(call_specialist(make_call(profile, role="reviewer")))
    assert reply["env"]["HARN_ROLE"] == "reviewer"
    assert reply["env"]["HARN_SPECIALIST"] == "critic"


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    profile = command("python3", str(SPECIALISTS / "hang.py"), str(pid_file), timeout_s=1)
    started = time.monotonic()
    with pytest.raises(SpecialistFailure) as caught:
        call_specialist(make_call(profile))
    assert caught.value.kind == "timeout"
    assert "within 1 s" in caught.value.message
    assert time.monotonic() - started < 5
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 2
    while _alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _alive(grandchild), f"grandchild {grandchild} survived the timeout"


def _alive(pid: int) -> bool:
    """Running (a zombie awaiting its reaper counts as gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "zombie" not in status


def test_non_zero_exit_is_a_crash_with_stderr() -> None:
    with pytest.raises(SpecialistFailure) as caught:
        call_specialist(make_call(command("python3", str(SPECIALISTS / "crash.py"))))
    assert caught.value.kind == "crash"
    assert "exited 3" in caught.value.message
    assert "planner model unavailable" in caught.value.message


def test_a_missing_executable_is_a_crash() -> None:
    with pytest.raises(SpecialistFailure) as caught:
        call_specialist(make_call(command("/nonexistent/planner")))
    assert caught.value.kind == "crash"
    assert "could not start" in caught.value.message


# ----- scripted


def scripted(tmp_path: Path, *lines: str) -> SpecialistProfile:
    replies = tmp_path / "replies.jsonl"
    replies.write_text("".join(line + "\n" for line in lines))
    return SpecialistProfile(adapter="scripted", replies=str(replies), instructions="Plan.")


def test_scripted_line_n_answers_sequence_n_and_the_last_line_every_later_one(tmp_path: Path) -> None:
    profile = scripted(tmp_path, '{"n": 1}', '{"n": 2}')
    answers = [json.loads(call_specialist(make_call(profile, sequence=s)))["n"] for s in (1, 2, 3, 7)]
    assert answers == [1, 2, 2, 2]


def test_scripted_array_answers_the_kth_call_and_strings_are_raw_text(tmp_path: Path) -> None:
    profile = scripted(tmp_path, '["not json at all", {"decision": "attention"}]')
    assert call_specialist(make_call(profile, call_index=1)) == "not json at all"
    assert json.loads(call_specialist(make_call(profile, call_index=2))) == {"decision": "attention"}
    assert json.loads(call_specialist(make_call(profile, call_index=3))) == {"decision": "attention"}


def test_scripted_missing_file_is_a_crash(tmp_path: Path) -> None:
    profile = SpecialistProfile(adapter="scripted", replies=str(tmp_path / "nope.jsonl"), instructions="Plan.")
    with pytest.raises(SpecialistFailure) as caught:
        call_specialist(make_call(profile))
    assert caught.value.kind == "crash"


# ----- model CLIs


@pytest.fixture
def fake_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    monkeypatch.setenv("PATH", f"{FAKE_CLI}{os.pathsep}{os.environ['PATH']}")
    log = tmp_path / "cli.json"
    monkeypatch.setenv("FAKE_CLI_LOG", str(log))
    return log


@pytest.mark.parametrize("adapter", ["claude-code", "codex"])
def test_model_cli_reply_is_parsed_from_its_json_output(
    adapter: str, fake_path: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    reply = {"decision": "attention", "rationale": "needs a human"}
    monkeypatch.setenv("FAKE_CLI_REPLY", "```json\n" + json.dumps(reply) + "\n```")
    profile = SpecialistProfile(
        adapter=adapter, model="sonnet", instructions="You plan recovery work.", cwd=str(tmp_path)
    )
    text = call_specialist(make_call(profile, {"plan_id": "plan-0001-abcdef01", "trigger": "recovery"}))
    assert json.loads(text) == reply
    seen = json.loads(fake_path.read_text())
    assert seen["role"] == "planner"
    assert "You plan recovery work." in seen["stdin"]
    assert '"trigger": "recovery"' in seen["stdin"]
    assert seen["argv"][seen["argv"].index("--model") + 1] == "sonnet"
    if adapter == "claude-code":
        assert seen["argv"][1:4] == ["-p", "--output-format", "json"]
    else:
        assert seen["argv"][1:3] == ["exec", "--json"] and seen["argv"][-1] == "-"


@pytest.mark.parametrize("adapter", ["claude-code", "codex"])
def test_model_cli_error_is_a_crash(adapter: str, fake_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_CLI_MODE", "error")
    profile = SpecialistProfile(adapter=adapter, instructions="Plan.")
    with pytest.raises(SpecialistFailure) as caught:
        call_specialist(make_call(profile))
    assert caught.value.kind == "crash"


def test_claude_error_envelope_with_exit_zero_is_a_crash(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "claude"
    fake.write_text(
        '#!/bin/sh\ncat >/dev/null\necho \'{"type":"result","subtype":"error_max_turns",'
        '"is_error":true,"num_turns":3}\'\n'
    )
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    with pytest.raises(SpecialistFailure) as caught:
        call_specialist(make_call(SpecialistProfile(adapter="claude-code", instructions="Plan.")))
    assert "error_max_turns" in caught.value.message
