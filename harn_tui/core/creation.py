"""Creating the tree, standalone work and supervisors (goals) from the operator's JSON files."""

from __future__ import annotations

import contextlib
import grp
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError

from harn_tui.core import sharing
from harn_tui.core.addresses import EVENTS
from harn_tui.core.clock import iso, now
from harn_tui.core.errors import CorruptJournal, NotFound, Refused, UsageError
from harn_tui.core.fsio import ensure_dir, fsync_dir, temp_path_for, write_record
from harn_tui.core.ids import check_id, is_valid_id, new_goal_id, new_work_id
from harn_tui.core.journal import JsonlTail, describe_validation
from harn_tui.core.layout import HARNERY, TOP_DIRS, Layout
from harn_tui.core.leases import hold_lease
from harn_tui.core.records import (
    FrozenTemplate,
    GoalIntent,
    Limits,
    Mission,
    Replanning,
    SpecialistProfile,
    TemplateRef,
    WorkCreated,
    WorkIntent,
)
from harn_tui.core.records.common import TITLE_MAX, Title
from harn_tui.core.records.events import WORK_EVENTS_ADAPTER
from harn_tui.core.records.goal import Automation
from harn_tui.core.writer import append_event

MAX_SPEC_FILE_BYTES = 1024 * 1024
_TITLE: TypeAdapter[str] = TypeAdapter(Title)


TREE_GITIGNORE = b"*\n"


def init_tree(root: Path) -> Layout:
    """Create `.harnery/`, its top directories and its `.gitignore` (idempotent)."""
    layout = Layout(root.resolve())
    for name in TOP_DIRS:
        ensure_dir(layout.base / name)
    ensure_tree_gitignore(layout)
    return layout


def ensure_tree_gitignore(layout: Layout) -> None:
    """`.harnery/.gitignore` holding `*`, so nothing in the tree (the agents' workspaces above all) shows in the
    user's repository. Written once, whole (a temporary file linked into place); one already there is kept."""
    path = layout.base / ".gitignore"
    if os.path.lexists(path):
        return
    temp = temp_path_for(path)
    fd = sharing.open_new(temp, os.O_WRONLY | os.O_EXCL | os.O_NOFOLLOW)
    try:
        os.write(fd, TREE_GITIGNORE)
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        with contextlib.suppress(FileExistsError):
            os.link(temp, path)
    finally:
        os.unlink(temp)
    fsync_dir(layout.base)


@dataclass(frozen=True)
class SharedInit:
    """What `init --shared` did: the tree, its group, what it set right, what it could not, what may still
    keep the group's members out (a parent directory they cannot enter)."""

    layout: Layout
    group: str
    drifts: list[sharing.Drift]
    unreachable: list[str]

    def to_json(self) -> dict[str, Any]:
        return {
            "root": str(self.layout.root),
            "harnery": str(self.layout.base),
            "group": self.group,
            "repaired": [drift.path for drift in self.drifts if drift.repaired],
            "unrepaired": [{"path": d.path, "problem": d.problem} for d in self.drifts if not d.repaired],
            "unreachable": self.unreachable,
        }


def init_shared_tree(root: Path, group: str) -> SharedInit:
    """Create `.harnery/` shared with `group`, or convert an existing tree (private, or shared with another
    group): the group and 2770 on every directory, 0660 on every file (idempotent). The caller must be a member
    of `group` (UsageError otherwise): a shared tree admits exactly the group's members."""
    try:
        gid = grp.getgrnam(group).gr_gid
    except KeyError:
        raise UsageError(f"no group named {group!r} on this host") from None
    if not sharing.is_member(gid):
        raise UsageError(
            f"you ({sharing.login_name()}) are not a member of group {group}; a tree shared with {group} admits "
            "exactly its members"
        )
    layout = Layout(root.resolve())
    if not layout.root.exists():  # a root made for the group is the group's too
        os.makedirs(layout.root)
        sharing.settle(layout.root, gid, directory=True)
    with contextlib.suppress(FileExistsError):
        os.mkdir(layout.base, 0o700)
    sharing.settle(layout.base, gid, directory=True)
    sharing.forget(layout.base)
    for name in TOP_DIRS:
        ensure_dir(layout.base / name)
    ensure_tree_gitignore(layout)
    drifts = sharing.walk_drift(layout.base, gid, repair=True)
    return SharedInit(layout, group, drifts, sharing.unreachable_parents(layout.root, gid))


