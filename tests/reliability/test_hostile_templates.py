"""Hostile templates, run for real: children that outlive the template, a template that ignores SIGTERM, one
that prints gigabytes (or one endless line, or a flood of empty lines), and one that prints invalid UTF-8 and
terminal escapes. The runner kills the whole group (checked by pid), bounds what it stores, and records a failed
proof with the reason; what a template printed is stored as text, escapes and all, never interpreted."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.layout import Layout
from harn_tui.core.runner import AttemptResult, run_work
from harn_tui.core.verify import verify_tree
from tests.conftest import Harn
from tests.plan_builders import write_template
from tests.reliability.conftest import Figures

PROOF = """
import datetime, json, os, signal, sys, time

def proof(summary="done"):
    manifest = json.load(open(os.environ["HARN_MANIFEST"]))
    acceptance = [{"criterion": c, "status": "satisfied", "evidence": "seen"} for c in manifest["work"]["acceptance"]]
    with open(os.environ["HARN_PROOF"], "w") as handle:
        json.dump({"schema_version": 1, "run_id": os.environ["HARN_RUN_ID"], "status": "succeeded",
                   "summary": summary, "acceptance": acceptance, "class": None,
                   "finished_at": datetime.datetime.now(datetime.timezone.utc).isoformat()}, handle)

def child(name, ignore_term=False):
    pid = os.fork()
    if pid == 0:
        if ignore_term:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        time.sleep(120)
        os._exit(0)
    with open(os.path.join(os.environ["HARN_RUN_DIR"], name + ".pid"), "w") as handle:
        handle.write(str(pid))
