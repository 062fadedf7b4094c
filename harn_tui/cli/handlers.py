"""One function per CLI verb: validate arguments, call the core, return the document to print."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from harn_tui.cli.context import Context
from harn_tui.core.view_cache import cached_read

if TYPE_CHECKING:
    from harn_tui.core.executors import Executor
    from harn_tui.core.supervisor import TickReport
    from harn_tui.core.tree import Tree


class Result(NamedTuple):
    document: Any
    exit_code: int = 0


def init(ctx: Context) -> Result:
    from harn_tui.core.creation import init_shared_tree, init_tree
    from harn_tui.core.errors import Refused
    from harn_tui.core.layout import HARNERY, enclosing_root, root_argument

    named = ctx.arg("root") or os.environ.get("HARN_ROOT")  # --root, else $HARN_ROOT, else here
    try:
        root = root_argument(named or ".")
        if named is None and not (root / HARNERY).is_dir():
            enclosing = enclosing_root(root)
            if enclosing is not None:  # every other verb run here would use the enclosing tree
                raise Refused(
                    f"{root} is inside the tree at {enclosing} (every harn command run here uses it); "
                    f"to make a separate tree here anyway: harn init --root {root}"
                )
        if ctx.arg("shared") is not None:
            shared = init_shared_tree(root, ctx.arg("shared")).to_json()
            if ctx.arg("agents"):  # the kit beside a shared tree: made as the group's members would make it
                from harn_tui.agent.kit import init_agents_kit
                from harn_tui.core.sharing import enter_tree, give_to_group

                enter_tree(shared["harnery"])
                kit = init_agents_kit(root, ctx.arg("agents"))
                give_to_group(
                    [kit.directory, *sorted({p.parent for p in kit.files}), *kit.files],
                    os.stat(shared["harnery"]).st_gid,
                )
                shared["agents"] = kit.to_json()
            return Result(shared, 6 if shared["unrepaired"] else 0)
        if ctx.arg("agents"):
            from harn_tui.agent.kit import init_agents_kit

            return Result(init_agents_kit(root, ctx.arg("agents")).to_json())
        layout = init_tree(root)
    except OSError as error:  # a file, a device or an unwritable place: bad input, not a traceback
        raise _unusable("--root", root, error) from None
    return Result({"root": str(layout.root), "harnery": str(layout.base)})


def template_list(ctx: Context) -> Result:
    from harn_tui.agent.script import template_list as listed

    return Result(listed())


def template_new(ctx: Context) -> Result:
    from harn_tui.agent.script import agent_parameters, write_agent_template

    path = Path(ctx.arg("file")).absolute()
    parameters = agent_parameters(
        worker=ctx.arg("worker"),
        judge=ctx.arg("judge"),
        team_file=Path(ctx.arg("team")) if ctx.arg("team") else None,
        checks=ctx.arg("check"),
        ask_first=bool(ctx.arg("ask_first")),
        workspace=ctx.arg("workspace"),
        base=ctx.arg("base"),
        agent_args=ctx.arg("agent_arg"),
        max_diff_kb=ctx.arg("max_diff_kb"),
        where=path.parent,
    )
    try:
        write_agent_template(path, parameters)
    except OSError as error:
        raise _unusable("template file", path, error) from None
    return Result({"kind": "agent", "path": str(path), "parameters": parameters.model_dump(mode="json")})


def schema(ctx: Context) -> Result:
    from harn_tui.core.errors import UsageError
    from harn_tui.core.records import RECORD_SCHEMAS, json_schema

    name = ctx.arg("record")
    if name is None:
        return Result({key: json_schema(key) for key in RECORD_SCHEMAS})
    if name not in RECORD_SCHEMAS:  # the record names are fixed, like a verb's choices: a usage error
        raise UsageError(f"no record named {name!r}; records: {', '.join(RECORD_SCHEMAS)}")
    return Result(json_schema(name))


def pending(ctx: Context) -> Result:
    layout = ctx.layout()
    with_questions = not ctx.json

    def read() -> tuple[Any, Tree]:
        from harn_tui.core.queries import pending_document

        return pending_document(layout, with_questions=with_questions)

    return Result(cached_read(layout.base, "pending-questions" if with_questions else "pending", read, True))


def verify(ctx: Context) -> Result:
    from harn_tui.core.verify import verify_tree

    problems = verify_tree(ctx.layout())
    return Result({"ok": not problems, "problems": problems}, 5 if problems else 0)


def fault_points(ctx: Context) -> Result:
    from harn_tui.core.faults import FAULT_POINTS

    return Result({"points": list(FAULT_POINTS)})


def tui(ctx: Context) -> Result:
    from harn_tui.tui.launch import run_console

    bell = not ctx.arg("no_bell") and os.environ.get("HARN_BELL", "1") != "0"
    run_console(
        ctx.layout(), actor=ctx.actor, supervisor=not ctx.arg("no_supervisor"), bell=bell, executor=_executor(ctx)
    )
    return Result(None)


def web(ctx: Context) -> Result:
    from harn_tui.cli.context import resolve_actor
    from harn_tui.web.run import WebOptions, check_public_url, serve_web

    resolve_actor(ctx.arg("actor"))  # ID syntax, before the tree is looked up
    public_url = check_public_url(ctx.arg("public_url"))
    options = WebOptions(
        host=ctx.arg("host"),
        port=ctx.arg("port"),
        public_url=public_url,
        supervisor=not ctx.arg("no_supervisor"),
        as_json=ctx.json,
        executor=_executor(ctx),
    )
    layout = ctx.layout()
    return Result(None, serve_web(layout, ctx.actor, options))


def examples(ctx: Context) -> Result:
    """Copy the example team, replanning, mission, planner, reviewer and templates (the files the guide uses) to
    DIR: from the installed package, or from the source checkout in an editable install."""
    import shutil

    from harn_tui.core.errors import Refused

    package = Path(__file__).resolve().parents[1]
    packaged = package / "examples"
    source = packaged if packaged.is_dir() else package.parent / "tests" / "fixtures" / "examples"
    fail = packaged / "templates" / "fail.py" if packaged.is_dir() else package.parent / "tests/fixtures/loop/fail.py"
    target = Path(ctx.arg("dir"))
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise Refused(f"{target} exists and is not an empty directory; name a new one (nothing was copied)")
    try:
        shutil.copytree(source, target, dirs_exist_ok=True)
        shutil.copy2(fail, target / "templates" / "fail.py")
    except OSError as error:
        raise _unusable("examples directory", target, error) from None
    files = sorted(str(path.relative_to(target)) for path in target.rglob("*") if path.is_file())
    return Result({"examples": str(target.resolve()), "files": files})


def demo(ctx: Context) -> Result:
    from harn_tui.core.demo import build_demo
    from harn_tui.core.errors import UsageError
    from harn_tui.core.layout import root_argument

    named = [root_argument(given) for given in (ctx.arg("root"), ctx.arg("dir")) if given]
    if len(set(named)) > 1:
        raise UsageError(f"demo: --root {named[0]} and DIR {named[1]} name two places; give one")
    directory = named[0] if named else None
    try:
        layout = build_demo(directory)
    except OSError as error:
        raise _unusable("demo directory", directory, error) from None
    if ctx.arg("no_tui"):
        from harn_tui.core.queries import list_goals

        return Result({"root": str(layout.root), **list_goals(layout)})
    from harn_tui.cli.context import resolve_actor
    from harn_tui.tui.launch import run_console

    run_console(layout, actor=resolve_actor(ctx.arg("actor"), layout), supervisor=True)
    return Result({"root": str(layout.root), "console": "closed"})  # where the tree stays, once it is gone


def _unusable(what: str, path: Path | None, error: OSError) -> Exception:
    from harn_tui.core.errors import UsageError

    return UsageError(f"{what} {path if path is not None else error.filename}: {error.strerror or error}")


# ----- supervisor


def supervisor_create(ctx: Context) -> Result:
    from harn_tui.core.creation import GoalOptions, create_supervisor
    from harn_tui.core.queries import show_goal

    layout = ctx.layout()
    goal = create_supervisor(
        layout,
        team_file=Path(ctx.arg("team")),
        mission_file=Path(ctx.arg("mission")) if ctx.arg("mission") else None,
        root_work=ctx.arg("root_work"),
        replanning_file=Path(ctx.arg("replanning")) if ctx.arg("replanning") else None,
        options=GoalOptions(
            title=ctx.arg("title"),
            goal_id=ctx.arg("id"),
            max_total_attempts=ctx.arg("max_total_attempts"),
            max_parallel_work=ctx.arg("max_parallel_work"),
            max_cycles=ctx.arg("max_cycles"),
            accept_passing_proof=bool(ctx.arg("accept_passing_proof")),
            retry_blocked=bool(ctx.arg("retry_blocked")),
        ),
    )
    document = show_goal(layout, goal.id).to_json()
    if goal.root_work_id is not None:
        from harn_tui.core.queries import goal_owner_of, goals_sharing
        from harn_tui.core.tree import Tree

        tree = Tree.load(layout)
        owner = goal_owner_of(tree, goal.root_work_id)
        others = [g for g in [owner, *goals_sharing(tree, goal.root_work_id, owner)] if g not in (None, goal.id)]
        if others:
            document["warnings"] = [
                f"work {goal.root_work_id} is also in the graph of goal {', '.join(map(str, others))}: the goals "
                f"share it, and goal {owner} (the first by id) governs its attempts"
            ]
    return Result(document)


def supervisor_list(ctx: Context) -> Result:
    layout = ctx.layout()

    def read() -> tuple[Any, Tree]:
        from harn_tui.core.queries import goals_document

        return goals_document(layout)

    return Result(cached_read(layout.base, "list", read, whole_tree=True))


def supervisor_show(ctx: Context) -> Result:
    layout, goal_id = ctx.layout(), ctx.arg("goal")
    if ctx.arg("at") is not None:
        from harn_tui.core.history import show_at_document

        return Result(show_at_document(layout, goal_id, ctx.arg("at")))

    def read() -> tuple[Any, Tree]:
        from harn_tui.core.queries import goal_document

        return goal_document(layout, goal_id)

    return Result(cached_read(layout.base, f"show~{goal_id}", read, whole_tree=False))


def supervisor_history(ctx: Context) -> Result:
    from harn_tui.core.history import load_goal_over_time

    return Result(load_goal_over_time(ctx.layout(), ctx.arg("goal")).history.to_json())


def supervisor_tick(ctx: Context) -> Result:
    from harn_tui.core.supervisor import tick_goal

    return _loop_result(ctx, tick_goal(ctx.layout(), ctx.arg("goal"), _executor(ctx)))


def supervisor_run(ctx: Context) -> Result:
    from harn_tui.core.supervisor import run_goal

    return _loop_result(ctx, run_goal(ctx.layout(), ctx.arg("goal"), _executor(ctx)))


def _executor(ctx: Context) -> Executor:
    """The executor `--executor` / `--ray-address` choose (checked already: the precheck)."""
    from harn_tui.core.executors import select_executor

    return select_executor(ctx.arg("executor"), ctx.arg("ray_address"))


def _loop_result(ctx: Context, report: TickReport) -> Result:
    """The tick or run document; one stopped by a refused write (`io_error`) exits 6, its document carrying
    the error as a failing command's does (without --json, the one line on stderr). One stopped because the
    executor is unavailable exits 0 (nothing was recorded), its reason on stderr too."""
    if report.error is None:
        if report.unavailable is not None and not ctx.json:
            print(f"harn: the executor is unavailable: {report.unavailable}", file=sys.stderr)
        return Result(report.to_json())
    if not ctx.json:
        print(f"harn: {report.error.message}", file=sys.stderr)
    return Result(report.to_json(), report.error.exit_code)


def supervisor_serve(ctx: Context) -> Result:
    from harn_tui.cli.text import serve_line
    from harn_tui.core.supervisor import serve

    as_json = ctx.json

    def report(goal_id: str, tick: TickReport) -> None:
        """One line per tick that did something (a JSON line with --json); a quiet tick prints nothing."""
        if tick.acted or tick.error is not None:
            line = (
                json.dumps({"goal_id": goal_id, **tick.to_json()}, ensure_ascii=False)
                if as_json
                else serve_line(goal_id, tick.to_json())
            )
            print(line, flush=True)

    serve(
        ctx.layout(),
        goal_ids=list(ctx.arg("goals") or []),
        wake_interval_s=ctx.arg("wake_interval"),
        actor=ctx.actor,
        on_report=report,
        executor=_executor(ctx),
    )
    return Result(None)


def supervisor_status(ctx: Context) -> Result:
    from harn_tui.core.service import read_services

    services, problems = read_services(ctx.layout())
    return Result({"services": [seen.to_json() for seen in services], "problems": problems})


def plan_list(ctx: Context) -> Result:
    layout, goal_id = ctx.layout(), ctx.arg("goal")

    def read() -> tuple[Any, Tree]:
        from harn_tui.core.queries import require_readable, shown_goal

        tree, goal = shown_goal(layout, goal_id)
        return {"goal_id": require_readable(goal).id, "plans": [p.to_json() for p in goal.plans]}, tree

    return Result(cached_read(layout.base, f"plans~{goal_id}", read, whole_tree=False))


def plan_show(ctx: Context) -> Result:
    from harn_tui.core.queries import plan_document, plan_view, require_readable, show_goal

    layout = ctx.layout()
    goal = require_readable(show_goal(layout, ctx.arg("goal")))
    return Result(plan_document(layout, goal, plan_view(goal, ctx.arg("plan"))))


def plan_diff(ctx: Context) -> Result:
    from harn_tui.core.history import plan_diff_document

    return Result(plan_diff_document(ctx.layout(), ctx.arg("goal"), ctx.arg("plan")))


def plan_approve(ctx: Context) -> Result:
    from harn_tui.core.transitions import approve_plan

    outcome = approve_plan(ctx.layout(), ctx.arg("goal"), ctx.arg("plan"), actor=ctx.actor, reason=ctx.arg("reason"))
    return Result(outcome.to_json())


def plan_reject(ctx: Context) -> Result:
    from harn_tui.core.transitions import reject_plan

    outcome = reject_plan(ctx.layout(), ctx.arg("goal"), ctx.arg("plan"), actor=ctx.actor, reason=ctx.arg("reason"))
    return Result(outcome.to_json())


def plan_retry(ctx: Context) -> Result:
    from harn_tui.core.transitions import retry_plan

    outcome = retry_plan(ctx.layout(), ctx.arg("goal"), ctx.arg("plan"), actor=ctx.actor, reason=ctx.arg("reason"))
    return Result(outcome.to_json())


def plan_reopen(ctx: Context) -> Result:
    from harn_tui.core.transitions import reopen_plan

    outcome = reopen_plan(ctx.layout(), ctx.arg("goal"), ctx.arg("plan"), actor=ctx.actor, reason=ctx.arg("reason"))
    return Result(outcome.to_json())


# ----- work


def work_create(ctx: Context) -> Result:
    from harn_tui.core.creation import create_work
    from harn_tui.core.queries import load_work_view, work_document

    layout = ctx.layout()
    depends = [part.strip() for value in ctx.arg("depends_on") for part in value.split(",") if part.strip()]
    intent = create_work(
        layout,
        title=ctx.arg("title"),
        template=ctx.arg("template"),
        objective=ctx.arg("objective"),
        acceptance=ctx.arg("accept"),
        depends_on=depends,
        max_attempts=ctx.arg("max_attempts"),
        work_id=ctx.arg("id"),
        actor=ctx.actor,
    )
    return Result(work_document(*load_work_view(layout, intent.id)))


def work_list(ctx: Context) -> Result:
    layout = ctx.layout()

    def read() -> tuple[Any, Tree]:
        from harn_tui.core.queries import work_list_document

        return work_list_document(layout)

    return Result(cached_read(layout.base, "work-list", read, whole_tree=True))


def work_show(ctx: Context) -> Result:
    layout, work_id = ctx.layout(), ctx.arg("id")

    def read() -> tuple[Any, Tree]:
        from harn_tui.core.queries import load_work_view, work_document

        tree, view, goal_id = load_work_view(layout, work_id)
        return work_document(tree, view, goal_id), tree

    return Result(cached_read(layout.base, f"work~{work_id}", read, whole_tree=True))


def work_run(ctx: Context) -> Result:
    from harn_tui.core.runner import run_work

    return Result(
        run_work(ctx.layout(), ctx.arg("id"), actor=ctx.actor, retry=False, executor=_executor(ctx)).to_json()
    )


def work_retry(ctx: Context) -> Result:
    from harn_tui.core.runner import run_work

    return Result(run_work(ctx.layout(), ctx.arg("id"), actor=ctx.actor, retry=True, executor=_executor(ctx)).to_json())


def work_diff(ctx: Context) -> Result:
    from harn_tui.core.queries import work_diff as diff_document

    return Result(diff_document(ctx.layout(), ctx.arg("id"), ctx.arg("run")))


def work_accept(ctx: Context) -> Result:
    from harn_tui.core.transitions import accept_work, parse_disposition

    dispositions = [parse_disposition(text) for text in ctx.arg("dispose")]
    outcome = accept_work(
        ctx.layout(), ctx.arg("id"), actor=ctx.actor, dispositions=dispositions, reason=ctx.arg("reason")
    )
    return Result(outcome.to_json())


def work_reopen(ctx: Context) -> Result:
    from harn_tui.core.transitions import reopen_work

    outcome = reopen_work(
        ctx.layout(), ctx.arg("id"), actor=ctx.actor, findings=ctx.arg("finding"), reason=ctx.arg("reason")
    )
    return Result(outcome.to_json())


def work_cancel(ctx: Context) -> Result:
    from harn_tui.core.transitions import cancel_work

    outcome = cancel_work(ctx.layout(), ctx.arg("id"), actor=ctx.actor, reason=ctx.arg("reason"))
    return Result(outcome.to_json())


# ----- approvals


def approval_list(ctx: Context) -> Result:
    layout = ctx.layout()

    def read() -> tuple[Any, Tree]:
        from harn_tui.core.queries import approvals_document

        return approvals_document(layout)

    return Result(cached_read(layout.base, "approval-list", read, whole_tree=True))


def approval_show(ctx: Context) -> Result:
    from harn_tui.core.queries import approval_document, load_approval_tree

    approval_id = ctx.arg("id")
    return Result(approval_document(load_approval_tree(ctx.layout(), approval_id), approval_id))


def approval_approve(ctx: Context) -> Result:
    from harn_tui.core.transitions import decide_approval

    outcome = decide_approval(ctx.layout(), ctx.arg("id"), verdict="approve", actor=ctx.actor, reason=ctx.arg("reason"))
    return Result(outcome.to_json())


def approval_deny(ctx: Context) -> Result:
    from harn_tui.core.transitions import decide_approval

    outcome = decide_approval(ctx.layout(), ctx.arg("id"), verdict="deny", actor=ctx.actor, reason=ctx.arg("reason"))
    return Result(outcome.to_json())
