"""Shared trees: one Unix group's operators on one `.harnery/`, every entry group-owned, 2770 and 0660.

A tree is shared when its `.harnery/` is a directory with mode 2770 (setgid): its group is the tree's group.
What a writer creates in a shared tree gets its mode set explicitly (never left to the writer's umask) and
checked; setgid directories give every new entry the tree's group. A private tree keeps 0700/0600. Whether a
tree is shared is read once per process from `.harnery/` (`forget` after converting one).
"""

from __future__ import annotations

import errno
import grp
import os
import pwd
import stat
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from harn_tui.core.errors import SystemRefused, UsageError, system_refused
from harn_tui.core.ids import check_id

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
SHARED_DIR_MODE = 0o2770
SHARED_FILE_MODE = 0o660
SHARED_UMASK = 0o007
HARNERY = ".harnery"
_MARK = os.sep + HARNERY

_groups: dict[str, int | None] = {}


def tree_base(path: str | os.PathLike[str]) -> str | None:
    """The `.harnery` directory `path` lies in (or is), or None for a path outside any tree."""
    text = os.fspath(path)
    at = text.rfind(_MARK)
    while at >= 0:
        end = at + len(_MARK)
        if end == len(text) or text[end] == os.sep:
            return text[:end]
        at = text.rfind(_MARK, 0, at)
    return None


def is_shared_mode(found: os.stat_result) -> bool:
    return stat.S_ISDIR(found.st_mode) and stat.S_IMODE(found.st_mode) == SHARED_DIR_MODE


def base_group(base: str | os.PathLike[str]) -> int | None:
    """The group id of the shared tree whose `.harnery/` is `base`, None for a private (or missing) one; cached."""
    key = os.fspath(base)
    if key not in _groups:
        try:
            found = os.lstat(key)
        except OSError:
            return None  # not cached: a tree created later in this process is looked at again
        _groups[key] = found.st_gid if is_shared_mode(found) else None
    return _groups[key]


def group_of(path: str | os.PathLike[str]) -> int | None:
    """The shared group of the tree `path` lies in; None for a private tree or a path outside every tree."""
    base = tree_base(path)
    return None if base is None else base_group(base)


def forget(base: str | os.PathLike[str]) -> None:
    """Drop the cached sharing of `base` (after `init --shared` converted it)."""
    _groups.pop(os.fspath(base), None)


def dir_mode(path: str | os.PathLike[str]) -> int:
    return PRIVATE_DIR_MODE if group_of(path) is None else SHARED_DIR_MODE


def file_mode(path: str | os.PathLike[str]) -> int:
    return PRIVATE_FILE_MODE if group_of(path) is None else SHARED_FILE_MODE


def child_umask(path: str | os.PathLike[str]) -> int:
    """The umask for a process started to work in `path` (a template in its scratch): -1 (inherit) in a private
    tree; 007 in a shared one, so what it and the tools it runs (git) create is the group's."""
    return -1 if group_of(path) is None else SHARED_UMASK


def make_dir(path: str | os.PathLike[str]) -> None:
    """`os.mkdir` with the tree's directory mode; FileExistsError as mkdir raises it. In a shared tree the new
    directory is set to 2770 and the tree's group and checked (the umask may have taken bits away)."""
    group = group_of(path)
    os.mkdir(path, PRIVATE_DIR_MODE if group is None else SHARED_DIR_MODE)
    if group is not None:
        settle(path, group, directory=True)


def open_new(path: str | os.PathLike[str], flags: int) -> int:
    """`os.open(path, flags | O_CREAT, mode)` with the tree's file mode; in a shared tree a file this writer
    owns is then given 0660 and the tree's group and checked. The caller closes the fd."""
    group = group_of(path)
    fd = os.open(path, flags | os.O_CREAT, PRIVATE_FILE_MODE if group is None else SHARED_FILE_MODE)
    if group is not None:
        try:
            settle_fd(fd, path, group)
        except BaseException:
            os.close(fd)
            raise
    return fd


def settle_fd(fd: int, path: str | os.PathLike[str], group: int) -> None:
    """Give an open file this writer owns mode 0660 and `group`, and check it took. Another account's file is
    left as it is (only its owner can change it; `verify` reports it)."""
    found = os.fstat(fd)
    if found.st_uid != os.geteuid() or (stat.S_IMODE(found.st_mode) == SHARED_FILE_MODE and found.st_gid == group):
        return
    if found.st_gid != group:
        os.fchown(fd, -1, group)
    os.fchmod(fd, SHARED_FILE_MODE)
    _check(os.fstat(fd), path, group, SHARED_FILE_MODE)


