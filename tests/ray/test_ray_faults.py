"""Attempts on a real two-node Ray cluster when something goes wrong, and what a user sees of them: a node lost
mid-run, the harn process killed, a template changed, a timeout, a park resumed elsewhere, a megabyte of output.

The probe template (tests/fixtures/ray/probe.py) prints the pid of the raylet that runs it (its grandparent:
template, Ray worker, raylet), so a test knows which node ran an attempt, and can kill that node's raylet."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from harn_tui.core.executors.ray_cluster import RayExecutor
from harn_tui.core.layout import Layout
from harn_tui.core.queries import load_work_view
from harn_tui.core.runner import begin_attempt
from tests.conftest import Harn, harn_env, tree_bytes
from tests.ray.conftest import RAY_TEMPLATES, on_ray
from tests.ray_cluster import LocalCluster, alive

pytestmark = pytest.mark.timeout(900)  # the session's cluster may start in any one of these tests
ON_SECOND = {"HARN_RAY_RESOURCES": '{"second": 1}'}
ON_HEAD = {"HARN_RAY_RESOURCES": '{"head": 1}'}


def create(harn: Harn, mode: str, work_id: str) -> None:
    """A standalone item of the probe template doing `mode` (its objective)."""
    harn.json(
        "work",
        "create",
        work_id,
        str(RAY_TEMPLATES / "probe.py"),
        "--objective",
        mode,
        "--accept",
        "done",
        "--id",
        work_id,
    )


def charged(harn: Harn, work_id: str) -> int:
    """The attempts charged to the item (its own projection; the documents count every attempt)."""
    return load_work_view(Layout(harn.root), work_id)[1].charged_attempts


def transcript_lines(root: Path, run_id: str | None = None) -> list[dict[str, Any]]:
    runs = sorted((root / ".harnery" / "runs").glob("run-*")) if run_id is None else [root / ".harnery/runs" / run_id]
    lines: list[dict[str, Any]] = []
    for run in runs:
        path = run / "transcript.jsonl"
        if path.exists():
            lines += [json.loads(line) for line in path.read_text().splitlines() if line.endswith("}")]
    return lines


def wait_for_line(root: Path, prefix: str, process: subprocess.Popen[str], timeout: float = 120) -> str:
    """The first transcript line starting with `prefix`, read while the attempt runs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in transcript_lines(root):
            if line["line"].startswith(prefix):
                return str(line["line"])
        assert process.poll() is None, process.communicate()
        time.sleep(0.2)
    raise AssertionError(f"no transcript line {prefix!r} within {timeout:g} s")


def number_after(line: str, word: str) -> int:
    words = line.split()
    return int(words[words.index(word) + 1])


def harn_process(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(root), *args, "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=harn_env(env),
    )


def test_a_megabyte_of_transcript_arrives_in_order_and_complete(ray_cluster: LocalCluster, harn: Harn) -> None:
    create(harn, "megabyte", "work-mb")
    result = harn.json(*on_ray(ray_cluster, "work", "run", "work-mb"))
    assert result["status"] == "passed"
    lines = transcript_lines(harn.root, result["run_id"])
    assert [line["seq"] for line in lines] == list(range(1, 16385))
    assert [line["line"] for line in lines] == [f"line {n:05d} " + "x" * 52 for n in range(16384)]
    assert {line["stream"] for line in lines} == {"stdout"}


