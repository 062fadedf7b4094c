"""Reading records and JSONL logs, incrementally: a tail keeps its byte offset and re-parses only new lines."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar, cast, get_args

from pydantic import BaseModel, TypeAdapter, ValidationError

from harn_tui.core.errors import CorruptJournal
from harn_tui.core.reader_bounds import (
    MAX_LINE_BYTES,
    MAX_LOG_BYTES,
    MAX_RECORD_BYTES,
    open_regular,
    over_limit,
    read_limited,
)

M = TypeVar("M", bound=BaseModel)

# (device, inode, size, modification ns, change ns): what tells one version of a file from another unread
FileIdentity = tuple[int, int, int, int, int]


def identity_of(found: os.stat_result) -> FileIdentity:
    return found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns


E = TypeVar("E")


def describe_validation(error: ValidationError) -> str:
    """One line naming the first failing field and why."""
    first = error.errors()[0]
    location = ".".join(str(part) for part in first.get("loc", ())) or "$"
    return f"{location}: {first.get('msg', 'invalid')}"


def read_bytes(path: str | Path, limit: int = MAX_RECORD_BYTES) -> bytes:
    """The whole file (FileNotFoundError if missing), read without following a symbolic link and at most `limit`
    bytes: a link, a directory or other non-file, or a file over the limit is CorruptJournal naming the path.

    Loading a large tree opens a hundred thousand small records; this is the one place that reads them.
    """
    return read_limited(path, limit)


class ParsedMemo:
    """What this process parsed before, reused when a file holds the same bytes again.

    Transitions, ticks and the console re-read a goal's records under its lease every time; the records rarely
    changed in between. A record is reused when the file at the same path has the same length and the same
    hash of its bytes (so its content is the same); a log's parsed prefix is reused when the file starts with
    the same bytes. Everything is still read from disk each time: only validation of unchanged bytes is saved.
    Parsing is a pure function of the bytes and the records are frozen, so a reused record is the record.

    A log's entry holds the tail's own list of events and how many of them the remembered prefix parsed to: a
    tail only appends to its list or replaces it, so those first events stay what the prefix parsed to.

    A whole-tree load keeps nothing here (`not_kept`): it reads every record once, and a hundred thousand
    entries would cost about 25 MB for reads that may never come; the scoped reads that follow keep their own.
    """

    def __init__(self) -> None:
        self.records: dict[int, tuple[int, int, BaseModel]] = {}
        self.logs: dict[int, tuple[int, int, list[Any], int, object]] = {}

    def record(self, path: Path | str, body: bytes, model: type[M]) -> M | None:
        found = self.records.get(hash(os.fspath(path)))
        if found is not None and found[0] == len(body) and found[1] == hash(body) and type(found[2]) is model:
            return found[2]
        return None

    def keep_record(self, path: Path | str, body: bytes, record: BaseModel) -> None:
        if _KEEPING.get():
            self.records[hash(os.fspath(path))] = (len(body), hash(body), record)

    def log_prefix(self, path: Path | str, complete: bytes, adapter: object) -> tuple[int, list[Any]]:
        """(bytes, events) of the longest remembered prefix `complete` starts with; (0, []) if none."""
        found = self.logs.get(hash(os.fspath(path)))
        if found is None or found[4] is not adapter or found[0] > len(complete):
            return 0, []
        length, digest, events, count, _ = found
        if hash(complete[:length]) != digest:
            return 0, []
        return length, events[:count]

    def keep_log(self, path: Path | str, complete: bytes, events: list[Any], adapter: object) -> None:
        if _KEEPING.get():
            self.logs[hash(os.fspath(path))] = (len(complete), hash(complete), events, len(events), adapter)


_KEEPING: ContextVar[bool] = ContextVar("keeping_parsed", default=True)


@contextlib.contextmanager
def not_kept() -> Iterator[None]:
    """Parse without remembering anything in `PARSED` (in this thread), for a read of the whole tree."""
    token = _KEEPING.set(False)
    try:
        yield
    finally:
        _KEEPING.reset(token)


PARSED = ParsedMemo()


def validate_record(path: Path | str, body: bytes, model: type[M]) -> M:
    """`body` validated as `model` (CorruptJournal naming the path and the first failing field): for a record
    looked at once and dropped; `parse_record` for one that is kept."""
    try:
        # the validator itself: `model_validate_json`'s keyword handling costs about as much as a small record
        return cast(M, model.__pydantic_validator__.validate_json(body))
    except ValidationError as error:
        raise CorruptJournal(f"{path}: {describe_validation(error)}") from None


def parse_record(path: Path | str, body: bytes, model: type[M]) -> M:
    known = PARSED.record(path, body, model)
    if known is not None:
        return known
    record = validate_record(path, body, model)
    share_fields_sets(record)
    PARSED.keep_record(path, body, record)
    return record


_FIELDS_SET = BaseModel.__dict__["__pydantic_fields_set__"]  # the slot itself: set past the frozen check
_SHARING: dict[type[BaseModel], tuple[set[str], tuple[str, ...]]] = {}


def share_fields_sets(record: BaseModel) -> None:
    """Let `record` (and the models nested in it) share one `__pydantic_fields_set__` per model class.

    Pydantic keeps a set of the explicitly set field names on every instance: about 700 bytes, more than the
    record's own values. Every record the core writes sets every field, so almost all instances of a class
    hold an equal set; they share one instead (a large tree is hundreds of thousands of events). The records
    are frozen, and pydantic copies the set before changing it (`model_copy`), so the shared set never changes.
    Called once per record read, so it is kept short: the class's plan is looked up once, the slot set directly.
    """
    every, nested = _SHARING.get(type(record)) or _sharing(type(record))
    if len(record.__pydantic_fields_set__) == len(every):
        _FIELDS_SET.__set__(record, every)
    for name in nested:
        value = record.__dict__.get(name)
        if isinstance(value, BaseModel):
            share_fields_sets(value)
        elif isinstance(value, list | tuple):
            for item in value:
                if isinstance(item, BaseModel):
                    share_fields_sets(item)
        elif isinstance(value, dict):
            for item in value.values():
                if isinstance(item, BaseModel):
                    share_fields_sets(item)


_PARTS: dict[tuple[object, ...], BaseModel] = {}
PARTS_KEPT = 10_000


def share_parts(record: BaseModel, names: tuple[str, ...]) -> None:
    """Let the small nested records `names` of `record` be one object with every equal one read before.

    A work intent's template and source are three-quarters of its objects and repeat across items (one
    template for many items, one source for every item a plan made): 20,000 intents of the L tree hold a few
    hundred distinct ones. The parts are frozen and compared by value, so an equal part is the part. Only parts
    whose fields are all hashable are named here; at most `PARTS_KEPT` distinct parts are kept.
    """
    values = record.__dict__
    for name in names:
        part = values.get(name)
        if isinstance(part, BaseModel):
            key = (type(part), *part.__dict__.values())
            shared = _PARTS.get(key)
            if shared is None:
                if len(_PARTS) < PARTS_KEPT:
                    _PARTS[key] = part
            elif shared is not part:
                values[name] = shared


def _sharing(cls: type[BaseModel]) -> tuple[set[str], tuple[str, ...]]:
    """The one fields set a model class's instances share, and its fields that may hold models."""
    nested = tuple(name for name, info in cls.model_fields.items() if _mentions_model(info.annotation))
    found = _SHARING[cls] = (set(cls.model_fields), nested)
    return found


