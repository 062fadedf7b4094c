"""`harn web` without a browser: what it prints, the exit codes of bad input (checked before anything
listens), loopback and the warning beyond it, the embedded supervisor, and every page's console ended on a
signal, killed if it will not go."""

from __future__ import annotations

import asyncio
import grp
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import aiohttp
import pytest

from harn_tui.core.creation import create_work
from harn_tui.core.layout import Layout
from harn_tui.web.session import ConsoleSession
from tests.conftest import harn_env
from tests.tui import builders as b
from tests.web.server_kit import WebServer, console_pids, wait_until


def harn_web(*args: str, root: Path | str | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """A `harn web` expected to exit on its own (bad input)."""
    prefix = ["--root", str(root)] if root is not None else []
    return subprocess.run(
        [sys.executable, "-m", "harn_tui", *prefix, "web", *args],
        capture_output=True,
        text=True,
        env=harn_env(),
        timeout=timeout,
    )


def test_it_prints_the_url_with_a_fresh_token_and_listens_on_loopback_only(root: Path, tmp_path: Path) -> None:
    first = WebServer(root, "--no-supervisor", log=tmp_path / "first.log")
    second = WebServer(root, "--no-supervisor", log=tmp_path / "second.log")
    try:
        document = first.document
        assert set(document) == {"url", "host", "port", "token"} and document["host"] == "127.0.0.1"
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", document["token"]), "32 random bytes, URL-safe"
        assert document["url"] == f"http://127.0.0.1:{document['port']}/?token={document['token']}"
        assert document["port"] not in (0, second.document["port"]) and document["token"] != second.token
        with socket.create_connection(("127.0.0.1", document["port"]), timeout=5):
            pass
        assert "beyond loopback" not in first.log.read_text()
    finally:
        for server in (first, second):
            assert server.stop(signal.SIGINT) == 0
    plain = subprocess.Popen(
        [sys.executable, "-m", "harn_tui", "--root", str(root), "web", "--port", "0", "--no-supervisor"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=harn_env(),
    )
    try:
        assert plain.stdout is not None
        line = plain.stdout.readline()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]{43}\n", line), line
    finally:
        plain.send_signal(signal.SIGTERM)
        assert plain.wait(30) == 0


def test_beyond_loopback_it_warns_that_the_token_is_the_only_protection(root: Path, tmp_path: Path) -> None:
    server = WebServer(root, "--no-supervisor", "--host", "0.0.0.0", log=tmp_path / "web.log")
    try:
        assert server.document["host"] == "0.0.0.0"
        wait_until(lambda: "beyond loopback" in server.log.read_text(), 10, "the warning")
        assert "the token is the only protection" in server.log.read_text()
    finally:
        assert server.stop() == 0


def test_public_url_sets_the_printed_link_and_the_page_websocket(root: Path, tmp_path: Path) -> None:
    server = WebServer(
        root, "--no-supervisor", "--public-url", "https://ops.example.org/harn/", log=tmp_path / "web.log"
    )
    try:
        assert server.url == f"https://ops.example.org/harn/?token={server.token}"
        page = asyncio.run(fetch(f"http://127.0.0.1:{server.document['port']}/?token={server.token}&actor=alice"))
        assert f'data-session-websocket-url="wss://ops.example.org/harn/ws/{server.token}/alice"' in page
        assert 'href="https://ops.example.org/harn/static/css/xterm.css"' in page
    finally:
        assert server.stop() == 0


async def fetch(url: str) -> str:
    status, text = await fetch_status(url)
    assert status == 200, text
    return text


@pytest.mark.parametrize(
    ("args", "rule"),
    [
        (("--port", "70000"), "is not a port"),
        (("--port", "http"), "is not a whole number"),
        (("--public-url", "ftp://example.org"), "must be an http:// or https:// URL"),
        (("--actor", "no spaces"), "is not a valid ID"),
    ],
)
def test_bad_arguments_are_exit_2_before_the_tree_is_looked_up(
    args: tuple[str, ...], rule: str, tmp_path: Path
) -> None:
    result = harn_web(*args, root=tmp_path / "nowhere")
    assert result.returncode == 2, result.stderr
    assert rule in result.stderr and result.stdout == ""


def test_a_missing_tree_is_exit_4_and_nothing_listens(tmp_path: Path) -> None:
    port = free_port()
    result = harn_web("--port", str(port), "--json", root=tmp_path / "nowhere")
    assert result.returncode == 4
    assert json.loads(result.stdout) == {
        "error": {"code": "not_found", "message": json.loads(result.stdout)["error"]["message"]}
    }
    assert "no .harnery/ under" in result.stdout and "token" not in result.stdout


def test_a_port_in_use_is_exit_2_naming_it(root: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = harn_web("--port", str(port), "--no-supervisor", root=root)
    assert result.returncode == 2
    assert f"port {port} on 127.0.0.1 is in use" in result.stderr and result.stdout == ""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_it_runs_the_embedded_supervisor_unless_told_not_to(layout: Layout, examples: Path, tmp_path: Path) -> None:
    create_work(
        layout,
        title="Build it",
        template=examples / "templates" / "implement.py",
        objective="Build",
        acceptance=["it builds"],
        work_id="build",
        actor="alice",
    )
    b.goal(layout, "goal-web", root="build")
    events = layout.work("build") / "events.jsonl"
    quiet = WebServer(layout.root, "--no-supervisor", log=tmp_path / "quiet.log")
    time.sleep(1.5)
    assert quiet.stop() == 0
    assert '"attempt.started"' not in events.read_text()
    server = WebServer(layout.root, log=tmp_path / "web.log")
    try:
        wait_until(lambda: '"attempt.finished"' in events.read_text(), 30, "the embedded supervisor's attempt")
        started = [json.loads(line) for line in events.read_text().splitlines() if '"attempt.started"' in line]
        assert started and started[0]["actor"] == "supervisor"
    finally:
        assert server.stop(signal.SIGINT) == 0


def test_a_signal_ends_every_page_console_and_the_server_exits_0(root: Path, tmp_path: Path) -> None:
    """Two sessions opened by a websocket client (no browser): SIGINT ends both consoles, then the server."""
    server = WebServer(root, "--no-supervisor", log=tmp_path / "web.log")
    try:
        asyncio.run(two_sessions_then_interrupt(server))
        assert server.process.wait(30) == 0
        assert console_pids(root) == []
        log = server.log.read_text()
        assert "ending 2 page(s)" in log and server.token not in log
    finally:
        server.close()


async def two_sessions_then_interrupt(server: WebServer) -> None:
    base = f"ws://127.0.0.1:{server.document['port']}/ws/{server.token}"
    async with aiohttp.ClientSession() as client:
        sockets = [await client.ws_connect(f"{base}/{actor}?width=100&height=30") for actor in ("ann", "ben")]
        for websocket in sockets:
            first = await asyncio.wait_for(websocket.receive(), 60)
            assert first.type == aiohttp.WSMsgType.BINARY, first
        assert len(server.consoles()) == 2
        server.process.send_signal(signal.SIGINT)
        for websocket in sockets:
            while (await asyncio.wait_for(websocket.receive(), 30)).type not in (
                aiohttp.WSMsgType.CLOSE,
                aiohttp.WSMsgType.CLOSED,
                aiohttp.WSMsgType.CLOSING,
            ):
                pass


def test_a_console_that_will_not_quit_is_killed_after_the_grace_period(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """The session asks its process to quit; one that ignores it is killed with its process group. What the
    console writes on stderr reaches the server's stderr, never its stdout (which carries the URL)."""
    helper_pid = tmp_path / "helper.pid"
    hanging = (
        "import pathlib, signal, subprocess, sys, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
        f"pathlib.Path({str(helper_pid)!r}).write_text(str(child.pid)); "
        "print('a console complaint', file=sys.stderr, flush=True); "
        "print('__GANGLION__', flush=True); time.sleep(120)"
    )
    closed: list[bool] = []

    async def story() -> tuple[float, int]:
        async def ignore(_data: object) -> None:
            return None

        async def close() -> None:
            closed.append(True)

        from textual_serve.download_manager import DownloadManager

        session = ConsoleSession(
            [sys.executable, "-c", hanging],
            write_bytes=ignore,
            write_str=ignore,
            close=close,
            download_manager=DownloadManager(),
        )
        await session.start(80, 24)
        while not helper_pid.exists() or not helper_pid.read_text():
            await asyncio.sleep(0.05)
        helper = int(helper_pid.read_text())
        began = time.monotonic()
        await session.end(grace_s=1.0)
        return time.monotonic() - began, helper

    took, helper = asyncio.run(story())
    out, err = capfd.readouterr()
    assert "a console complaint" in err and "a console complaint" not in out
    assert 1.0 <= took < 10, took
    assert closed == [True], "the page's socket is closed when its console ends"
    wait_until(
        lambda: not Path(f"/proc/{helper}").exists() or "Z" in zombie_state(helper),
        5,
        "the console's helper process to be killed with its group",
    )


def zombie_state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2]
    except OSError:
        return "Z"


def test_in_a_shared_tree_a_page_acts_only_as_the_login_name(root: Path, tmp_path: Path) -> None:
    """Everyone acts as their login name in a shared tree; a page naming anyone else is 400, saying so."""
    from harn_tui.core.creation import init_shared_tree
    from harn_tui.core.sharing import login_name

    login = login_name()
    init_shared_tree(root, grp.getgrgid(os.getgid()).gr_name)
    server = WebServer(root, "--no-supervisor", log=tmp_path / "web.log", env={"HARN_ACTOR": login})
    try:
        status, text = asyncio.run(fetch_status(f"{server.url}&actor=someone-else"))
        assert status == 400 and f"in a shared tree you act as {login}" in text
        status, text = asyncio.run(fetch_status(server.url))
        assert status == 200 and f"as {login}" in text
    finally:
        assert server.stop() == 0


async def fetch_status(url: str) -> tuple[int, str]:
    async with aiohttp.ClientSession() as client, client.get(url) as response:
        return response.status, await response.text()