def test_the_output_cap_stops_a_flooding_template_on_the_worker_as_it_does_locally(
    ray_cluster: LocalCluster, harn: Harn
) -> None:
    cap = {"HARN_OUTPUT_CAP_BYTES": str(256 * 1024), "HARN_ATTEMPT_TIMEOUT_S": "60"}
    results = {}
    for side, args in (("local", ("work", "run")), ("ray", on_ray(ray_cluster, "work", "run"))):
        create(harn, "flood", f"work-flood-{side}")
        results[side] = harn.json(*args, f"work-flood-{side}", env=cap)
    for side, result in results.items():
        assert (result["status"], result["class"]) == ("failed", None), (side, result["reason"], result)
        assert result["reason"].startswith("output cap: "), (side, result["reason"])
        run_dir = harn.root / ".harnery" / "runs" / result["run_id"]
        assert (run_dir / "transcript.jsonl").stat().st_size <= 256 * 1024, side
        assert not alive(number_after(transcript_lines(harn.root, result["run_id"])[0]["line"], "pid")), side
        assert charged(harn, f"work-flood-{side}") == 1, side
    assert results["ray"]["reason"] == results["local"]["reason"]


def test_a_parked_attempt_resumes_on_another_node_without_its_scratch(ray_cluster: LocalCluster, harn: Harn) -> None:
    create(harn, "park", "work-park")
    parked = harn.json(*on_ray(ray_cluster, "work", "run", "work-park"), env=ON_SECOND)
    assert (parked["status"], parked["work"]["state"]) == ("parked", "awaiting_approval"), parked["reason"]
    harn.json("approval", "approve", parked["approval_id"], "--reason", "go")
    resumed = harn.json(*on_ray(ray_cluster, "work", "run", "work-park"), env=ON_HEAD)
    assert (resumed["run_id"], resumed["resumed"], resumed["status"]) == (parked["run_id"], True, "passed")
    first, second = (line["line"] for line in transcript_lines(harn.root, parked["run_id"]))
    assert number_after(first, "raylet") == ray_cluster.raylet_of(ray_cluster.second)
    assert number_after(second, "raylet") == ray_cluster.raylet_of(ray_cluster.head)
    assert second.endswith("resumed: approve to 'go on?'; marker absent"), "scratch is not kept across a park"


def test_a_template_changed_after_freezing_is_refused_by_the_host_and_on_the_worker(
    ray_cluster: LocalCluster, harn: Harn, tmp_path: Path
) -> None:
    template = tmp_path / "changing.py"
    template.write_bytes((RAY_TEMPLATES / "probe.py").read_bytes())
    template.chmod(0o755)
    harn.json(
        "work", "create", "Changing", str(template), "--objective", "megabyte", "--accept", "done", "--id", "work-ch"
    )
    template.write_bytes(template.read_bytes() + b"# changed\n")
    before = tree_bytes(harn.root)
    refused = harn.json(*on_ray(ray_cluster, "work", "run", "work-ch"), expect=3)
    assert "changed: its sha256 is now" in refused["error"]["message"]
    assert tree_bytes(harn.root) == before, "the host refuses before attempt.started: nothing recorded"

    template.write_bytes((RAY_TEMPLATES / "probe.py").read_bytes())  # as frozen again: the host's check passes
    prepared = begin_attempt(Layout(harn.root), "work-ch", actor="tester")
    prepared.template_body += b"# changed on the way\n"  # what reaches the worker is not what was frozen
    result = prepared.run(executor=RayExecutor(ray_cluster.address))
    assert (result.status, result.class_) == ("failed", "environment")
    assert result.reason is not None and result.reason.startswith("executor: the template's bytes reached the worker")
    assert transcript_lines(harn.root, result.run_id) == [], "the changed template never ran"
    assert charged(harn, "work-ch") == 0
    assert harn.json("work", "show", "work-ch")["attempts"][0]["class"] == "environment"


def test_the_timeout_is_enforced_inside_the_task_and_charged(ray_cluster: LocalCluster, harn: Harn) -> None:
    create(harn, "hang", "work-hang")
    result = harn.json(
        *on_ray(ray_cluster, "work", "run", "work-hang"), env={"HARN_ATTEMPT_TIMEOUT_S": "3", "HARN_KILL_GRACE_S": "1"}
    )
    assert result["status"] == "failed" and result["class"] is None
    assert result["reason"].startswith("timeout: the template ran longer than 3 s")
    [line] = transcript_lines(harn.root, result["run_id"])
    assert not alive(number_after(line["line"], "pid")), "the template's group was killed on the worker"
    assert charged(harn, "work-hang") == 1