def settle(path: str | os.PathLike[str], group: int, *, directory: bool = False) -> None:
    """`settle_fd` for an entry this writer just made by name (a directory, a lock file), never followed."""
    want = SHARED_DIR_MODE if directory else SHARED_FILE_MODE
    found = os.lstat(path)
    if found.st_uid != os.geteuid() or (stat.S_IMODE(found.st_mode) == want and found.st_gid == group):
        return
    if found.st_gid != group:
        os.chown(path, -1, group, follow_symlinks=False)
    os.chmod(path, want)  # chmod after chown: changing the group clears setgid
    _check(os.lstat(path), path, group, want)


def _check(found: os.stat_result, path: str | os.PathLike[str], group: int, want: int) -> None:
    if stat.S_IMODE(found.st_mode) != want or found.st_gid != group:
        raise PermissionError(
            errno.EPERM,
            f"created with mode {stat.S_IMODE(found.st_mode):04o} group {group_name(found.st_gid)}, not "
            f"{want:04o} group {group_name(group)} (the filesystem does not keep a shared tree's modes)",
            os.fspath(path),
        )


def group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def user_name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def login_name() -> str:
    """The account this process runs as, from its uid (never `$USER` or `$LOGNAME`, which anyone can set)."""
    return user_name(os.getuid())


def is_member(gid: int) -> bool:
    """Whether this process has `gid` among its groups (primary or supplementary)."""
    return gid == os.getegid() or gid in os.getgroups()


class Drift(NamedTuple):
    """An entry of a shared tree whose group or mode breaks the rules, and whether this run repaired it."""

    path: str
    problem: str
    repaired: bool = False


def wanted_mode(found: os.stat_result) -> int:
    """The mode an entry of a shared tree should have: 2770 for a directory; for a file, the owner's bits given
    to the group too and nothing to others (0660 for what harn writes; a template's read-only or executable
    file in scratch, or git's read-only objects in a workspace, keep being so: 0440, 0770)."""
    if stat.S_ISDIR(found.st_mode):
        return SHARED_DIR_MODE
    owner = stat.S_IMODE(found.st_mode) & 0o700
    return owner | owner >> 3


def drift_of(found: os.stat_result, group: int) -> str | None:
    """What is wrong with an entry of a shared tree (its group, its mode), or None."""
    wrong = []
    if found.st_gid != group:
        wrong.append(f"group {group_name(found.st_gid)}, not {group_name(group)}")
    mode, want = stat.S_IMODE(found.st_mode), wanted_mode(found)
    if mode != want:
        wrong.append(f"mode {mode:04o}, not {want:04o}")
    return (
        "; ".join(wrong) + f" (a shared tree's rule; `harn init --shared {group_name(group)}` repairs it)"
        if wrong
        else None
    )


def walk_drift(base: Path, group: int, *, repair: bool) -> list[Drift]:
    """Every directory and file under `base` (itself included) whose group or mode breaks the shared rules;
    with `repair`, each one this account may change is set right. Symbolic links are neither followed nor
    changed (verify reports them as links). Temporary files are left to their writers."""
    drifts: list[Drift] = []
    pending = [str(base)]
    while pending:
        path = pending.pop()
        try:
            found = os.lstat(path)
        except FileNotFoundError:
            continue
        except OSError as error:
            drifts.append(Drift(path, f"unreadable ({error.strerror or error})"))
            continue
        if not (stat.S_ISDIR(found.st_mode) or stat.S_ISREG(found.st_mode)):
            continue
        problem = drift_of(found, group)
        if problem is not None:
            drifts.append(_repair(path, found, group, problem) if repair else Drift(path, problem))
        if stat.S_ISDIR(found.st_mode):  # listed after its repair: a directory made readable is walked too
            try:
                pending.extend(entry.path for entry in os.scandir(path) if not _is_temp(entry.name))
            except FileNotFoundError:
                continue
            except OSError as error:
                drifts.append(Drift(path, f"unreadable ({error.strerror or error})"))
    return drifts


