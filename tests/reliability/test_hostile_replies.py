"""Hostile planner and reviewer replies: huge, deeply nested, not JSON, several values, markup and terminal
escapes. The supervisor records `plan.failed` (class `invalid`) or attention with a reason naming the problem and
never crashes; accepted text is stored unchanged; the real console shows it as literal characters."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harn_tui.core.fsio import record_bytes
from harn_tui.core.layout import Layout
from harn_tui.core.planning import run_plan_cycle
from harn_tui.core.planning.inputs import input_document
from harn_tui.core.planning.validation import PlanRules, check_planner_reply
from harn_tui.core.queries import show_goal
from harn_tui.core.records import FrozenTemplate, PlannerInput
from harn_tui.core.specialists.process import MAX_REPLY_BYTES
from harn_tui.core.verify import verify_tree
from harn_tui.tui.text import visible
from tests.goal_kit import GoalKit, apply_reply, command, item, lose_attempt, make_root, plan_events, plan_files, read
from tests.goal_kit import scripted as scripted_member
from tests.reliability.conftest import Figures

MARKUP = "[bold red]boom[/] [link=http://evil.example]click[/link] [@click=app.quit]quit[/] [$x] [/oops]"
ESCAPES = "\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\\x07\x9b31m\x90q\x1bP"
HOSTILE_TEXT = f"Ask a human: {MARKUP} {ESCAPES} end"

DEEP = 100_000
NOT_ACCEPTED: dict[str, tuple[str, str]] = {
    # name: (reply text, what the recorded reason must say)
    "deep lists": ("[" * DEEP + "]" * DEEP, "nested deeper than"),
    "deep objects": ('{"a":' * DEEP + "1" + "}" * DEEP, "nested deeper than"),
    "deep inside a field": (
        '{"decision":"attention","rationale":"x","extra":' + "[" * 900 + "]" * 900 + "}",
        "nested deeper than",
    ),
    "huge string": (json.dumps({"decision": "attention", "rationale": "x" * 3_000_000}), "at most 2000 characters"),
    "not JSON": ("I think you should split the work.", "not JSON"),
    "several JSON values": (
        '{"decision":"attention","rationale":"a"}\n{"decision":"attention","rationale":"b"}',
        "not JSON: Extra data",
    ),
    "empty": ("", "not JSON"),
    "NUL": ("\x00", "not JSON"),
    "array": ("[1, 2, 3]", "one JSON object, not list"),
    "NaN": ('{"decision":"attention","rationale":NaN}', "NaN is not JSON"),
    "lone surrogate": ('{"decision":"attention","rationale":"\\ud800"}', "lone surrogate"),
    "huge integer": ('{"decision":"attention","rationale":"x","n":' + "9" * 5000 + "}", "not JSON"),
    "markup as a key": (
        json.dumps({"decision": "attention", "rationale": "x", MARKUP + ESCAPES: 1}),
        "Extra inputs are not permitted",
    ),
}


@pytest.fixture
def kit(layout: Layout, tmp_path: Path) -> GoalKit:
    directory = tmp_path / "files"
    directory.mkdir()
    return GoalKit(layout, directory)


def stuck_goal(kit: GoalKit, **create: Any) -> str:
    """A goal whose root's one attempt was lost: the planner is due."""
    root = make_root(kit.layout)
    goal_id = kit.create(root_work=root, **create)
    lose_attempt(kit.layout, root, goal_id)
    return goal_id


def raw(text: str) -> str:
    """A scripted reply line whose reply is exactly `text` (a JSON string is the raw reply)."""
    return text


@pytest.mark.parametrize("name", list(NOT_ACCEPTED))
def test_a_hostile_planner_reply_is_a_failed_plan_with_a_clear_reason(
    kit: GoalKit, name: str, figures: Figures
) -> None:
    text, says = NOT_ACCEPTED[name]
    kit.team["planner"] = scripted_member(kit.directory, "planner", [raw(text), raw(text)])
    goal_id = stuck_goal(kit)
    work_before = sorted(p.name for p in kit.layout.work_dir.iterdir())
    outcome = run_plan_cycle(kit.layout, goal_id)
    figures.add("hostile input: planner/reviewer replies tried")
    assert outcome is not None and (outcome.status, outcome.failure_class) == ("failed", "invalid")
    assert outcome.reason is not None and says in outcome.reason and len(outcome.reason) <= 2000
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert [(e["event"], e["class"]) for e in plan_events(plan_dir)] == [("plan.failed", "invalid")]
    retry = read(plan_dir / "planner-retry.json")  # the second input quotes the first reply, bounded
    assert len(json.dumps(retry["previous_reply"])) < 4 * 1024 * 1024
    assert not (plan_dir / "proposal.json").exists()
    assert sorted(p.name for p in kit.layout.work_dir.iterdir()) == work_before
    assert show_goal(kit.layout, goal_id).state != "corrupt"
    assert verify_tree(kit.layout) == []