def test_killing_harn_loses_the_attempt_and_ends_its_worker_process(ray_cluster: LocalCluster, harn: Harn) -> None:
    create(harn, "sleepy", "work-kill")
    running = harn_process(harn.root, *on_ray(ray_cluster, "work", "run", "work-kill"))
    line = wait_for_line(harn.root, "pid ", running)
    template = number_after(line, "pid")
    worker = int(Path(f"/proc/{template}/stat").read_text().rsplit(")", 1)[1].split()[1])
    running.send_signal(signal.SIGKILL)
    running.wait(30)
    deadline = time.monotonic() + 10
    while (alive(template) or alive(worker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(template) and not alive(worker), "the task died with its owner, its template with it"
    [attempt] = harn.json("work", "show", "work-kill")["attempts"]
    assert attempt["status"] == "lost"


def test_a_lost_node_is_environment_uncharged_and_the_next_tick_retries_on_the_head(
    ray_cluster: LocalCluster, harn: Harn, examples: Path
) -> None:
    create(harn, "sleepy", "work-node")
    harn.json(
        "supervisor",
        "create",
        "--team",
        str(examples / "team.json"),
        "--root-work",
        "work-node",
        "--id",
        "goal-node",
        "--retry-blocked",
    )
    tick = harn_process(harn.root, *on_ray(ray_cluster, "supervisor", "tick", "goal-node"), env=ON_SECOND)
    line = wait_for_line(harn.root, "pid ", tick)  # streamed while the attempt runs
    raylet = number_after(line, "raylet")
    assert raylet == ray_cluster.raylet_of(ray_cluster.second)
    os.kill(raylet, signal.SIGKILL)
    stdout, stderr = tick.communicate(timeout=300)
    assert tick.returncode == 0, stderr
    [failed] = json.loads(stdout)["outcomes"]
    assert (failed["status"], failed["class"]) == ("failed", "environment")
    assert failed["reason"].startswith("executor: "), failed
    assert charged(harn, "work-node") == 0, "a lost node is not charged"

    retried = harn.json(*on_ray(ray_cluster, "supervisor", "tick", "goal-node"))
    [passed] = retried["outcomes"]
    assert (passed["attempt"], passed["status"]) == (2, "passed")
    [again] = transcript_lines(harn.root, passed["run_id"])
    assert number_after(again["line"], "raylet") == ray_cluster.raylet_of(ray_cluster.head)


def test_a_task_that_cannot_enforce_its_timeout_is_force_cancelled_past_the_deadline(
    ray_cluster: LocalCluster, harn: Harn
) -> None:
    create(harn, "sleepy", "work-stuck")
    running = harn_process(
        harn.root, *on_ray(ray_cluster, "work", "run", "work-stuck"), env={"HARN_ATTEMPT_TIMEOUT_S": "2"}
    )
    template = number_after(wait_for_line(harn.root, "pid ", running), "pid")
    worker = int(Path(f"/proc/{template}/stat").read_text().rsplit(")", 1)[1].split()[1])
    os.kill(worker, signal.SIGSTOP)  # the task's own clock stops with it
    started = time.monotonic()
    stdout, stderr = running.communicate(timeout=300)
    waited = time.monotonic() - started
    assert running.returncode == 0, stderr
    result = json.loads(stdout)
    assert (result["status"], result["class"]) == ("failed", None), result
    assert result["reason"].startswith("timeout: the template ran longer than 2 s")
    assert waited >= 25, "the host waits 30 s past the deadline before it force-cancels"
    assert charged(harn, "work-stuck") == 1
    deadline = time.monotonic() + 10
    while (alive(template) or alive(worker)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(worker) and not alive(template), "the cancel killed the worker, and the template with it"
