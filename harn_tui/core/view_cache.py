"""Read documents kept in `.harnery/cache/`, each valid only while every file it was derived from is unchanged.

A read verb (`supervisor show`, `supervisor list`, `pending`, `work show`) spends most of its time importing and
building the record models; the document it prints is a pure function of the files it read and of the liveness
of a few leases. An entry keeps the document with the identity (device, inode, size, modification and change
times in ns) of every file and directory under the goals, work items, runs and approvals the read loaded, and
the liveness it probed. At use each identity is taken again and each lease probed again: one difference, and
the records are read as if there were no cache (and the entry rewritten). Nothing here imports the record
models, so a read whose entry holds costs a `stat` per file.

What an entry is never trusted for:

- a file that changed in the same clock tick as its last change, after it was read (same size): an entry is not
  written while any of its files changed less than `SETTLED_NS` before the read began;
- another account's file: entries live in a directory of this account's own, and a directory or file owned by
  anyone else, or writable by the group or others, is ignored. A shared tree keeps none (its group can write
  everything in it, `cache/` included, so any member could forge a document another would be shown);
- another version of harn: the identities of harn's own source files are part of the entry;
- damage: an entry that does not parse, has another format, is too large or names files outside the tree is
  ignored and replaced.

Entries are written to a temporary file and renamed into place, so two consoles, a serve loop and CLI reads
writing at once leave one whole entry or another, never a mix.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import time
from collections.abc import Callable, Collection
from pathlib import Path

from harn_tui.core.liveness import is_held
from harn_tui.core.sharing import base_group

TYPE_CHECKING = False  # no `typing` on the path of a read served from here
if TYPE_CHECKING:
    from typing import Any

    from harn_tui.core.tree import Tree

FORMAT = 1
SETTLED_NS = 2_000_000_000  # a file changed within 2 s before the read began may change again unseen
MAX_ENTRY_BYTES = 8 << 20
MAX_SOURCES = 50_000
STALE_TEMP_S = 60.0
TEMP_MARK = ".tmp-"
DISABLE_ENV = "HARN_NO_VIEW_CACHE"  # any value: read the records every time, write no entry
RUN_FILES = frozenset({"proof.json", "finish-note"})

Identity = list[int] | None


def cached_read(base: Path, key: str, read: Callable[[], tuple[Any, Tree]], whole_tree: bool) -> Any:
    """The document `read` returns, from the entry `key` when it holds. `read` returns the document and the tree
    it was projected from; `whole_tree`: the read listed every goal, work item and approval (a new one changes
    it), else it read one goal's scope."""
    if os.environ.get(DISABLE_ENV) or base_group(base) is not None:
        return read()[0]
    cache = ViewCache(base)
    document = cache.get(key)
    if document is not None:
        return document
    started_ns = time.time_ns()
    document, tree = read()
    cache.put(key, document, sources_of(tree, whole_tree), started_ns)
    return document


def kept_document(base: Path, key: str) -> Any | None:
    """A document kept with `keep_document`, or None (none, damaged, another harn's, a shared tree, or the cache
    turned off). It was true when it was kept and is not checked against the files since: whoever shows it says
    it is as last seen."""
    if os.environ.get(DISABLE_ENV) or base_group(base) is not None:
        return None
    entry = ViewCache(base)._load(key)
    try:
        if entry is None or entry["format"] != FORMAT or entry["key"] != key or entry["base"] != os.fspath(base):
            return None
        if entry["code"] != code_identity() or "files" in entry:
            return None
        return entry["document"]
    except (KeyError, TypeError):
        return None


def keep_document(base: Path, key: str, document: Any) -> None:
    """Keep `document` as last seen (see `kept_document`); nothing when the cache is off or cannot be written."""
    if os.environ.get(DISABLE_ENV) or base_group(base) is not None:
        return
    entry = {"format": FORMAT, "key": key, "base": os.fspath(base), "code": code_identity(), "document": document}
    body = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()
    if len(body) <= MAX_ENTRY_BYTES - 100:
        with contextlib.suppress(OSError):
            ViewCache(base)._write(key, _header(body) + b"\n" + body)


