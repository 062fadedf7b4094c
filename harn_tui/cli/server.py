"""The warm CLI server (`python -m harn_tui.cli.server SOCKET`): it imports `harn`, builds every record model,
then forks a child per short command a caller hands it (`harn_tui.cli.served` says what a caller sends and
why). The child becomes the caller's process (working directory, environment, umask, search path, standard
streams), waits for the caller's go-ahead, runs the command, and ends; the server tells the caller how.

One server per key (the socket's name): a lock file keeps a second one from starting, and a server whose socket
was replaced or removed ends. The lock file holds the server's process id. A server ends after `IDLE_S`
seconds without a request (`HARN_SERVER_IDLE_S` when it started), once its children have ended.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import struct
import sys

from harn_tui.cli.served import ANSWER_S, PROTOCOL, frame, read_frame, server_key

IDLE_S = 900.0
IDLE_ENV = "HARN_SERVER_IDLE_S"
MAX_REQUEST = 1 << 20


class Server:
    """One key's server: accepts a connection, forks a child that runs its command, reports how it ended."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.children: dict[int, socket.socket] = {}
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.wake_reader, self.wake_writer = socket.socketpair()
        self.lock_fd = -1
        self.inode = 0

    def claim(self) -> bool:
        """Take the key's lock; False if another server has it."""
        import fcntl

        self.lock_fd = os.open(self.path + ".lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
        try:
            fcntl.flock(self.lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return False
        os.ftruncate(self.lock_fd, 0)
        os.pwrite(self.lock_fd, f"{os.getpid()}\n".encode(), 0)
        return True

    def warm(self) -> None:
        """Import what the served verbs run and build every record model's validator, so a child starts with
        them; then freeze it all out of the collector's reach (the children share these pages)."""
        import gc

        from pydantic import BaseModel

        import harn_tui.cli.dispatch
        import harn_tui.core.transitions  # noqa: F401
        from harn_tui.cli import build_parser
        from harn_tui.core.records import events

        pending = list(BaseModel.__subclasses__())
        while pending:
            model = pending.pop()
            pending.extend(model.__subclasses__())
            if model.__module__.startswith("harn_tui.") and not model.__pydantic_complete__:
                model.model_rebuild()
        for adapter in (
            events.WORK_EVENT_ADAPTER,
            events.PLAN_EVENT_ADAPTER,
            events.WORK_EVENTS_ADAPTER,
            events.PLAN_EVENTS_ADAPTER,
        ):
            adapter.rebuild()
        build_parser(None)
        gc.collect()
        gc.freeze()

    def listen(self) -> None:
        """Put a fresh socket in place (a stale one of a server that died is replaced)."""
        staging = f"{self.path}.{os.getpid()}"
        with contextlib.suppress(FileNotFoundError):
            os.unlink(staging)
        self.listener.bind(staging)
        self.listener.listen(64)
        os.rename(staging, self.path)
        self.inode = os.stat(self.path).st_ino

    def run(self) -> None:
        import selectors
        import time

        self.wake_reader.setblocking(False)
        self.wake_writer.setblocking(False)
        signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)
        signal.set_wakeup_fd(self.wake_writer.fileno())
        selector = selectors.DefaultSelector()
        selector.register(self.listener, selectors.EVENT_READ)
        selector.register(self.wake_reader, selectors.EVENT_READ)
        try:
            idle = float(os.environ.get(IDLE_ENV, IDLE_S))
        except ValueError:
            idle = IDLE_S
        last = time.monotonic()
        while self._still_ours():  # else replaced by a newer server of the key, or removed
            if not self.children and time.monotonic() - last >= idle:
                break
            for key, _ in selector.select(timeout=min(idle, 60.0)):
                if key.fileobj is self.listener:
                    last = time.monotonic()
                    self._accept()
            self._reap()
        self._leave()

    def _still_ours(self) -> bool:
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def _leave(self) -> None:
        if self._still_ours():
            os.unlink(self.path)

    def _accept(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        try:
            connection.settimeout(ANSWER_S)
            request = self._receive(connection)
        except (OSError, ValueError, EOFError, TypeError):
            connection.close()
            return
        pid = os.fork()
        if pid == 0:
            try:
                self._child(connection, request)
            except BaseException:
                import traceback

                traceback.print_exc()
            os._exit(70)
        self.children[pid] = connection

    def _receive(self, connection: socket.socket) -> dict[str, object]:
        uid = struct.unpack("3i", connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))[1]
        if uid != os.getuid():
            raise ValueError("another user's connection")
        request = read_frame(connection, MAX_REQUEST)
        if request.get("protocol") != PROTOCOL:
            raise ValueError("not a request of this protocol")
        return request

    def _reap(self) -> None:
        with contextlib.suppress(OSError):
            self.wake_reader.recv(4096)
        while self.children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            connection = self.children.pop(pid, None)
            if connection is not None:
                with contextlib.suppress(OSError):
                    connection.sendall(frame({"status": status}))
                connection.close()

    def _child(self, connection: socket.socket, request: dict[str, object]) -> None:
        """In the forked child: become the caller's process, say so, take its standard streams with its
        go-ahead (the caller hands them over only to a server that answered), run the command."""
        signal.set_wakeup_fd(-1)
        for handler_signal in (signal.SIGCHLD, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT):
            signal.signal(handler_signal, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for sock in (self.listener, self.wake_reader, self.wake_writer, *self.children.values()):
            sock.close()
        os.close(self.lock_fd)
        become(request)
        connection.sendall(frame({"pid": os.getpid()}))
        go, fds, _flags, _address = socket.recv_fds(connection, 1, 3)
        if go != b"g" or len(fds) != 3:
            os._exit(0)  # the caller gave up waiting and runs the command itself
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        take_streams(request)
        connection.settimeout(None)
        watch_caller(connection)
        os._exit(run_command([str(word) for word in request["argv"]]))  # type: ignore[attr-defined]


def become(request: dict[str, object]) -> None:
    """Take the caller's working directory, environment, umask, search path and argv."""
    import time

    os.chdir(str(request["cwd"]))
    env = request["env"]
    assert isinstance(env, dict)
    os.environ.clear()
    os.environ.update({str(k): str(v) for k, v in env.items()})
    time.tzset()
    os.umask(int(str(request["umask"])))
    sys.path[:] = [str(entry) for entry in request["path"]]  # type: ignore[attr-defined]
    sys.argv = [str(request["argv0"]), *(str(word) for word in request["argv"])]  # type: ignore[attr-defined]


def take_streams(request: dict[str, object]) -> None:
    """Standard streams on the caller's descriptors (now 0, 1, 2), set up as the caller's interpreter set up
    its own (`served._stream_setup`); a stream it did not have gets the interpreter's defaults."""
    import io

    streams = request["streams"]
    assert isinstance(streams, list)
    for fd, setup, name in zip((0, 1, 2), streams, ("stdin", "stdout", "stderr"), strict=True):
        raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
        if isinstance(setup, list) and len(setup) == 5:
            encoding, errors, line_buffering, write_through, unbuffered = setup
        else:
            encoding, errors, write_through, unbuffered = "utf-8", "strict", False, False
            line_buffering = fd == 2 or (fd == 1 and raw.isatty())
        buffered: io.RawIOBase | io.BufferedIOBase = raw
        if fd == 0:
            buffered = io.BufferedReader(raw)
        elif not unbuffered:
            buffered = io.BufferedWriter(raw)
        stream = io.TextIOWrapper(  # type: ignore[type-var]  # a raw FileIO too, as an unbuffered stream has
            buffered,
            encoding=str(encoding),
            errors=str(errors),
            line_buffering=bool(line_buffering),
            write_through=bool(write_through),
        )
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


def watch_caller(connection: socket.socket) -> None:
    """A thread that delivers the signals the caller passes on, and kills this process if the caller dies."""
    import threading

    def watch() -> None:
        while True:
            try:
                data = connection.recv(2)
            except OSError:
                data = b""
            if not data:
                os.kill(os.getpid(), signal.SIGKILL)
                return
            if data[:1] == b"s":
                rest = data[1:] or connection.recv(1)
                if rest:
                    os.kill(os.getpid(), rest[0])

    threading.Thread(target=watch, name="harn-served-caller", daemon=True).start()


def run_command(raw: list[str]) -> int:
    """`harn`'s own main, ended as the interpreter would end it (status, traceback, or death by SIGINT)."""
    import traceback

    from harn_tui.cli import main

    try:
        code: object = main(raw)
    except SystemExit as done:
        code = done.code
    except KeyboardInterrupt:
        _flush()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 130
    except BaseException:
        traceback.print_exc()
        code = 1
    if code is None:
        code = 0
    elif not isinstance(code, int):
        print(code, file=sys.stderr)
        code = 1
    if not _flush():
        code = code or 120  # as the interpreter does when it cannot flush stdout at exit
    return code


def _flush() -> bool:
    ok = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            ok = stream is not sys.stdout and ok
    return ok


def main(argv: list[str]) -> int:
    """`python -m harn_tui.cli.server SOCKET`: serve the key in SOCKET's name, if it is this process's own."""
    path = argv[0]
    if os.path.basename(path) != f"cli-{server_key()}.sock":
        return 0  # started by a caller whose install or interpreter this one does not share
    server = Server(path)
    if not server.claim():
        return 0
    server.warm()
    server.listen()
    server.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
