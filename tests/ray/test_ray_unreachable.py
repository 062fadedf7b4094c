"""A Ray cluster that cannot be reached is found before the first dispatch, and nothing is recorded: `work run`
exits 3, `tick` and `run` stop with `executor_unavailable` (exit 0), `serve` backs the goal off. No cluster runs
here: the address is a closed port."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Harn, harn_env, tree_bytes
from tests.ray.conftest import require_ray
from tests.ray_cluster import free_port


def closed_address() -> str:
    return f"127.0.0.1:{free_port()}"


def goal_with_ready_work(harn: Harn, examples: Path) -> None:
    harn.json(
        "work",
        "create",
        "A",
        str(examples / "templates" / "implement.py"),
        "--objective",
        "o",
        "--accept",
        "done",
        "--id",
        "work-a",
    )
    harn.json("supervisor", "create", "--team", str(examples / "team.json"), "--root-work", "work-a", "--id", "goal-a")


def test_an_unreachable_cluster_records_nothing(harn: Harn, root: Path, examples: Path) -> None:
    require_ray()
    goal_with_ready_work(harn, examples)
    address = closed_address()
    before = tree_bytes(root)
    refused = harn.json("work", "run", "work-a", "--executor", "ray", "--ray-address", address, expect=3)
    assert refused["error"]["code"] == "executor_unavailable" and address in refused["error"]["message"]
    for verb in ("tick", "run"):
        stopped = harn.json("supervisor", verb, "goal-a", "--executor", "ray", "--ray-address", address)
        assert stopped["stop_reason"] == "executor_unavailable" and stopped["dispatches"] == 0, stopped
        assert address in stopped["error"]["message"]
        assert stopped["goal"]["work"][0]["state"] == "ready"
    plain = harn("supervisor", "tick", "goal-a", "--executor", "ray", "--ray-address", address)
    assert plain.returncode == 0 and "the executor is unavailable" in plain.stderr
    assert tree_bytes(root) == before, "an unreachable cluster records nothing"


def test_serve_backs_off_an_unreachable_cluster(harn: Harn, root: Path, examples: Path) -> None:
    require_ray()
    goal_with_ready_work(harn, examples)
    address = closed_address()
    serve = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "harn_tui",
            "--root",
            str(root),
            "supervisor",
            "serve",
            "--wake-interval",
            "0.2",
            "--executor",
            "ray",
            "--ray-address",
            address,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=harn_env(),
    )
    try:
        deadline = time.monotonic() + 60
        status: dict[str, object] = {}
        while time.monotonic() < deadline:
            services = harn.json("supervisor", "status")["services"]
            if services and services[0].get("last_error"):
                status = services[0]
                break
            time.sleep(0.3)
        assert "the executor is unavailable" in str(status.get("last_error")), status
    finally:
        serve.terminate()
        _, stderr = serve.communicate(timeout=60)
    assert "trying it again in" in stderr
    assert json.loads(harn("work", "show", "work-a", "--json").stdout)["attempts"] == []