class ViewCache:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.directory = base / "cache" / f"views-u{os.getuid()}"

    def path(self, key: str) -> Path:
        return self.directory / f"{key}.json"

    def get(self, key: str) -> Any | None:
        """The entry's document while everything it was derived from is as it was; None otherwise."""
        entry = self._load(key)
        if entry is None:
            return None
        try:
            if entry["format"] != FORMAT or entry["key"] != key or entry["base"] != os.fspath(self.base):
                return None
            if entry["code"] != code_identity():
                return None
            if not self._unchanged(entry["files"]):
                return None
            if not all(_kind(self.base, rel) == identity for rel, identity in _pairs(entry["kinds"])):
                return None
            leases = _pairs(entry["leases"], lambda held: isinstance(held, bool))
            if not all(_held(self.base, rel) is held for rel, held in leases):
                return None
        except (KeyError, TypeError, ValueError):
            return None
        return entry["document"]

    def _unchanged(self, rows: Any) -> bool:
        """Every [path, identity] row names the entry at that path as it is now (`_identity`); TypeError or
        ValueError for a row that is not one. The one loop a hit on a large goal spends its time in: a stat per
        row, relative to the tree's base opened once. An identity that is not six integers equals no stat."""
        if not isinstance(rows, list):
            raise TypeError("rows")
        lstat = os.lstat
        base = os.open(self.base, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for rel, identity in rows:
                if not _inside(rel):
                    raise ValueError(f"{rel!r} is not a path inside the tree")
                try:
                    found = lstat(rel, dir_fd=base)
                except OSError:
                    if identity is not None:
                        return False
                    continue
                if identity != _identity_of(found):
                    return False
        finally:
            os.close(base)
        return True

    def put(self, key: str, document: Any, sources: Sources, started_ns: int) -> None:
        """Keep `document` (derived from `sources`, read from `started_ns` on); nothing when a source changed
        too recently to be told from a later change, when there are too many, or when the cache cannot be
        written (a read never fails for its cache)."""
        if sources.changed_since(started_ns - SETTLED_NS) or len(sources.files) > MAX_SOURCES:
            return
        entry = {
            "format": FORMAT,
            "key": key,
            "base": os.fspath(self.base),
            "code": code_identity(),
            "files": [[rel, identity] for rel, identity in sources.files.items()],
            "kinds": [[rel, identity] for rel, identity in sources.kinds.items()],
            "leases": [[rel, held] for rel, held in sources.leases.items()],
            "document": document,
        }
        body = json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode()
        if len(body) > MAX_ENTRY_BYTES - 100:
            return
        with contextlib.suppress(OSError):
            self._write(key, _header(body) + b"\n" + body)

    def _load(self, key: str) -> dict[str, Any] | None:
        """The entry as JSON, if this account's own and whole; None for anything else."""
        if not _own_directory(self.directory):
            return None
        try:
            fd = os.open(self.path(key), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            found = os.fstat(fd)
            if not _own_file(found) or found.st_size > MAX_ENTRY_BYTES:
                return None
            body = os.read(fd, found.st_size + 1)
        except OSError:
            return None
        finally:
            os.close(fd)
        header, _, body = body.partition(b"\n")
        if header != _header(body):  # torn, truncated, flipped, another format
            return None
        try:
            entry = json.loads(body)
        except ValueError:
            return None
        return entry if isinstance(entry, dict) else None

    def _write(self, key: str, body: bytes) -> None:
        os.makedirs(self.directory, mode=0o700, exist_ok=True)
        if not _own_directory(self.directory):
            return
        self._remove_stale_temps()
        from secrets import token_hex

        final = self.path(key)
        temp = self.directory / f".{final.name}{TEMP_MARK}{token_hex(6)}"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(body)
            os.replace(temp, final)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise

    def _remove_stale_temps(self) -> None:
        """Temporary files of writers that died before their rename (a live writer renames within moments)."""
        now = time.time()
        with contextlib.suppress(OSError), os.scandir(self.directory) as entries:
            for entry in entries:
                if TEMP_MARK in entry.name and now - entry.stat(follow_symlinks=False).st_mtime > STALE_TEMP_S:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)


class Sources:
    """What a document was derived from: file and directory identities (None: absent) by path relative to the
    tree's base, and the liveness of the leases probed."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.files: dict[str, Identity] = {}
        self.kinds: dict[str, Identity] = {}
        self.leases: dict[str, bool] = {}

    def add(self, rel: str, recursive: bool = False, only: Collection[str] | None = None) -> None:
        """The entry at `rel` and, for a directory, every entry in it (in its subdirectories too with
        `recursive`), or only those named in `only`."""
        identity = _identity(self.base, rel)
        self.files[rel] = identity
        if identity is None or not stat.S_ISDIR(identity[5]):
            return
        try:
            with os.scandir(self.base / rel) as entries:
                names = sorted((entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries)
        except OSError:
            return
        for name, is_dir in names:
            if only is not None and name not in only:
                continue
            child = f"{rel}/{name}"
            if is_dir and recursive:
                self.add(child, recursive=True)
            else:
                self.files[child] = _identity(self.base, child)

    def changed_since(self, since_ns: int) -> bool:
        return any(
            identity is not None and max(identity[3], identity[4]) >= since_ns for identity in self.files.values()
        )


def sources_of(tree: Tree, whole_tree: bool) -> Sources:
    """Every file and directory the tree's goals, work items, runs and approvals live in (with `whole_tree`, every
    goal, work and approval directory there is, loaded or not: an aborted creation completed later is a change),
    and the leases whose liveness the projection used (the runs its logs leave unfinished, and each goal's loop)."""
    base = tree.layout.base
    sources = Sources(base)
    for top in ("supervisors", "work", "runs", "approvals"):
        if whole_tree and top != "runs":
            sources.add(top, recursive=True)
        else:  # only that it is the same directory, no link: its listing is not what the read depended on
            sources.kinds[top] = _kind(base, top)
    for goal_id in tree.goals:
        sources.add(f"supervisors/{goal_id}", recursive=True)
        loop = f"supervisors/{goal_id}/supervisor.lock"
        sources.leases[loop] = _held(base, loop)
    for work_id, work in tree.work.items():
        sources.add(f"work/{work_id}")
        for run_id in tree.runs_told(work).unfinished:
            sources.leases[f"runs/{run_id}/lease"] = _held(base, f"runs/{run_id}/lease")
    for run_id in tree.runs:
        # what a document reads of a run: its proof and its runner's finish note (`finish_note.NOTE_NAME`); one
        # created or removed changes the directory, and its lease is probed as `leases`
        sources.add(f"runs/{run_id}", only=RUN_FILES)
    for approval_id in tree.approvals:
        sources.add(f"approvals/{approval_id}")
    return sources


_CODE: list[str] = []


def code_identity() -> str:
    """The identities of the source files that make the documents (the core's and the CLI's): an entry written by
    other code is not this code's document."""
    if not _CODE:
        package = Path(__file__).resolve().parent.parent
        digest = hashlib.sha256()
        for top in (package / "core", package / "cli"):
            for folder, dirs, names in os.walk(top):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                for name in sorted(names):
                    if name.endswith(".py"):
                        found = os.stat(os.path.join(folder, name))
                        digest.update(f"{folder}/{name}:{found.st_size}:{found.st_mtime_ns}\n".encode())
        _CODE.append(digest.hexdigest())
    return _CODE[0]


def _identity(base: Path, rel: str) -> Identity:
    """[device, inode, size, mtime_ns, ctime_ns, mode] of the entry itself (a link is not followed), or None."""
    if not _inside(rel):
        raise ValueError(f"{rel!r} is not a path inside the tree")
    try:
        found = os.lstat(f"{base}/{rel}")
    except OSError:
        return None
    return _identity_of(found)


def _identity_of(found: os.stat_result) -> list[int]:
    return [found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns, found.st_mode]


def _header(body: bytes) -> bytes:
    """The first line of an entry: the format and a digest of the rest, so damage anywhere in it is seen."""
    return b"harn-view-cache %d %s" % (FORMAT, hashlib.sha256(body).hexdigest().encode())


def _kind(base: Path, rel: str) -> Identity:
    """Which entry is at `rel` and what it is (a directory, a link...), without what changes with its listing."""
    identity = _identity(base, rel)
    return None if identity is None else [identity[0], identity[1], 0, 0, 0, identity[5]]


def _held(base: Path, rel: str) -> bool:
    if not _inside(rel):
        raise ValueError(f"{rel!r} is not a path inside the tree")
    return is_held(Path(f"{base}/{rel}"))


def _inside(rel: object) -> bool:
    return (
        isinstance(rel, str)
        and bool(rel)
        and not rel.startswith("/")
        and "\0" not in rel
        and ".." not in rel.split("/")
    )


def _pairs(rows: Any, valid: Callable[[Any], bool] | None = None) -> list[Any]:
    """The [path, value] rows of an entry, each value checked by `valid`: TypeError for anything else."""
    if not isinstance(rows, list):
        raise TypeError("rows")
    pairs = []
    for row in rows:
        rel, value = row
        if not (valid or _is_identity)(value):
            raise TypeError(f"{value!r}")
        pairs.append((rel, value))
    return pairs


def _is_identity(value: Any) -> bool:
    return value is None or (isinstance(value, list) and len(value) == 6 and all(type(part) is int for part in value))


def _own_directory(path: Path) -> bool:
    try:
        found = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o022


def _own_file(found: os.stat_result) -> bool:
    return stat.S_ISREG(found.st_mode) and found.st_uid == os.getuid() and not found.st_mode & 0o022
