"""textual-serve's server with the token gate in front: `/` and the session websocket need the token, each
session is a `harn tui` process with the page's actor, and every session can be ended from outside.

textual-serve has no hook for checking a request, so this subclass replaces its routes: the page is rendered
from textual-serve's own template, and its websocket URL carries the token and the actor in the path (the
page's script appends `?width=..&height=..` to it, so it cannot carry a query of its own).
"""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp_jinja2
import jinja2
from aiohttp import web
from textual_serve.server import Server, to_int

from harn_tui.core.errors import UsageError
from harn_tui.web.gate import page_actor, token_matches
from harn_tui.web.session import END_GRACE_S, ConsoleSession

log = logging.getLogger("harn_tui.web")
HEARTBEAT_S = 15.0


class ConsoleServer(Server):
    def __init__(
        self,
        root: Path,
        *,
        actor: str,
        token: str,
        host: str,
        port: int,
        public_url: str | None = None,
        shared: bool = False,
    ) -> None:
        super().__init__(
            f"harn --root {root} tui", host=host, port=port, title=f"harn console: {root}", public_url=public_url
        )
        self.root = root
        self.actor = actor
        self.shared = shared
        self.token = token
        self.explicit_public_url = public_url
        self.sessions: set[ConsoleSession] = set()
        self.closing = False

    def console_argv(self, actor: str) -> list[str]:
        """The page's console: this interpreter, so a pipx or venv install runs its own `harn`."""
        return [sys.executable, "-m", "harn_tui", "--root", str(self.root), "--actor", actor, "tui", "--no-supervisor"]

    async def _make_app(self) -> web.Application:
        app = web.Application()
        aiohttp_jinja2.setup(app, loader=jinja2.FileSystemLoader(self.templates_path))
        app.add_routes(
            [
                web.get("/", self.handle_index, name="index"),
                web.get("/ws/{token}/{actor}", self.handle_websocket, name="websocket"),
                web.get("/download/{key}", self.handle_download, name="download"),
                web.static("/static", self.statics_path, name="static"),
            ]
        )
        return app

    def _admit(self, request: web.Request, what: str, given_token: str | None, given_actor: str | None) -> str:
        """The page's actor if the request carries the token; else 403 (no token, a wrong one) and nothing is
        started. A malformed actor is 400, told only to a holder of the token. The token is never logged."""
        if self.closing or not token_matches(given_token, self.token):
            why = "shutting down" if self.closing else ("no token" if given_token is None else "wrong token")
            log.warning("refused %s from %s: %s", what, request.remote, why)
            raise web.HTTPForbidden(text="403: this console needs the token printed by `harn web`\n")
        try:
            return page_actor(given_actor, self.actor, shared=self.shared)
        except UsageError as error:
            raise web.HTTPBadRequest(text=f"400: {error.message}\n") from None

    def _base_url(self, request: web.Request) -> str:
        """`--public-url` when given, else the address the browser used to reach this server."""
        if self.explicit_public_url is not None:
            return self.explicit_public_url.rstrip("/")
        return f"{request.scheme}://{request.host}"

    async def handle_index(self, request: web.Request) -> web.Response:
        actor = self._admit(request, "the page", request.query.get("token"), request.query.get("actor"))
        base = self._base_url(request)
        socket_base = ("wss:" if base.startswith("https:") else "ws:") + base.split(":", 1)[1]
        context: dict[str, Any] = {
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"{socket_base}/ws/{quote(self.token, safe='')}/{quote(actor, safe='')}",
            "config": {"static": {"url": f"{base}/static/"}},
            "application": {"name": f"{self.title} as {actor}"},
        }
        response = aiohttp_jinja2.render_template("app_index.html", request, context)
        response.headers["Cache-Control"] = "no-store"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        actor = self._admit(request, "a session", request.match_info["token"], request.match_info["actor"])
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT_S)
        await websocket.prepare(request)

        async def close() -> None:
            await websocket.close()

        session = ConsoleSession(
            self.console_argv(actor),
            write_bytes=websocket.send_bytes,
            write_str=websocket.send_str,
            close=close,
            download_manager=self.download_manager,
        )
        self.sessions.add(session)
        try:
            await session.start(
                to_int(request.query.get("width", "80"), 80), to_int(request.query.get("height", "24"), 24)
            )
            log.info("page opened for %s from %s: console pid %s", actor, request.remote, session.pid)
            await self._process_messages(websocket, session)
        finally:
            await session.end()
            self.sessions.discard(session)
            log.info("page closed for %s: console pid %s ended", actor, session.pid)
            await websocket.close()
        return websocket

    async def end_sessions(self, grace_s: float = END_GRACE_S) -> None:
        """Refuse new pages, then end every console at once (each killed if still running after `grace_s`)."""
        self.closing = True
        await asyncio.gather(*(session.end(grace_s) for session in list(self.sessions)))
