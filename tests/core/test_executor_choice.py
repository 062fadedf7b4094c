"""Choosing the executor per invocation: the flags' usage errors, and the core without Ray installed.

Ray is hidden from a fresh interpreter by a meta path finder that refuses to import it, as if the extra were
not installed: the core still imports every module and runs an attempt locally, and `--executor ray` is a usage
error naming the extra."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Harn, harn_env, tree_bytes
from tests.core.test_import_hygiene import core_modules

WITHOUT_RAY = """
import importlib.abc, sys
class NoRay(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "ray" or name.startswith("ray."):
            raise ModuleNotFoundError(f"No module named {name!r}")
        return None
sys.meta_path.insert(0, NoRay())
"""


def without_ray(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_RAY + code], capture_output=True, text=True, env=harn_env(), timeout=120
    )


def harn_without_ray(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return without_ray(f"from harn_tui.cli import main\nsys.exit(main({['--root', str(root), *args]!r}))")


@pytest.fixture
def ready_work(harn: Harn, examples: Path) -> str:
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
    return "work-a"


def test_the_core_imports_and_runs_an_attempt_without_ray(root: Path, ready_work: str) -> None:
    imports = "\n".join(f"import {name}" for name in core_modules())
    probe = without_ray(imports + "\nprint('ray' in sys.modules)")
    assert probe.returncode == 0 and probe.stdout.strip() == "False", probe.stderr
    ran = harn_without_ray(root, "work", "run", ready_work, "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["status"] == "passed"


def test_executor_ray_without_the_extra_is_a_usage_error_naming_it(root: Path, ready_work: str) -> None:
    before = tree_bytes(root)
    for verb in (["work", "run", ready_work], ["supervisor", "tick", "goal-x"], ["supervisor", "serve"]):
        refused = harn_without_ray(root, *verb, "--executor", "ray", "--json")
        assert refused.returncode == 2, (verb, refused.stdout, refused.stderr)
        error = json.loads(refused.stdout)["error"]
        assert error["code"] == "usage" and "pip install 'harn_tui[ray]'" in error["message"]
    assert tree_bytes(root) == before


def test_ray_address_needs_executor_ray(harn: Harn, root: Path, ready_work: str) -> None:
    before = tree_bytes(root)
    for args in (
        ["work", "run", ready_work],
        ["work", "retry", ready_work],
        ["supervisor", "run", "goal-x"],
        ["supervisor", "tick", "goal-x", "--executor", "local"],
        ["tui"],
    ):
        refused = harn.json(*args, "--ray-address", "127.0.0.1:6379", expect=2)
        assert "--ray-address needs --executor ray" in refused["error"]["message"], args
    assert tree_bytes(root) == before
