"""The Ray executor against the local one, on a real two-node cluster started on this machine (2 + 2 CPUs).

- Throughput: one tick starting 8 attempts of a template that sleeps 2 s (`max_parallel_work` 8) on the cluster,
  against `run` of the same goal locally with `max_parallel_work` 1 (8 attempts one after another). With one CPU
  per attempt and 4 in all, the cluster runs two waves: the bound of the ratio is 4.
- Overhead: one attempt of a template that exits at once, through the library, on the cluster and locally,
  interleaved; the medians are compared.

Both sides run in this process, already connected to the cluster (connecting, a second or more, is paid once
per invocation and is not an attempt's cost). Ray's start-up is why this is its own run, `python -m benchmarks
--ray`: it would load the machine under the other figures.
"""

from __future__ import annotations

import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.context import Context
from benchmarks.table import Figure, ms
from harn_tui.core.creation import GoalOptions, create_supervisor, create_work, init_tree
from harn_tui.core.executors import Executor
from harn_tui.core.layout import Layout
from harn_tui.core.runner import start_attempt
from harn_tui.core.supervisor import run_goal, tick_goal

ATTEMPTS = 8
SLEEP_S = 2.0
THROUGHPUT_TARGET = 3.5
OVERHEAD_TARGET_S = 0.150
# The template runs on the interpreter running the benchmark, not `env python3`: a launcher such as a pyenv shim
# costs ~0.4 s of CPU per start on this kind of machine, and with 4 Ray "CPUs" on 2 real cores that start-up,
# not the executor, would decide the throughput figure.
TEMPLATE = """#!{python}
import datetime, json, os, time
time.sleep({sleep})
manifest = json.load(open(os.environ["HARN_MANIFEST"]))
json.dump({{"schema_version": 1, "run_id": manifest["run_id"], "status": "succeeded", "summary": "ok",
           "acceptance": [{{"criterion": c, "status": "satisfied", "evidence": "bench"}}
                          for c in manifest["work"]["acceptance"]],
           "class": None, "finished_at": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")}},
          open(os.environ["HARN_PROOF"], "w"))
"""


def _template(directory: Path, name: str, sleep: float) -> Path:
    path = directory / name
    path.write_text(TEMPLATE.format(python=sys.executable, sleep=sleep))
    path.chmod(0o755)
    return path


def _tree(directory: Path) -> Layout:
    directory.mkdir()
    init_tree(directory)
    return Layout(directory)


def _goal(base: Path, name: str, template: Path, parallel: int) -> tuple[Layout, str]:
    """A goal whose root depends on ATTEMPTS ready items of `template`."""
    layout = _tree(base / name)
    leaves = [
        create_work(
            layout,
            title=f"leaf {n}",
            template=template,
            objective="o",
            acceptance=["done"],
            work_id=f"leaf-{n}",
            actor="bench",
        ).id
        for n in range(ATTEMPTS)
    ]
    create_work(
        layout,
        title="root",
        template=template,
        objective="o",
        acceptance=["done"],
        depends_on=leaves,
        work_id="root",
        actor="bench",
    )
    team = base / "team.json"
    team.write_text(json.dumps({"planner": {"adapter": "command", "argv": ["true"], "instructions": "none"}}))
    create_supervisor(
        layout, team_file=team, root_work="root", options=GoalOptions(goal_id="goal-bench", max_parallel_work=parallel)
    )
    return layout, "goal-bench"


def throughput(base: Path, template: Path, executor: Executor) -> Figure:
    local_layout, goal = _goal(base, "local", template, 1)
    started = time.perf_counter()
    local = run_goal(local_layout, goal)
    local_s = time.perf_counter() - started
    assert local.dispatches == ATTEMPTS, local.to_json()
    ray_layout, goal = _goal(base, "ray", template, ATTEMPTS)
    started = time.perf_counter()
    remote = tick_goal(ray_layout, goal, executor)
    ray_s = time.perf_counter() - started
    assert remote.dispatches == ATTEMPTS and all(o["status"] == "passed" for o in remote.outcomes), remote.to_json()
    ratio = local_s / ray_s
    return Figure(
        f"throughput: {ATTEMPTS} attempts of a {SLEEP_S:g} s template, Ray (2 nodes, 4 CPUs) vs local",
        ms(ray_s),
        ms(local_s),
        ratio,
        f"local/ray >= {THROUGHPUT_TARGET:g}",
        ratio >= THROUGHPUT_TARGET,
        note=f"one tick with max_parallel_work {ATTEMPTS} on the cluster (one CPU per attempt: two waves of 4, the "
        "bound is 4) vs `run` locally with max_parallel_work 1; the ratio is local's wall time over Ray's",
    )


def overhead(base: Path, template: Path, executor: Executor, repeats: int) -> Figure:
    layout = _tree(base / "overhead")
    samples: dict[str, list[float]] = {"local": [], "ray": []}
    for n in range(repeats + 2):  # the first pair warms both sides up
        for side in ("local", "ray"):
            work_id = f"{side}-{n}"
            create_work(
                layout,
                title=work_id,
                template=template,
                objective="o",
                acceptance=["done"],
                work_id=work_id,
                actor="bench",
            )
            started = time.perf_counter()
            if side == "ray":
                result = start_attempt(layout, work_id, actor="bench", executor=executor)
            else:
                result = start_attempt(layout, work_id, actor="bench")
            elapsed = time.perf_counter() - started
            assert result.status == "passed", result.to_json()
            if n >= 2:
                samples[side].append(elapsed)
    local, remote = statistics.median(samples["local"]), statistics.median(samples["ray"])
    return Figure(
        "overhead: one attempt of a template that exits at once, Ray vs local",
        ms(remote),
        ms(local),
        remote / local,
        f"<= local + {OVERHEAD_TARGET_S * 1000:g} ms",
        remote <= local + OVERHEAD_TARGET_S,
        note=f"start_attempt through the library, connected already; median of {repeats} interleaved pairs "
        f"(Ray's median minus local's: {(remote - local) * 1000:+.0f} ms: task submission, the worker's "
        "staging, the streamed results)",
    )


def _warm_workers(count: int) -> None:
    """Start `count` of this job's Ray workers (one per CPU) before measuring, each with the attempt task's module
    imported: a new driver's first tasks wait for worker processes to start and import the core (~0.2 s each), a
    cost paid once per worker process, not per attempt."""
    import ray

    @ray.remote(num_cpus=1, max_retries=0)
    def hold() -> None:
        import harn_tui.core.executors.ray_task  # noqa: F401  (what every attempt task imports first)

        time.sleep(1.0)

    ray.get([hold.remote() for _ in range(count)])


def measure(ctx: Context) -> list[Figure]:
    from harn_tui.core.executors.ray_cluster import RayExecutor
    from tests.ray_cluster import LocalCluster

    base = Path(tempfile.mkdtemp(prefix="harn-bench-ray-"))
    cluster = LocalCluster(base / "cluster")
    try:
        ctx.log("starting a two-node Ray cluster (2 + 2 CPUs) ...")
        cluster.start()
        executor = RayExecutor(cluster.address)
        executor.connect()
        _warm_workers(4)
        sleeper = _template(base, "sleep.py", SLEEP_S)
        instant = _template(base, "instant.py", 0)
        figures = [throughput(base, sleeper, executor), overhead(base, instant, executor, ctx.repeats)]
    finally:
        import ray

        ray.shutdown()
        cluster.stop()
        shutil.rmtree(base, ignore_errors=True)
    return [
        Figure(f.name, f.measured, f.baseline, f.ratio, f.target, ctx.judge(bool(f.passed)), f.note) for f in figures
    ]