def sha256_file(path: Path) -> str:
    """The sha256 of a file's bytes, read in chunks (a template of any size hashes in bounded memory)."""
    digest = hashlib.sha256()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
    except OSError as error:
        raise UsageError(f"{path} cannot be read: {error.strerror or error}") from None
    return digest.hexdigest()


def template_ref(path: str | Path, base: Path | None = None) -> TemplateRef:
    """Freeze a template: absolute path and the sha256 of its bytes now. A missing file, or one that is not
    executable (a template is run directly, argv `[path]`), is bad input: caught here, it never costs an attempt."""
    resolved = Path(path) if Path(path).is_absolute() else (base or Path.cwd()) / path
    resolved = resolved.resolve()
    try:
        found = resolved.is_file()
    except OSError as error:  # e.g. a name too long to look up
        raise UsageError(f"template file {resolved} cannot be read: {error.strerror or error}") from None
    if not found:
        raise UsageError(f"template file {resolved} does not exist")
    if not os.access(resolved, os.X_OK):
        raise UsageError(
            f"template file {resolved} is not executable: a template is run directly (chmod +x {resolved})"
        )
    return TemplateRef(path=str(resolved), sha256=sha256_file(resolved))


def _usage(what: str, error: ValidationError) -> UsageError:
    return UsageError(f"{what}: {describe_validation(error)}")


def create_work(
    layout: Layout,
    *,
    title: str,
    template: str | Path,
    objective: str,
    acceptance: Sequence[str] = (),
    depends_on: Sequence[str] = (),
    max_attempts: int = 3,
    work_id: str | None = None,
    actor: str,
) -> WorkIntent:
    """Create standalone work: intent.json and `work.created`. Checks run usage (2), not found (4), refused (3)."""
    stamp = now()
    work_id = check_id(work_id, "work id") if work_id else new_work_id(stamp)
    for dependency in depends_on:
        check_id(dependency, "dependency id")
    try:
        intent = WorkIntent(
            id=work_id,
            title=title,
            objective=objective,
            acceptance=list(acceptance),
            dependencies=list(depends_on),
            template=template_ref(template),
            max_attempts=max_attempts,
            created_at=iso(stamp),
        )
    except ValidationError as error:
        raise _usage("work", error) from None
    if len(set(depends_on)) != len(depends_on):
        raise UsageError("--depends-on names the same work twice")
    for dependency in depends_on:
        if not (layout.work(dependency) / "intent.json").is_file():
            raise NotFound(f"dependency work {dependency} does not exist")
    directory = layout.work(work_id)
    with hold_lease(directory / "lease", f"work {work_id}"):
        log: JsonlTail[Any] = JsonlTail(directory / EVENTS, WORK_EVENTS_ADAPTER)
        if (directory / "intent.json").exists():
            prior = _created_without_event(directory, log, intent)
            if prior is None:
                raise Refused(f"work {work_id} already exists")
            intent = prior
        else:
            write_record(directory / "intent.json", intent)
        append_event(log, WorkCreated, actor)
    return intent


def _created_without_event(directory: Path, log: JsonlTail[Any], intent: WorkIntent) -> WorkIntent | None:
    """The intent a `work create` left when it died before appending `work.created`, if this create asks for
    the same work (`created_at` aside): the repeat completes the interrupted creation. None otherwise."""
    log.refresh()
    if log.events or log.problem is not None:
        return None
    try:
        prior = WorkIntent.model_validate_json((directory / "intent.json").read_bytes())
    except (OSError, ValidationError):
        return None
    return prior if prior.model_copy(update={"created_at": intent.created_at}) == intent else None