def test_markup_and_escapes_in_an_attention_reply_are_stored_unchanged(kit: GoalKit, figures: Figures) -> None:
    kit.team["planner"] = scripted_member(
        kit.directory, "planner", {"decision": "attention", "rationale": HOSTILE_TEXT}
    )
    goal_id = stuck_goal(kit)
    outcome = run_plan_cycle(kit.layout, goal_id)
    figures.add("hostile input: planner/reviewer replies tried")
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert read(plan_dir / "proposal.json")["rationale"] == HOSTILE_TEXT
    assert plan_events(plan_dir)[-1] == {**plan_events(plan_dir)[-1], "event": "plan.attention", "reason": HOSTILE_TEXT}
    assert show_goal(kit.layout, goal_id).plans[-1].reason == HOSTILE_TEXT
    assert verify_tree(kit.layout) == []


def test_markup_in_planned_work_and_a_reviewer_reply_is_stored_unchanged(kit: GoalKit, figures: Figures) -> None:
    title = f"Fix {MARKUP}"[:200]
    step = {**item("fix"), "title": title, "objective": f"Objective {ESCAPES} done"}
    kit.team["planner"] = scripted_member(kit.directory, "planner", apply_reply(step, rationale=HOSTILE_TEXT))
    kit.team["critic"] = scripted_member(
        kit.directory,
        "critic",
        {
            "verdict": "revise",
            "rationale": HOSTILE_TEXT,
            "findings": [{"code": "markup", "severity": "blocking", "summary": MARKUP + ESCAPES}],
        },
    )
    goal_id = stuck_goal(kit, reviewers=("critic",))
    outcome = run_plan_cycle(kit.layout, goal_id)
    figures.add("hostile input: planner/reviewer replies tried", 2)
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    candidate = read(plan_dir / "candidate.json")
    assert (candidate["rationale"], candidate["work"][0]["title"]) == (HOSTILE_TEXT, title)
    assert candidate["work"][0]["objective"] == f"Objective {ESCAPES} done"
    review = read(plan_dir / "review.json")["reviews"][0]
    assert review["rationale"] == HOSTILE_TEXT and review["findings"][0]["summary"] == MARKUP + ESCAPES
    [attention] = plan_events(plan_dir)
    assert HOSTILE_TEXT in attention["reason"] and MARKUP + ESCAPES in attention["reason"]


@pytest.mark.parametrize("name", ["deep lists", "not JSON", "lone surrogate", "NaN"])
def test_a_hostile_reviewer_reply_counts_as_attention_and_says_why(kit: GoalKit, name: str, figures: Figures) -> None:
    text, says = NOT_ACCEPTED[name]
    kit.team["planner"] = scripted_member(kit.directory, "planner", apply_reply(item("fix")))
    kit.team["critic"] = scripted_member(kit.directory, "critic", [raw(text), raw(text)])
    goal_id = stuck_goal(kit, reviewers=("critic",))
    outcome = run_plan_cycle(kit.layout, goal_id)
    figures.add("hostile input: planner/reviewer replies tried")
    assert outcome is not None and outcome.status == "attention"
    [plan_dir] = plan_files(kit.layout, goal_id)
    review = read(plan_dir / "review.json")
    assert review["outcome"] == "attention" and says in review["reviews"][0]["rationale"]
    assert not (plan_dir / "proposal.json").exists()
    assert verify_tree(kit.layout) == []


# ----- real planner processes: the reply limit is enforced while reading, not after


def planner_script(directory: Path, name: str, body: str) -> Path:
    path = directory / f"{name}.py"
    path.write_text("import sys, json\nsys.stdin.read()\n" + body)
    return path


PROCESS_REPLIES = {
    "endless output": ("while True:\n    sys.stdout.write('x' * 65536)\n", "invalid", "reply limit"),
    "8 MB then exit": ("sys.stdout.write('[' + '1,' * (4 * 1024 * 1024) + '1]')\n", "invalid", "reply limit"),
    "invalid UTF-8": ('sys.stdout.buffer.write(b\'{"decision": "\\xff\\xfe"}\')\n', "invalid", "not UTF-8"),
    "two JSON values": (
        "print(json.dumps({'decision': 'attention', 'rationale': 'a'}) * 2)\n",
        "invalid",
        "Extra data",
    ),
    "escapes on stderr, exit 3": (
        "sys.stderr.write('\\x1b[2J\\x1b]52;c;eA==\\x07 bad'); sys.exit(3)\n",
        "crash",
        "exited 3",
    ),
}


