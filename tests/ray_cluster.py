"""A real Ray cluster on this machine for the tests and benchmarks: a head and a second node, each its own
`ray start --block` in a session of its own, so that stopping it ends exactly the processes it started (never
`ray stop`, which would end every Ray on the machine).

The head offers the custom resource `head`, the second node `second` (100 units each): an attempt pinned with
`HARN_RAY_RESOURCES='{"second": 1}'` runs on the second node. Token authentication is off (a test cluster on
loopback) and the raylets reap what a dead worker leaves behind (`RAY_kill_child_processes_on_worker_exit_with_
raylet_subreaper`), as the executors guide recommends.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RAY = Path(sys.executable).with_name("ray")
START_TIMEOUT_S = 180.0
# what the cluster's drivers (this process, the harn commands it starts) need
FAKE_CLI = Path(__file__).resolve().parent / "fixtures" / "fake_cli"
DRIVER_ENV = {"RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
# and the nodes
CLUSTER_ENV = {**DRIVER_ENV, "RAY_kill_child_processes_on_worker_exit_with_raylet_subreaper": "true"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def cluster_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """This process's environment plus what every process of the test cluster (and its drivers) needs."""
    env = dict(os.environ)
    env.update(CLUSTER_ENV)
    env.update(extra or {})
    return env


def children_of(pid: int) -> list[int]:
    """Every live descendant of `pid` (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = Path(f"/proc/{entry}/stat").read_text()
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = [], [pid]
    while frontier:
        parent = frontier.pop()
        kids = [child for child, of in parents.items() if of == parent]
        found.extend(kids)
        frontier.extend(kids)
    return found


def command_name(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""


def alive(pid: int) -> bool:
    """The process exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class LocalCluster:
    """`start()` the head and the second node; `stop()` ends both sessions (SIGTERM, then SIGKILL)."""

    def __init__(self, base: Path, head_cpus: int = 2, second_cpus: int = 2) -> None:
        self.base = base
        self.head_cpus, self.second_cpus = head_cpus, second_cpus
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.head: subprocess.Popen[bytes] | None = None
        self.second: subprocess.Popen[bytes] | None = None
        # Ray's session directory holds Unix sockets, whose paths must stay under 108 bytes
        self.temp_dir = Path(tempfile.mkdtemp(prefix="harn-ray-", dir="/tmp"))

    def _ray_start(self, name: str, *args: str) -> subprocess.Popen[bytes]:
        log = (self.base / f"{name}.log").open("ab")
        ports = (
            "--node-manager-port",
            "--object-manager-port",
            "--metrics-export-port",
            "--dashboard-agent-listen-port",
            "--dashboard-agent-grpc-port",
            "--runtime-env-agent-port",
        )
        argv = [str(RAY), "start", "--block", "--disable-usage-stats", "--node-ip-address=127.0.0.1", *args]
        for option in ports:
            argv.append(f"{option}={free_port()}")
        # the nodes have the model CLIs installed, as a real cluster's would: here the fake ones
        node_env = cluster_env({"PATH": f"{FAKE_CLI}{os.pathsep}{os.environ.get('PATH', '')}"})
        return subprocess.Popen(
            argv,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env=node_env,
            start_new_session=True,
            cwd=self.base,
        )

    def start(self) -> LocalCluster:
        self.base.mkdir(parents=True, exist_ok=True)
        self.head = self._ray_start(
            "head",
            "--head",
            f"--port={self.port}",
            f"--num-cpus={self.head_cpus}",
            '--resources={"head": 100}',
            "--include-dashboard=false",
            f"--temp-dir={self.temp_dir}",
        )
        self._wait_for(lambda: self.raylet_of(self.head) is not None, "the head's raylet", self.head)
        self.start_second()
        return self

    def start_second(self) -> None:
        self.second = self._ray_start(
            "second", f"--address={self.address}", f"--num-cpus={self.second_cpus}", '--resources={"second": 100}'
        )
        self._wait_for(lambda: self.raylet_of(self.second) is not None, "the second node's raylet", self.second)
        self._wait_nodes(2)

    def _wait_for(self, ready: Callable[[], bool], what: str, process: subprocess.Popen[bytes] | None = None) -> None:
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready():
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"{what}: `ray start` exited with {process.returncode}; logs in {self.base}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not start in {START_TIMEOUT_S:g} s; logs in {self.base}")
            time.sleep(0.5)

    def _wait_nodes(self, count: int) -> None:
        """Until the cluster counts `count` live nodes; this process becomes one of the cluster's drivers (the
        tests that run the executor in process use that connection)."""
        import ray

        os.environ.update(DRIVER_ENV)
        if not ray.is_initialized():
            ray.init(address=self.address, log_to_driver=False, logging_level=logging.ERROR)

        def enough() -> bool:
            nodes: list[dict[str, Any]] = ray.nodes()  # type: ignore[no-untyped-call]
            return sum(1 for node in nodes if node["Alive"]) >= count

        self._wait_for(enough, f"{count} live nodes")

    @staticmethod
    def raylet_of(process: subprocess.Popen[bytes] | None) -> int | None:
        if process is None or process.poll() is not None:
            return None
        for pid in children_of(process.pid):
            if command_name(pid) == "raylet":
                return pid
        return None

    def second_alive(self) -> bool:
        return self.raylet_of(self.second) is not None

    def ensure_second(self) -> None:
        """The second node again, after a test killed its raylet."""
        if not self.second_alive():
            self._end(self.second)
            self.start_second()

    @staticmethod
    def _end(process: subprocess.Popen[bytes] | None) -> None:
        if process is None:
            return
        for sig, wait in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, sig)
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline:
                with contextlib.suppress(ChildProcessError):
                    process.poll()
                if not _group_alive(process.pid):
                    return
                time.sleep(0.2)

    def stop(self) -> None:
        self._end(self.second)
        self._end(self.head)
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _group_alive(pgid: int) -> bool:
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                if int(fields[2]) == pgid and fields[0] != "Z":
                    return True
    return False