def _load_json_file(path: Path, what: str) -> Any:
    """A team, replanning or mission file: a regular file of at most `MAX_SPEC_FILE_BYTES` holding UTF-8 JSON.

    A device (`/dev/zero`), a FIFO, an oversized or too deeply nested file is bad input, never a hang, a
    memory blow-up or a traceback."""
    try:
        if path.exists() and not path.is_file() and not path.is_dir():
            raise UsageError(f"{what} file {path} is not a regular file")
        with path.open("rb") as handle:
            body = handle.read(MAX_SPEC_FILE_BYTES + 1)
    except FileNotFoundError:
        raise UsageError(f"{what} file {path} does not exist") from None
    except OSError as error:
        raise UsageError(f"{what} file {path} cannot be read: {error.strerror or error}") from None
    if len(body) > MAX_SPEC_FILE_BYTES:
        raise UsageError(f"{what} file {path} is larger than {MAX_SPEC_FILE_BYTES} bytes")
    try:
        return json.loads(body.decode("utf-8"))
    except ValueError as error:
        raise UsageError(f"{what} file {path} is not valid JSON: {error}") from None
    except RecursionError:
        raise UsageError(f"{what} file {path} is nested too deeply to be a {what} file") from None


def load_team(path: Path) -> dict[str, SpecialistProfile]:
    """Parse a team file, freezing command paths and scripted replies as absolute paths."""
    data = _load_json_file(path, "team")
    if not isinstance(data, dict) or not data:
        raise UsageError(f"team file {path} must be a non-empty JSON object of specialist id -> profile")
    base = path.resolve().parent
    team: dict[str, SpecialistProfile] = {}
    for member_id, profile in data.items():
        check_id(member_id, "specialist id")
        if not isinstance(profile, dict):
            raise UsageError(f"team file {path}: {member_id} must be an object")
        if "cwd" in profile:
            raise UsageError(f"team file {path}: {member_id}: unknown key 'cwd'")
        frozen = dict(profile)
        if isinstance(frozen.get("argv"), list):
            frozen["argv"] = _freeze_argv(frozen["argv"], base)
        if isinstance(frozen.get("replies"), str):
            frozen["replies"] = str((base / frozen["replies"]).resolve())
        frozen["cwd"] = str(base)
        try:
            team[member_id] = SpecialistProfile.model_validate(frozen)
        except ValidationError as error:
            raise UsageError(f"team file {path}: {member_id}: {describe_validation(error)}") from None
    return team


def _freeze_argv(argv: list[Any], base: Path) -> list[Any]:
    frozen: list[Any] = []
    for index, part in enumerate(argv):
        if isinstance(part, str) and ((index == 0 and "/" in part) or (index > 0 and part.startswith(("./", "../")))):
            frozen.append(str((base / part).resolve()))
        else:
            frozen.append(part)
    return frozen


def load_replanning(path: Path, team: dict[str, SpecialistProfile]) -> Replanning:
    data = _load_json_file(path, "replanning")
    if not isinstance(data, dict):
        raise UsageError(f"replanning file {path} must be a JSON object")
    base = path.resolve().parent
    templates = data.get("templates")
    if not isinstance(templates, dict) or not templates:
        raise UsageError(f"replanning file {path}: templates must be a non-empty object")
    frozen: dict[str, Any] = {}
    for template_id, spec in templates.items():
        check_id(template_id, "template id")
        if not isinstance(spec, dict) or not isinstance(spec.get("path"), str):
            raise UsageError(f"replanning file {path}: template {template_id} needs a path")
        try:
            ref = template_ref(spec["path"], base)
        except UsageError as error:
            raise UsageError(f"replanning file {path}: template {template_id}: {error}") from None
        frozen[template_id] = {**spec, "path": ref.path, "sha256": ref.sha256}
    try:
        replanning = Replanning.model_validate({**data, "templates": frozen})
    except ValidationError as error:
        raise UsageError(f"replanning file {path}: {describe_validation(error)}") from None
    for member in [replanning.planner, *replanning.reviewers]:
        if member not in team:
            raise UsageError(f"replanning file {path}: specialist {member!r} is not a member of the team")
    return replanning


def load_mission(path: Path) -> Mission:
    data = _load_json_file(path, "mission")
    try:
        return Mission.model_validate(data)
    except ValidationError as error:
        raise UsageError(f"mission file {path}: {describe_validation(error)}") from None


@dataclass(frozen=True)
class GoalOptions:
    title: str | None = None
    goal_id: str | None = None
    max_total_attempts: int | None = None
    max_parallel_work: int | None = None
    max_cycles: int | None = None
    accept_passing_proof: bool = False
    retry_blocked: bool = False


