"""One real Ray cluster for the whole session: a head and a second node started with `ray start` on this machine
(`tests.ray_cluster`), torn down at the end. Without Ray installed these tests skip, except where
`CI_REQUIRE_RAY` is set (CI sets it: there they must run)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ray_cluster import LocalCluster

RAY_TEMPLATES = Path(__file__).resolve().parent.parent / "fixtures" / "ray"


def require_ray() -> None:
    if importlib.util.find_spec("ray") is None:
        if os.environ.get("CI_REQUIRE_RAY"):
            pytest.fail("Ray is not installed but CI_REQUIRE_RAY is set: install harn_tui[ray]")
        pytest.skip("Ray is not installed (pip install 'harn_tui[ray]')")


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalCluster]:
    require_ray()
    started = LocalCluster(tmp_path_factory.mktemp("ray-cluster")).start()
    try:
        yield started
    finally:
        import ray

        ray.shutdown()
        started.stop()


@pytest.fixture
def ray_cluster(cluster: LocalCluster) -> LocalCluster:
    """The session's cluster with both nodes alive (a test that killed the second node's raylet restarts it)."""
    cluster.ensure_second()
    return cluster


def on_ray(cluster: LocalCluster, *args: str) -> tuple[str, ...]:
    """A `harn` verb's arguments with its attempts on the test cluster."""
    return (*args, "--executor", "ray", "--ray-address", cluster.address)
