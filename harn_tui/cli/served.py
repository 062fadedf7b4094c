"""The warm CLI server's caller side: a short `harn` command handed to a process forked from a warm one.

A short verb spends most of its time importing pydantic and building the record models, not doing its work
(docs/design/cli-server.md). So the first short command starts a server in the background
(`harn_tui.cli.server`), and runs itself as always. Later ones hand the server their command line, working
directory, environment, umask, search path and standard streams (the descriptors themselves, over a Unix
socket). The server forks a child that runs the command with all of them, as the `harn` process would have.
Its output goes to the caller's own descriptors. Signals the caller gets are passed on to it. The caller
exits as the child did, with its status or by its signal. If the caller dies, the child is killed.

- Only short verbs go to the server: the reads and the one-shot decisions (`SERVED`). Never `tui`, `demo`,
  `web`, `serve`, `tick` or anything that runs attempts.
- A server answers only its own user: its socket is in a 0700 directory that user owns, and the peer's uid is
  checked. It answers only callers it would run the same way. The socket's name holds a key that hashes the
  interpreter, its version, flags and search path, the installed code (each module file's size and mtime,
  each search path entry's mtime), the locale's variables, and the caller's user and groups. So a changed
  install gets a new server, and the old one exits when idle.
- `HARN_SERVER=0` turns it off; `HARN_SERVER_TRACE=1` says on stderr which process served a command.
- If anything goes wrong on the way, the command runs in the caller's own process, exactly once: no socket,
  a refused connection, or a server that does not answer within `ANSWER_S`. A child runs only after the
  caller has said it still waits.

This side runs before anything else in every short command, so it imports only what the interpreter has
loaded already or builds in: `_socket` and `_signal` rather than `socket` and `signal` (which import `enum`
and `selectors`), `marshal` rather than `json` (which imports `re`), `zlib` rather than `hashlib`, and the
descriptors' bytes by hand rather than `array`. Both ends are the same user's own processes (the server
checks), so what they exchange is trusted as much as the caller's own memory.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # typeshed has `signal` only
import _socket
import marshal
import os
import sys
import zlib

TYPE_CHECKING = False  # not `typing`'s: importing it costs more than this module
if TYPE_CHECKING:
    from typing import Protocol

    class Receiver(Protocol):
        def recv(self, size: int, /) -> bytes: ...


PROTOCOL = 1
ANSWER_S = 3.0
DISABLE_ENV = "HARN_SERVER"
TRACE_ENV = "HARN_SERVER_TRACE"
LOCALE_ENV = ("LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONHASHSEED")
# what a server is started with: its imports read no other variable, and each command gets the caller's
SERVER_ENV = ("PATH", "HOME", "TMPDIR", "XDG_RUNTIME_DIR", "VIRTUAL_ENV", "HARN_SERVER_IDLE_S", *LOCALE_ENV)
GROUPS = ("supervisor", "work", "approval", "template")  # the groups whose verbs are a second word
VALUE_OPTIONS = ("--root", "--actor")  # the global options that take a value (they come before the verb)
FORWARDED = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT)
SERVED = frozenset(
    {
        ("pending",),
        ("supervisor", "show"),
        ("supervisor", "list"),
        ("supervisor", "history"),
        ("supervisor", "status"),
        ("supervisor", "plan", "list"),
        ("supervisor", "plan", "show"),
        ("supervisor", "plan", "diff"),
        ("supervisor", "plan", "approve"),
        ("supervisor", "plan", "reject"),
        ("supervisor", "plan", "retry"),
        ("supervisor", "plan", "reopen"),
        ("work", "list"),
        ("work", "show"),
        ("work", "diff"),
        ("work", "accept"),
        ("work", "reopen"),
        ("work", "cancel"),
        ("approval", "list"),
        ("approval", "show"),
        ("approval", "approve"),
        ("approval", "deny"),
    }
)


def route_words(raw: list[str]) -> tuple[str, ...]:
    """The verb a command line names (its first words past the global options), as `dispatch.route_of` has it."""
    words: list[str] = []
    skip = False
    for token in raw:
        if skip:
            skip = False
        elif token in VALUE_OPTIONS:
            skip = True
        elif not token.startswith("-"):
            words.append(token)
            if len(words) == (3 if words[:2] == ["supervisor", "plan"] else 2 if words[0] in GROUPS else 1):
                break
    return tuple(words)


def served(raw: list[str]) -> int | None:
    """Run the command line in a warm server's child and return its exit status (or die by its signal); None
    when it is to run here: not a short verb, the server off, or none there (then one is started for next
    time)."""
    if os.environ.get(DISABLE_ENV, "1") == "0" or route_words(raw) not in SERVED:
        return None
    path = socket_path(server_key())
    if path is None:
        return None
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        connection.settimeout(ANSWER_S)
        try:
            connection.connect(path)
        except OSError:
            start_server(path)
            return None
        try:
            child = _hand_over(connection, raw)
        except (OSError, ValueError, EOFError, TypeError, KeyError):
            return None  # a child forked for it reads no go-ahead and ends without running
        return _wait_for(connection, child)
    finally:
        connection.close()


def _hand_over(connection: _socket.socket, raw: list[str]) -> int:
    request = {
        "protocol": PROTOCOL,
        "argv": raw,
        "argv0": sys.argv[0] if sys.argv else "harn",
        "cwd": os.getcwd(),
        "env": dict(os.environ),
        "umask": _umask(),
        "path": list(sys.path),
        "streams": [_stream_setup(stream) for stream in (sys.stdin, sys.stdout, sys.stderr)],
    }
    connection.sendall(frame(request))
    child = read_frame(connection)["pid"]
    if not isinstance(child, int):
        raise ValueError("not a process id")
    # the descriptors go only to a child that answered: a server that hangs never holds the caller's pipes
    descriptors = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # C ints, as `array("i")` has them
    connection.sendmsg([b"g"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, descriptors)])
    if os.environ.get(TRACE_ENV):
        print(f"harn: served by process {child}", file=sys.stderr)
    return child


def _wait_for(connection: _socket.socket, child: int) -> int:
    """Pass signals on until the server says how the child ended; then end the same way."""
    connection.settimeout(None)

    def forward(signum: int, _frame: object) -> None:
        try:  # noqa: SIM105  (contextlib is not imported on this path)
            connection.sendall(b"s" + bytes([signum]))
        except OSError:
            pass

    previous = {signum: _signal.signal(signum, forward) for signum in FORWARDED}
    try:
        status = read_frame(connection)["status"]
    except (OSError, ValueError, EOFError, TypeError, KeyError):
        status = None
    finally:
        for signum, handler in previous.items():
            _signal.signal(signum, handler)
    if not isinstance(status, int):
        print(f"harn: the warm server ended before saying how its process {child} ended", file=sys.stderr)
        return 1
    if os.WIFSIGNALED(status):
        ended_by = os.WTERMSIG(status)
        _signal.signal(ended_by, _signal.SIG_DFL)
        os.kill(os.getpid(), ended_by)
        return 128 + ended_by  # not reached: the signal ends this process as it ended the child
    return os.waitstatus_to_exitcode(status)


def frame(document: dict[str, object]) -> bytes:
    payload = marshal.dumps(document)
    return len(payload).to_bytes(4, "big") + payload


def read_frame(connection: Receiver, limit: int = 1 << 20) -> dict[str, object]:
    """One length-prefixed marshal document (a dict), read whole."""
    header = read_exactly(connection, 4)
    size = int.from_bytes(header, "big")
    if size > limit:
        raise ValueError("a message over the limit")
    document = marshal.loads(read_exactly(connection, size))
    if not isinstance(document, dict):
        raise ValueError("not a message")
    return document


def read_exactly(connection: Receiver, size: int, data: bytes = b"") -> bytes:
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise EOFError("the connection closed")
        data += chunk
    return data


def _umask() -> int:
    mask = os.umask(0o077)
    os.umask(mask)
    return mask


def _stream_setup(stream: object) -> list[object] | None:
    """How the interpreter set the stream up: encoding, errors, line buffering, write-through, and whether its
    binary layer is unbuffered (`-u`, `PYTHONUNBUFFERED`)."""
    encoding, errors = getattr(stream, "encoding", None), getattr(stream, "errors", None)
    if not isinstance(encoding, str) or not isinstance(errors, str):
        return None
    unbuffered = type(getattr(stream, "buffer", None)).__name__ == "FileIO"
    line_buffering, write_through = getattr(stream, "line_buffering", False), getattr(stream, "write_through", False)
    return [encoding, errors, bool(line_buffering), bool(write_through), unbuffered]


# ----- the key and the socket


def server_key() -> str:
    """A hash of everything a server's imports depend on, and of the caller's user and groups."""
    parts: list[object] = [
        PROTOCOL,
        sys.executable,
        sys.version,
        repr(sys.flags),
        sys.path[1:],  # the first entry is the caller's script or working directory: the child gets its own
        os.getuid(),
        os.getgid(),
        sorted(os.getgroups()),
        [os.environ.get(name) for name in LOCALE_ENV],
        _code_identity(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
    ]
    for entry in sys.path[1:]:
        try:
            parts.append(os.stat(entry).st_mtime_ns)
        except OSError:
            parts.append(None)
    text = repr(parts).encode()
    return f"{zlib.crc32(text):08x}{zlib.adler32(text):08x}"


def _code_identity(package: str) -> list[tuple[str, int, int]]:
    """Every module file of the package, with its size and mtime."""
    found: list[tuple[str, int, int]] = []
    pending = [package]
    while pending:
        directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                if entry.name != "__pycache__":
                    pending.append(entry.path)
            elif entry.name.endswith(".py"):
                status = entry.stat(follow_symlinks=False)
                found.append((entry.path, status.st_size, status.st_mtime_ns))
    return sorted(found)


def socket_path(key: str) -> str | None:
    """`harn-UID/cli-KEY.sock` in the user's runtime directory (else the temporary one), or None when that
    directory is not one only this user can enter."""
    base = os.environ.get("XDG_RUNTIME_DIR") or os.environ.get("TMPDIR") or "/tmp"
    directory = os.path.join(base, f"harn-{os.getuid()}")
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        status = os.lstat(directory)
    except OSError:
        return None
    private = (status.st_mode & 0o170777) == 0o040700  # a directory (not a link) only its owner can enter
    if not private or status.st_uid != os.getuid():
        return None
    path = os.path.join(directory, f"cli-{key}.sock")
    return path if len(path.encode()) < 100 else None


def start_server(path: str) -> None:
    """Start a server for `path` in the background, detached (a second one started meanwhile exits at once)."""
    import subprocess

    env = {name: os.environ[name] for name in SERVER_ENV if name in os.environ}
    env.update({name: value for name, value in os.environ.items() if name.startswith("PYTHON")})
    flags = subprocess._args_from_interpreter_flags()  # type: ignore[attr-defined]  # as multiprocessing starts its own
    try:  # noqa: SIM105
        subprocess.Popen(
            [sys.executable, *flags, "-m", "harn_tui.cli.server", path],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
            env=env,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        pass