def _repair(path: str, found: os.stat_result, group: int, problem: str) -> Drift:
    try:
        if found.st_gid != group:
            os.chown(path, -1, group, follow_symlinks=False)
        os.chmod(path, wanted_mode(found))
    except PermissionError:
        owner = user_name(found.st_uid)
        return Drift(path, f"{problem}; owned by {owner}, so only {owner} (or root) can repair it")
    return Drift(path, problem, repaired=True)


def _is_temp(name: str) -> bool:
    return name.startswith(".") and ".tmp-" in name


def unreachable_parents(root: Path, group: int) -> list[str]:
    """The directories from `/` to `root` (inclusive) a member of `group` who is neither their owner nor root
    cannot enter: each keeps the group's members from reaching the tree, whatever the tree's own modes."""
    blocked: list[str] = []
    for directory in (*reversed(root.parents), root):
        try:
            found = os.stat(directory)
        except OSError:
            continue
        mode = stat.S_IMODE(found.st_mode)
        if not (mode & stat.S_IXOTH or (mode & stat.S_IXGRP and found.st_gid == group)):
            blocked.append(
                f"{directory} (mode {mode:04o}, owner {user_name(found.st_uid)}, group {group_name(found.st_gid)})"
            )
    return blocked


def shared_actor(base: str | os.PathLike[str], explicit: str | None) -> str | None:
    """In the shared tree at `base`: the login name this operator acts as (UsageError when `explicit` or
    `$HARN_ACTOR` names someone else). None for a private tree, where any actor may be given."""
    if base_group(base) is None:
        return None
    login = login_name()
    requested, source = (explicit, "--actor") if explicit is not None else (os.environ.get("HARN_ACTOR"), "$HARN_ACTOR")
    if requested and requested != login:
        raise UsageError(f"in a shared tree you act as {login} ({source} {requested} is refused)")
    return check_id(login, "actor")


def enter_tree(base: str | os.PathLike[str]) -> None:
    """A process about to work in the tree at `base`: in a shared tree its umask becomes 007, so nothing it (or a
    library it calls) creates is ever private to it, not even for the moment before its mode is set."""
    if base_group(base) is not None:
        os.umask(SHARED_UMASK)


def refused_read(path: str | os.PathLike[str], error: OSError) -> SystemRefused:
    """The one line for a tree this account may not read: the path, the system's reason and who may: for a
    shared tree the group to ask to join, for a private one its owner. `path` is the tree's `.harnery/`, or its
    root when even that cannot be entered (then the root's own group and owner are what can be told)."""
    refused = system_refused(error, path, "read")
    try:
        found = os.stat(path)
    except OSError:
        return refused
    login = login_name()
    if tree_base(path) is not None and is_shared_mode(found):
        group = group_name(found.st_gid)
        if is_member(found.st_gid):
            return SystemRefused(f"{refused.message}; the tree is shared with group {group}")
        return SystemRefused(
            f"{refused.message}; the tree is shared with group {group}, and you ({login}) "
            f"are not in it: ask to be added to {group}"
        )
    if found.st_uid == os.geteuid():
        return refused
    mode = stat.S_IMODE(found.st_mode)
    if mode & stat.S_IRWXG and not is_member(found.st_gid):
        group = group_name(found.st_gid)
        return SystemRefused(
            f"{refused.message}; it is open to group {group} only (mode {mode:04o}), and you "
            f"({login}) are not in it: ask to be added to {group}"
        )
    owner = user_name(found.st_uid)
    return SystemRefused(
        f"{refused.message}; it is private to {owner} (mode {mode:04o}): ask {owner} to share "
        "it with `harn init --shared GROUP`"
    )


def require_readable(base: Path) -> None:
    """SystemRefused (exit 6, one line) when this account cannot list the tree at `base`: every read and write
    starts there, so nothing is tried (and nothing changed) in a tree that is not this account's to read."""
    try:
        with os.scandir(base):
            pass
    except PermissionError as error:
        raise refused_read(base, error) from None


def give_to_group(paths: Sequence[Path], group: int) -> None:
    """Files this account made beside a shared tree for the group (the agents' starter kit: a team file, its
    templates) get the group and the group's share of the owner's access, as entries of the tree do."""
    for path in paths:
        found = os.lstat(path)
        if stat.S_ISLNK(found.st_mode) or found.st_uid != os.geteuid():
            continue
        if found.st_gid != group:
            os.chown(path, -1, group, follow_symlinks=False)
        os.chmod(path, wanted_mode(found))