def _mentions_model(annotation: object) -> bool:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return True
    return any(_mentions_model(argument) for argument in get_args(annotation))


def read_record(path: Path, model: type[M]) -> M:
    """Read and validate an immutable record; a missing or malformed file raises CorruptJournal."""
    try:
        body = read_bytes(path)
    except FileNotFoundError:
        raise CorruptJournal(f"{path}: missing") from None
    return parse_record(path, body, model)


def read_record_with_digest(path: Path, model: type[M]) -> tuple[M, str]:
    body = read_bytes(path)
    return parse_record(path, body, model), hashlib.sha256(body).hexdigest()


def read_optional(path: Path, model: type[M]) -> M | None:
    try:
        body = read_bytes(path)
    except FileNotFoundError:
        return None
    return parse_record(path, body, model)


def read_json(path: Path) -> Any:
    try:
        return json.loads(read_bytes(path))
    except FileNotFoundError:
        return None
    except ValueError as error:
        raise CorruptJournal(f"{path}: not JSON ({error})") from None


@dataclass(slots=True)
class JsonlTail(Generic[E]):
    """The parsed state of one append-only log, refreshed by reading only bytes appended since last time.

    A replaced or truncated file (different inode, or shorter than what was consumed) is re-read whole.
    A final line without a newline is torn: ignored and reported, never parsed.
    `changes` counts the refreshes that changed anything, so a cache can tell a log moved on in O(1).
    `seen` is the file's full identity (device, inode, size, modification and change times in ns) from the
    `fstat` of the last refresh, taken before reading (None: no file): a file with the same identity now holds
    what the tail read, up to an edit in place that a refresh reading only appended bytes cannot see.
    """

    path: Path
    adapter: TypeAdapter[list[E]]
    events: list[E] = field(default_factory=list)
    offset: int = 0
    identity: tuple[int, int] | None = None
    torn: bool = False
    problem: str | None = None
    changes: int = 0
    seen: FileIdentity | None = None

    def refresh(self) -> bool:
        """Bring the tail up to date with the file; True if anything changed."""
        changed = self._refresh()
        if changed:
            self.changes += 1
        return changed

    def _refresh(self) -> bool:
        self.seen = None
        try:
            fd, found = open_regular(self.path)
        except FileNotFoundError:
            changed = bool(self.events or self.problem or self.torn or self.identity)
            self._reset(None)
            return changed
        except CorruptJournal as error:
            return self._fail(None, 0, error.message)
        try:
            self.seen = identity_of(found)
            identity = (found.st_dev, found.st_ino)
            size = found.st_size
            changed = False
            if identity != self.identity or size < self.offset:
                self._reset(identity)
                changed = True
            if size > MAX_LOG_BYTES:
                return self._fail(identity, size, over_limit(self.path, size, MAX_LOG_BYTES, "a log"))
            if self.problem is not None:
                # the log is read up to its first problem; what follows it is not read (it may be huge)
                grew = size != self.offset
                self.offset = size
                return changed or grew
            if size == self.offset and not self.torn:
                return changed
            return self._read_new(fd, size) or changed
        except OSError as error:
            return self._fail(None, 0, f"{self.path}: unreadable ({error.strerror or error})")
        finally:
            os.close(fd)

    def _fail(self, identity: tuple[int, int] | None, size: int, problem: str) -> bool:
        """The whole log is unreadable (not a file, over the size limit): no events, the problem."""
        changed = problem != self.problem or identity != self.identity or bool(self.events)
        self._reset(identity)
        self.problem = problem
        self.offset = size
        return changed

    def _read_new(self, fd: int, size: int) -> bool:
        """Parse the complete lines after `offset`, at most `MAX_LINE_BYTES` read at a time (each read starts at a
        line), so memory stays bounded whatever the file holds; a line longer than that is a problem."""
        changed = False
        torn = False
        position = self.offset
        while position < size and self.problem is None:
            data = os.pread(fd, min(size - position, MAX_LINE_BYTES), position)
            if not data:
                break
            cut = data.rfind(b"\n") + 1
            if cut == 0:
                if position + len(data) < size:
                    self.problem = (
                        f"{self.path}: line {len(self.events) + 1} is longer than {MAX_LINE_BYTES // (1024 * 1024)} "
                        "MiB, the limit for one event"
                    )
                    changed = True
                    position = size
                    break
                torn = True
                break
            if position == 0:
                self._parse_whole(data[:cut])
            else:
                self._parse(data[:cut])
            position += cut
            changed = True
        if self.problem is not None and position < size:
            torn = os.pread(fd, 1, size - 1) != b"\n"
            position = size
        changed = changed or torn != self.torn
        self.torn = torn
        self.offset = position
        return changed

    def _parse_whole(self, complete: bytes) -> None:
        """A read from the start: reuse the events of a prefix this process parsed before (same bytes)."""
        known, events = PARSED.log_prefix(self.path, complete, self.adapter)
        if known:
            self.events = events
        if known < len(complete):
            self._parse(complete[known:] if known else complete)
        if self.problem is None:
            PARSED.keep_log(self.path, complete, self.events, self.adapter)

    def _reset(self, identity: tuple[int, int] | None) -> None:
        self.events = []
        self.offset = 0
        self.identity = identity
        self.torn = False
        self.problem = None

    def _parse(self, chunk: bytes) -> None:
        """Validate complete lines (one call for the whole chunk); keep events up to the first problem.

        The first problem in line order is the one reported, whether it is a line that does not parse or a
        break in the sequence, so reading a log in one chunk or in many reports the same problem.
        """
        first_line = self._line_count_before()
        problem: str | None = None
        try:
            parsed = self.adapter.validator.validate_json(b"[" + chunk[:-1].replace(b"\n", b",") + b"]")
            if len(parsed) != chunk.count(b"\n"):
                raise ValueError("a line holds other than exactly one JSON object")
        except (ValidationError, ValueError):
            parsed, problem = self._parse_line_by_line(chunk.split(b"\n")[:-1], first_line)
        expected = len(self.events) + 1
        for index, event in enumerate(parsed):
            if isinstance(event, BaseModel):
                share_fields_sets(event)
            seq = getattr(event, "seq", None)
            if seq != expected + index:
                self.problem = (
                    f"{self.path}: line {first_line + index + 1}: seq {seq} breaks the gapless sequence "
                    f"(expected {expected + index})"
                )
                self.events.extend(parsed[:index])
                return
        self.events.extend(parsed)
        self.problem = problem

    def _line_count_before(self) -> int:
        return len(self.events)

    def _parse_line_by_line(self, lines: list[bytes], first_line: int) -> tuple[list[E], str | None]:
        """The events before the first line that does not validate, and that line's problem."""
        parsed: list[E] = []
        for index, line in enumerate(lines):
            where = f"{self.path}: line {first_line + index + 1}"
            if not line.strip():
                return parsed, f"{where}: blank line (each line must be one JSON object)"
            try:
                events = self.adapter.validate_json(b"[" + line + b"]")
            except ValidationError as error:
                return parsed, f"{where}: {_event_problem(line, error)}"
            if len(events) != 1:
                return parsed, f"{where}: holds {len(events)} JSON values (each line must be one JSON object)"
            parsed.extend(events)
        return parsed, None


def _event_problem(line: bytes, error: ValidationError) -> str:
    try:
        data = json.loads(line)
    except ValueError:
        return "malformed JSON"
    if not isinstance(data, dict):
        return "not a JSON object"
    if data.get("schema_version") != 1:
        return f"unknown schema version {data.get('schema_version')!r}"
    kinds = {e.get("type") for e in error.errors()}
    if "union_tag_invalid" in kinds or "union_tag_not_found" in kinds:
        return f"unknown event {data.get('event')!r}"
    return describe_validation(error).removeprefix("0.")
