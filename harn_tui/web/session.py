"""One browser page's console: a `harn tui` process driven over textual-serve's packet protocol.

textual-serve's `AppService` starts its command through a shell and, when asked to stop, waits for the app
forever; a console page needs an argument vector (the actor comes from the page) and an end that always
comes: the app is asked to quit, and its process group is killed if it has not gone after the grace period.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from asyncio.subprocess import Process
from collections.abc import Awaitable, Callable, Sequence

from textual_serve.app_service import AppService
from textual_serve.download_manager import DownloadManager

END_GRACE_S = 10.0


class ConsoleSession(AppService):
    """The process of one page. Its own session (process group), so a ctrl+c meant for `harn web` reaches the
    server, which then ends every page in order, and a kill takes the console's helpers with it."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        write_bytes: Callable[[bytes], Awaitable[None]],
        write_str: Callable[[str], Awaitable[None]],
        close: Callable[[], Awaitable[None]],
        download_manager: DownloadManager,
    ) -> None:
        super().__init__(
            " ".join(argv), write_bytes=write_bytes, write_str=write_str, close=close, download_manager=download_manager
        )
        self.argv = tuple(argv)

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    async def _open_app_process(self, width: int = 80, height: int = 24) -> Process:
        self._process = process = await asyncio.create_subprocess_exec(
            *self.argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=None,
            env=self._build_environment(width=width, height=height),
            start_new_session=True,
        )
        # The console's stderr is `harn web`'s own, as it happens; textual-serve would collect it and copy it to
        # stdout at the end, where a caller reading the URL line does not expect it. It reads an empty stream.
        process.stderr = _empty_stream()
        assert process.stdin is not None
        self._stdin = process.stdin
        return process

    async def run(self) -> None:
        """Relay the app's output until its process ends, however it ends; then close the page's socket (the
        page shows "Session ended" instead of a frozen console)."""
        await super().run()
        await self.remote_close()

    async def stop(self) -> None:
        await self.end()

    async def end(self, grace_s: float = END_GRACE_S) -> None:
        """Ask the console to quit (it removes its presence), kill its process group after `grace_s`."""
        process = self._process
        if process is not None and process.returncode is None:
            await self.send_meta({"type": "quit"})
            try:
                await asyncio.wait_for(process.wait(), grace_s)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                await process.wait()
        if self._task is not None:
            await self._download_manager.cancel_app_downloads(app_service_id=self.app_service_id)
            await self._task
            self._task = None


def _empty_stream() -> asyncio.StreamReader:
    stream = asyncio.StreamReader()
    stream.feed_eof()
    return stream