"""

TEMPLATES = {
    "children outlive a normal exit": PROOF + "child('a'); child('b', ignore_term=True); proof(); sys.exit(0)\n",
    "children and a hang past the timeout": PROOF + "child('a', ignore_term=True); child('b'); time.sleep(120)\n",
    "ignores SIGTERM": PROOF + "signal.signal(signal.SIGTERM, signal.SIG_IGN)\nchild('a', ignore_term=True)\n"
    "time.sleep(120)\n",
    "leaves on SIGTERM": PROOF
    + (
        "def bye(*_):\n    open(os.path.join(os.environ['HARN_RUN_DIR'], 'got-term'), 'w').close()\n"
        "    sys.exit(1)\nsignal.signal(signal.SIGTERM, bye)\ntime.sleep(120)\n"
    ),
    "closes its output and hangs": PROOF
    + ("print('last words', flush=True)\nos.close(1)\nos.close(2)\ntime.sleep(120)\n"),
    "gigabytes to stdout": PROOF + "chunk = b'x' * 65535 + b'\\n'\nwhile True:\n    sys.stdout.buffer.write(chunk)\n",
    "a flood of empty lines": PROOF + "while True:\n    sys.stdout.buffer.write(b'\\n' * 65536)\n",
    "one endless line": PROOF + "while True:\n    sys.stderr.buffer.write(b'y' * 65536)\n",
    "invalid UTF-8 and escapes": PROOF
    + (
        "sys.stdout.buffer.write(b'bad \\xff\\xfe bytes\\n\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07 osc52\\n'"
        " b'\\x1b]8;;http://evil\\x1b\\\\link\\x1b]8;;\\x1b\\\\ \\x9b31m c1 \\x07 [bold red]markup[/]\\n')\n"
        "sys.stderr.buffer.write(b'\\x00nul \\xc3\\x28 \\xed\\xa0\\x80 surrogate\\n')\n"
        "proof('summary \\x1b[31m[link=http://x]y[/link]')\n"
    ),
}


def run(layout: Layout, tmp_path: Path, name: str, figures: Figures) -> tuple[AttemptResult, float]:
    template = write_template(tmp_path / "templates", name.replace(" ", "-") + ".py", TEMPLATES[name])
    work_id = "hostile-" + name.replace(" ", "-").replace(",", "")[:40]
    create_work(
        layout,
        title=name,
        template=template,
        objective="Survive.",
        acceptance=["done"],
        work_id=work_id,
        actor="tester",
    )
    figures.add("hostile input: templates tried")
    started = time.monotonic()
    result = run_work(layout, work_id, actor="tester", retry=False)
    return result, time.monotonic() - started


def alive(pid: int) -> bool:
    """Running and not a zombie waiting to be reaped."""
    try:
        status = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return status.rsplit(")", 1)[1].split()[0] != "Z"


def assert_dead(scratch: Path, *names: str) -> None:
    pids = [int((scratch / f"{name}.pid").read_text()) for name in names]
    deadline = time.monotonic() + 3
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in pids if alive(pid)], "a child of the template outlived it"


def transcript(layout: Layout, run_id: str) -> list[dict[str, Any]]:
    path = layout.run(run_id) / "transcript.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture(autouse=True)
def _short_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HARN_ATTEMPT_TIMEOUT_S", "1")
    monkeypatch.setenv("HARN_KILL_GRACE_S", "1")
    monkeypatch.setenv("HARN_OUTPUT_CAP_BYTES", str(1024 * 1024))


def test_children_that_outlive_a_normal_exit_are_killed(layout: Layout, tmp_path: Path, figures: Figures) -> None:
    result, took = run(layout, tmp_path, "children outlive a normal exit", figures)
    assert result.status == "passed" and took < 60  # no wait for the children (120 s) holding the pipes open
    assert_dead(layout.run(result.run_id) / "scratch", "a", "b")


def test_children_of_a_hung_template_die_with_it_on_timeout(layout: Layout, tmp_path: Path, figures: Figures) -> None:
    result, took = run(layout, tmp_path, "children and a hang past the timeout", figures)
    assert result.status == "failed" and (result.reason or "").startswith("timeout: the template ran longer than 1 s")
    assert took < 5
    assert_dead(layout.run(result.run_id) / "scratch", "a", "b")


def test_a_template_that_ignores_sigterm_is_killed_after_the_grace(
    layout: Layout, tmp_path: Path, figures: Figures
) -> None:
    result, took = run(layout, tmp_path, "ignores SIGTERM", figures)
    assert result.status == "failed" and "timeout" in (result.reason or "")
    assert 2 <= took < 6  # 1 s timeout + 1 s grace, then SIGKILL
    assert_dead(layout.run(result.run_id) / "scratch", "a")
    proof = json.loads((layout.run(result.run_id) / "proof.json").read_text())
    assert proof["status"] == "failed" and proof["summary"] == result.reason


def test_sigterm_comes_first_so_a_template_can_leave_cleanly(layout: Layout, tmp_path: Path, figures: Figures) -> None:
    result, took = run(layout, tmp_path, "leaves on SIGTERM", figures)
    assert (layout.run(result.run_id) / "scratch" / "got-term").exists()
    assert result.status == "failed" and "timeout" in (result.reason or "") and took < 5


def test_a_template_that_closes_its_output_still_times_out(layout: Layout, tmp_path: Path, figures: Figures) -> None:
    result, took = run(layout, tmp_path, "closes its output and hangs", figures)
    assert result.status == "failed" and (result.reason or "").startswith("timeout: the template ran longer than 1 s")
    assert took < 5
    assert ("stdout", "last words") in {(e["stream"], e["line"]) for e in transcript(layout, result.run_id)}


@pytest.mark.parametrize("name", ["gigabytes to stdout", "a flood of empty lines", "one endless line"])
def test_output_past_the_cap_kills_the_template_and_fails_the_attempt(
    layout: Layout, tmp_path: Path, name: str, figures: Figures, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HARN_ATTEMPT_TIMEOUT_S", "60")
    result, took = run(layout, tmp_path, name, figures)
    assert result.status == "failed" and took < 30  # stopped by the cap, long before the timeout
    assert (result.reason or "").startswith(f"output cap: the template printed more than {1024 * 1024} bytes")
    assert (layout.run(result.run_id) / "transcript.jsonl").stat().st_size <= 1024 * 1024
    assert result.work_state == "blocked"
    assert verify_tree(layout) == []


def test_invalid_utf8_and_escapes_are_stored_as_text(layout: Layout, tmp_path: Path, figures: Figures) -> None:
    result, _ = run(layout, tmp_path, "invalid UTF-8 and escapes", figures)
    assert result.status == "passed"
    lines = {(entry["stream"], entry["line"]) for entry in transcript(layout, result.run_id)}
    assert ("stdout", "bad \ufffd\ufffd bytes") in lines
    assert ("stdout", "\x1b[2J\x1b]52;c;ZXZpbA==\x07 osc52") in lines
    assert ("stdout", "\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\ \ufffd31m c1 \x07 [bold red]markup[/]") in lines
    assert ("stderr", "\x00nul \ufffd( \ufffd\ufffd\ufffd surrogate") in lines
    proof = json.loads((layout.run(result.run_id) / "proof.json").read_text())
    assert proof["summary"] == "summary \x1b[31m[link=http://x]y[/link]"
    assert verify_tree(layout) == []


def test_gigabytes_through_harn_work_run(harn: Harn, tmp_path: Path, figures: Figures) -> None:
    """The same cap in a real `harn work run` process, set by its environment."""
    template = write_template(tmp_path / "templates", "flood.py", TEMPLATES["gigabytes to stdout"])
    harn.json(
        "work", "create", "Flood", str(template), "--objective", "Print a lot.", "--accept", "done", "--id", "flood"
    )
    figures.add("hostile input: templates tried")
    started = time.monotonic()
    document = harn.json("work", "run", "flood", env={"HARN_OUTPUT_CAP_BYTES": str(2 * 1024 * 1024)})
    assert time.monotonic() - started < 20
    assert document["status"] == "failed" and document["reason"].startswith("output cap: ")
    run_dir = harn.root / ".harnery" / "runs" / document["run_id"]
    assert (run_dir / "transcript.jsonl").stat().st_size <= 2 * 1024 * 1024
    assert not os.path.exists(run_dir / "scratch" / "proof.json")
    assert harn.json("verify")["ok"] is True