@pytest.mark.parametrize("name", list(PROCESS_REPLIES))
def test_a_hostile_planner_process_is_bounded_and_recorded(kit: GoalKit, name: str, figures: Figures) -> None:
    body, kind, says = PROCESS_REPLIES[name]
    script = planner_script(kit.directory, name.replace(" ", "_").replace(",", ""), body)
    kit.team["planner"] = command(sys.executable, str(script), timeout_s=60)
    goal_id = stuck_goal(kit)
    started = time.monotonic()
    outcome = run_plan_cycle(kit.layout, goal_id)
    figures.add("hostile input: planner/reviewer replies tried")
    assert time.monotonic() - started < 30  # killed at the limit, not at the 60 s timeout
    assert outcome is not None and (outcome.status, outcome.failure_class) == ("failed", kind)
    assert outcome.reason is not None and says in outcome.reason
    [plan_dir] = plan_files(kit.layout, goal_id)
    assert [e["event"] for e in plan_events(plan_dir)] == ["plan.failed"]
    assert verify_tree(kit.layout) == []


def test_the_reply_limit_is_the_documented_one() -> None:
    assert MAX_REPLY_BYTES == 4 * 1024 * 1024


# ----- validation never raises and what it quotes back is always storable


def _rules() -> PlanRules:
    template = FrozenTemplate(path="/t", sha256="0" * 64, root=True)
    return PlanRules(
        trigger="recovery",
        is_mission=False,
        catalog={"implement": template},
        active_ids=frozenset({"root-work"}),
        max_items_per_plan=8,
        items_remaining=25,
        milestones_completed=0,
        max_milestones=None,
    )


HOSTILE_CHARS = st.sampled_from(
    ["\x1b", "\x00", "\x07", "\x9b", "\ud800", "\udfff", "[", "]", "{", '"', "\\", "\u202e", "ｄ", "\u0430", "\x85"]
)
TEXT = st.text(st.one_of(st.characters(), HOSTILE_CHARS), max_size=60)
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=30,
)
REPLY_SHAPED = st.fixed_dictionaries(
    {"decision": st.sampled_from(["apply", "attention", "complete", "ａｐｐｌｙ"]) | TEXT, "rationale": TEXT},
    optional={
        "work": st.lists(
            st.dictionaries(
                st.sampled_from(["key", "title", "objective", "template", "dependencies", "acceptance"]), JSONISH
            ),
            max_size=3,
        ),
        "root": JSONISH,
        "milestone": JSONISH,
    },
)


@pytest.fixture(scope="module")
def planner_input(tmp_path_factory: pytest.TempPathFactory) -> PlannerInput:
    """A real planner input (from one cycle), to prove every quoted reply serializes into a retry input."""
    from harn_tui.core.creation import init_tree

    base = tmp_path_factory.mktemp("input")
    (base / "root").mkdir()
    (base / "files").mkdir()
    kit = GoalKit(init_tree(base / "root"), base / "files")
    kit.team["planner"] = scripted_member(kit.directory, "planner", {"decision": "attention", "rationale": "x"})
    goal_id = stuck_goal(kit)
    run_plan_cycle(kit.layout, goal_id)
    [plan_dir] = plan_files(kit.layout, goal_id)
    return PlannerInput.model_validate(read(plan_dir / "planner-input.json"))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    reply=st.one_of(
        TEXT,
        JSONISH.map(lambda v: json.dumps(v, ensure_ascii=False)),
        REPLY_SHAPED.map(lambda v: json.dumps(v, ensure_ascii=False)),
        st.builds(lambda a, b: a + b, TEXT, TEXT),
    )
)
def test_any_reply_is_checked_without_raising_and_quoted_storably(
    reply: str, planner_input: PlannerInput, figures: Figures
) -> None:
    figures.add("hostile input: planner/reviewer replies tried")
    checked = check_planner_reply(reply, _rules())
    if checked.valid is not None:
        return
    assert checked.problems and all(p.path.startswith("$") and p.message for p in checked.problems)
    retry = planner_input.model_copy(update={"problems": list(checked.problems), "previous_reply": checked.previous})
    body = record_bytes(input_document(retry))
    assert json.loads(body)["previous_reply"] == json.loads(json.dumps(checked.previous))