def create_supervisor(
    layout: Layout,
    *,
    team_file: Path,
    mission_file: Path | None = None,
    root_work: str | None = None,
    replanning_file: Path | None = None,
    options: GoalOptions = GoalOptions(),
) -> GoalIntent:
    """Freeze a goal: team, limits, automation, replanning catalog (with template digests) and mission."""
    stamp = now()
    goal_id = check_id(options.goal_id, "goal id") if options.goal_id else new_goal_id(stamp)
    if root_work is not None:
        check_id(root_work, "root work id")
    if mission_file is None and root_work is None:
        raise UsageError("a goal needs --mission or --root-work (or both)")
    if mission_file is not None and replanning_file is None:
        raise UsageError("a mission requires --replanning")
    team = load_team(team_file)
    replanning = load_replanning(replanning_file, team) if replanning_file else None
    mission = load_mission(mission_file) if mission_file else None
    limits = _limits(options)
    if options.title is not None:  # bounds before existence (SPEC 6 order): a bad --title is 2 even with no root
        try:
            _TITLE.validate_python(options.title)
        except ValidationError as error:
            raise UsageError(f"goal: title: {error.errors(include_url=False)[0]['msg']}") from None
    root_intent = None
    if root_work is not None:
        intent_path = layout.work(root_work) / "intent.json"
        if not intent_path.is_file():
            raise NotFound(f"root work {root_work} does not exist")
        try:
            root_intent = WorkIntent.model_validate_json(intent_path.read_bytes())
        except ValidationError as error:
            raise CorruptJournal(f"{intent_path}: {describe_validation(error)}") from None
    # an operator's --title is bounded like every title (exit 2); a derived default is cut to fit
    default = root_intent.title if root_intent else (mission.objective if mission else goal_id)
    title = options.title if options.title is not None else default.strip()[:TITLE_MAX]
    try:
        goal = GoalIntent(
            id=goal_id,
            title=title,
            created_at=iso(stamp),
            root_work_id=root_work,
            mission=mission,
            team=team,
            limits=limits,
            automation=Automation(
                accept_passing_proof=options.accept_passing_proof, retry_blocked=options.retry_blocked
            ),
            replanning=replanning,
        )
    except ValidationError as error:
        raise _usage("goal", error) from None
    directory = layout.goal(goal_id)
    if (directory / "goal.json").exists():
        raise Refused(f"goal {goal_id} already exists")
    ensure_dir(directory / "plans")
    with hold_lease(directory / "lease", f"goal {goal_id}"), contextlib.ExitStack() as adopted:
        # the work the goal adopts changes owner: a standalone transition holding its lease finishes first, and
        # one that takes it after finds the new owner under it and moves to the goal lease (scope.work_lease)
        for work_id in _closure_ids(layout, root_work) if root_work is not None else []:
            adopted.enter_context(hold_lease(layout.work(work_id) / "lease", f"work {work_id}"))
        if (directory / "goal.json").exists():
            raise Refused(f"goal {goal_id} already exists")
        write_record(directory / "goal.json", goal)
    return goal


def _closure_ids(layout: Layout, root: str) -> list[str]:
    """The root and its transitive dependencies that exist, by their intents, sorted (the lease order)."""
    found: set[str] = set()
    stack = [root]
    while stack:
        work_id = stack.pop()
        if work_id in found or not is_valid_id(work_id) or not layout.work(work_id).is_dir():
            continue
        found.add(work_id)
        try:
            intent = json.loads((layout.work(work_id) / "intent.json").read_bytes())
        except (OSError, ValueError):
            continue
        dependencies = intent.get("dependencies") if isinstance(intent, dict) else None
        if isinstance(dependencies, list):
            stack.extend(str(d) for d in dependencies)
    return sorted(found)


def _limits(options: GoalOptions) -> Limits:
    values = {
        "max_total_attempts": options.max_total_attempts,
        "max_parallel_work": options.max_parallel_work,
        "max_cycles": options.max_cycles,
    }
    try:
        return Limits.model_validate({k: v for k, v in values.items() if v is not None})
    except ValidationError as error:
        raise _usage("limits", error) from None


__all__ = [
    "HARNERY",
    "FrozenTemplate",
    "GoalOptions",
    "create_supervisor",
    "create_work",
    "init_shared_tree",
    "init_tree",
]
