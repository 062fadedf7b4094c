"""`harn web` from start to exit: check, listen, print the URL, run the embedded supervisor, end every page.

Order matters to a caller: the tree and the arguments are checked before anything listens (4 and 2), the
first line on stdout is written only once the port is bound, and SIGINT/SIGTERM end every page's console
(killed after the grace period) before the server closes and the process exits 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import json
import logging
import signal
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from aiohttp import web

from harn_tui.core.errors import UsageError
from harn_tui.core.executors import LOCAL, Executor
from harn_tui.core.layout import Layout
from harn_tui.core.sharing import base_group
from harn_tui.web.gate import new_token, redacted
from harn_tui.web.server import ConsoleServer

log = logging.getLogger("harn_tui.web")
SUPERVISOR_WAKE_S = 5.0
SUPERVISOR_STOP_WAIT_S = 3.0
SITE_SHUTDOWN_S = 2.0


@dataclass(frozen=True)
class WebOptions:
    host: str = "127.0.0.1"
    port: int = 8421
    public_url: str | None = None  # checked by check_public_url
    supervisor: bool = True
    as_json: bool = False
    executor: Executor = LOCAL  # where the embedded supervisor's attempts run


def check_public_url(url: str | None) -> str | None:
    """An http(s) URL with a host: the printed link and the page's websocket are built on it."""
    if url is None:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise UsageError(f"--public-url {url!r} must be an http:// or https:// URL with a host and no query")
    return url.rstrip("/")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def serve_web(layout: Layout, actor: str, options: WebOptions) -> int:
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="harn web: %(message)s")
    return asyncio.run(_serve(layout, actor, options))


async def _serve(layout: Layout, actor: str, options: WebOptions) -> int:
    public_url = options.public_url
    token = new_token()
    server = ConsoleServer(
        layout.root,
        actor=actor,
        token=token,
        host=options.host,
        port=options.port,
        public_url=public_url,
        shared=base_group(layout.base) is not None,
    )
    runner = web.AppRunner(
        await server._make_app(), access_log=None, handle_signals=False, shutdown_timeout=SITE_SHUTDOWN_S
    )
    await runner.setup()
    with _signals() as stopped:  # caught before the URL is printed: a caller may signal as soon as it reads it
        try:
            port = await _listen(runner, options.host, options.port)
            base = public_url or f"http://{url_host(options.host)}:{port}"
            url = f"{base}/?token={token}"
            if options.as_json:
                print(json.dumps({"url": url, "host": options.host, "port": port, "token": token}), flush=True)
            else:
                print(url, flush=True)
            if not is_loopback(options.host):
                log.warning(
                    "listening on %s, beyond loopback: the token is the only protection; for anything "
                    "but a trusted network put it behind TLS and an authenticating proxy",
                    options.host,
                )
            log.info(
                "serving the console of %s on port %d (token %s); ctrl+c ends every page",
                layout.root,
                port,
                redacted(token),
            )
            supervisor = EmbeddedSupervisor(layout, options.executor) if options.supervisor else None
            await stopped.wait()
            log.info("ending %d page(s)", len(server.sessions))
            await asyncio.gather(server.end_sessions(), supervisor.stop() if supervisor else asyncio.sleep(0))
        finally:
            await runner.cleanup()
    return 0


async def _listen(runner: web.AppRunner, host: str, port: int) -> int:
    site = web.TCPSite(runner, host, port)
    try:
        await site.start()
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} on {host} is in use (pick another with --port, or 0 for any)") from None
        raise UsageError(f"cannot listen on {host} port {port}: {error.strerror or error}") from None
    return int(runner.addresses[0][1])


@contextlib.contextmanager
def _signals() -> Iterator[asyncio.Event]:
    """An event set by SIGINT or SIGTERM while the block runs."""
    loop = asyncio.get_running_loop()
    stopped = asyncio.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stopped.set)
    try:
        yield stopped
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)


class EmbeddedSupervisor:
    """The tree's one supervisor loop (`supervisor serve` for every enrolled goal) in a daemon thread, as
    `harn tui` runs it; the page consoles run without one."""

    def __init__(self, layout: Layout, executor: Executor = LOCAL) -> None:
        self.layout, self.executor = layout, executor
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._serve, name="harn-web-supervisor", daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        from harn_tui.core.errors import HarnError
        from harn_tui.core.supervisor import serve

        try:
            serve(self.layout, [], SUPERVISOR_WAKE_S, self.stop_event, executor=self.executor)
        except HarnError as error:
            log.error("embedded supervisor stopped: %s", error.message)

    async def stop(self) -> None:
        """Ask the loop to stop and give a tick in progress a moment; the thread dies with the process."""
        self.stop_event.set()
        await asyncio.to_thread(self.thread.join, SUPERVISOR_STOP_WAIT_S)