# ----- the console shows accepted hostile text literally


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_console_shows_hostile_replies_as_literal_characters(
    kit: GoalKit, figures: Figures, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harn_tui.tui.app import HarnConsole
    from harn_tui.tui.widgets.content_view import ContentView
    from harn_tui.tui.widgets.plans import PlanHistory

    monkeypatch.setenv("HARN_FIXED_NOW", "2026-07-16T10:00:00Z")
    kit.team["planner"] = scripted_member(
        kit.directory, "planner", {"decision": "attention", "rationale": HOSTILE_TEXT}
    )
    goal_id = stuck_goal(kit)
    run_plan_cycle(kit.layout, goal_id)
    figures.add("hostile input: planner/reviewer replies tried")
    app = HarnConsole(kit.layout, actor="alice", watch=False, presence=False, root_label="ROOT")
    app.animation_level = "none"
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        assert app.main.goal_id == goal_id
        app.main.show_tab("plans")
        await pilot.pause()
        body = app.main.query_one(PlanHistory).body.text + app.main.query_one("#attention-body", ContentView).text
        shown = visible(HOSTILE_TEXT)
        assert MARKUP in body and "␛[2J" in body and "␛]52;c;ZXZpbA==␇" in body and "\\x9b31m" in body
        assert shown.split(" end")[0][-20:] in body
        assert not any(ch in body for ch in ("\x1b", "\x07", "\x9b", "\x90"))
        svg = app.export_screenshot()
        assert not any(ch in svg for ch in ("\x1b", "\x07", "\x9b"))
        assert "evil.example" not in svg.replace("[link=http://evil.example]", "")  # no live link target
        await pilot.press("tab")
        await pilot.pause()
        assert app.is_running  # `[@click=app.quit]` was text, not an action


HOSTILE_TEMPLATE = """
import datetime, json, os, sys
sys.stdout.buffer.write(b'out \\x1b[2J\\x1b]52;c;ZXZpbA==\\x07 \\x9b31m [bold red]x[/] [@click=app.quit]q[/] \\xff\\n')
sys.stderr.buffer.write(b'err \\x1b]8;;http://evil\\x1b\\\\link\\x1b]8;;\\x1b\\\\ \\x90 \\x07\\n')
manifest = json.load(open(os.environ["HARN_MANIFEST"]))
acceptance = [{"criterion": c, "status": "satisfied", "evidence": "\\x1b[31m[b]seen[/b]"}
              for c in manifest["work"]["acceptance"]]
json.dump({"schema_version": 1, "run_id": os.environ["HARN_RUN_ID"], "status": "succeeded",
           "summary": "done \\x1b[2J [link=http://evil]here[/link]", "acceptance": acceptance, "class": None,
           "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat()},
          open(os.environ["HARN_PROOF"], "w"))
"""
RAW_CONTROLS = ("\x1b", "\x07", "\x9b", "\x90", "\x00")


@pytest.mark.anyio
async def test_every_panel_shows_hostile_plan_work_and_transcript_text_literally(
    kit: GoalKit, figures: Figures, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile plan applied and run: its titles, objectives, criteria, proof and transcript reach every panel
    of the real console, and no raw control character reaches any screen."""
    from harn_tui.core.runner import run_work
    from harn_tui.core.transitions import approve_plan
    from harn_tui.tui.app import HarnConsole
    from tests.plan_builders import write_template

    template = write_template(kit.directory / "hostile", "loud.py", HOSTILE_TEMPLATE)
    kit.templates = {"implement": {"path": str(template), "root": True, "max_attempts": 3}}
    step = {
        **item("fix", title=f"Fix {MARKUP}"[:200]),
        "objective": f"Objective {ESCAPES} {MARKUP}",
        "acceptance": [f"criterion {ESCAPES}"[:500]],
    }
    kit.team["planner"] = scripted_member(kit.directory, "planner", apply_reply(step, rationale=HOSTILE_TEXT))
    goal_id = stuck_goal(kit)
    outcome = run_plan_cycle(kit.layout, goal_id)
    assert outcome is not None and outcome.status == "proposed"
    approve_plan(kit.layout, goal_id, outcome.plan_id, actor="alice")
    result = run_work(kit.layout, f"{outcome.plan_id}-fix", actor="alice", retry=False)
    assert result.status == "passed"
    figures.add("hostile input: planner/reviewer replies tried")
    figures.add("hostile input: templates tried")
    monkeypatch.setenv("HARN_FIXED_NOW", "2026-07-16T10:00:00Z")
    app = HarnConsole(kit.layout, actor="alice", watch=False, presence=False, root_label="ROOT")
    app.animation_level = "none"
    screens: list[str] = []
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        for key in ("1", "2", "down", "enter", "3", "4", "5", "6", "tab", "ctrl+p", "escape"):
            await pilot.press(key)
            await pilot.pause()
            screens.append(app.export_screenshot())
        assert app.is_running
    shown = "".join(screens)
    assert not [c for c in RAW_CONTROLS if c in shown]
    plain = shown.replace("&#160;", " ")
    for literal_text in (
        "out ␛[2J␛]52;c;ZXZpbA==␇",
        "err ␛]8;;http://evil",
        "[bold red]x[/]",
        "[@click=app.quit]",
        "\\x9b31m",
        "done ␛[2J [link=http://evil]here[/link]",
        f"Objective {visible(ESCAPES)[:12]}",
    ):
        assert literal_text in plain, literal_text  # the transcript, proof, plan and work, shown as characters
