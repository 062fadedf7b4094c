"""Debian's Chromium driven by Playwright: a page of `harn web`, its console read from the browser's terminal.

The page draws the terminal on a canvas, so the text a person sees is read from the page's own xterm.js
buffer: an init script keeps a reference to the terminal the page's script creates (the page does not expose
it). Chromium runs with a fresh profile and every background connection off: this network is closed, and a
default profile's connections would be refused.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
if TYPE_CHECKING:  # playwright is needed only by the browser tests
    from playwright.sync_api import ViewportSize

VIEWPORT: ViewportSize = {"width": 1280, "height": 760}
KEEP_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  get() { return undefined; },
  set(value) {
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
    if (value && value.buffer && value.buffer.active) { window.__harnTerminal = value; }
  },
});
"""
SCREEN_TEXT = """() => {
  const terminal = window.__harnTerminal;
  if (!terminal) { return ""; }
  const buffer = terminal.buffer.active, lines = [];
  for (let row = 0; row < terminal.rows; row++) {
    const line = buffer.getLine(buffer.viewportY + row);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
}"""


def require_browser() -> None:
    """Skip where Chromium or Playwright is missing, except in CI, whose `.ci/run` installs both."""
    missing = [
        what for what, present in (("chromium", CHROMIUM.exists()), ("playwright", _has_playwright())) if not present
    ]
    if missing and not os.environ.get("CI"):
        pytest.skip(f"not installed: {', '.join(missing)} (apt-get install chromium; pip install -e '.[dev]')")
    assert not missing, f"CI must install {missing}"


def _has_playwright() -> bool:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False
    return True


class ConsolePage:
    def __init__(self, page: object) -> None:
        from playwright.sync_api import Page

        assert isinstance(page, Page)
        self.page = page

    def screen(self) -> str:
        text: str = self.page.evaluate(SCREEN_TEXT)
        return text

    def wait_for(self, condition: Callable[[str], bool] | str, timeout: float = 45.0) -> str:
        check = (lambda screen: condition in screen) if isinstance(condition, str) else condition
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if check(screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {condition!r}; the page showed:\n{screen}")
            time.sleep(0.1)

    def keys(self, *keys: str) -> None:
        self.page.focus(".xterm-helper-textarea")
        for key in keys:
            self.page.keyboard.press(key)

    def type(self, text: str) -> None:
        self.page.focus(".xterm-helper-textarea")
        self.page.keyboard.type(text)

    def ended(self) -> bool:
        """textual-serve's page shows "Session ended." once its socket closes."""
        return bool(self.page.evaluate("document.body.classList.contains('-closed')"))


@contextmanager
def chromium(profile: Path) -> Iterator[object]:
    """A browser context on a fresh profile directory; yields Playwright's BrowserContext."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(profile), executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS, viewport=VIEWPORT
        )
        context.add_init_script(KEEP_TERMINAL)
        try:
            yield context
        finally:
            context.close()


# ----- the screenshot in the guide, rewritten only when what it shows changes

SCREEN_KEY = b"harn-screen"
_VARYING = (re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+Z"), re.compile(r"@[\w.-]+ on "))


def normalized(screen: str, root: Path) -> str:
    text = screen.replace(str(root), "<root>")
    for pattern in _VARYING:
        text = pattern.sub("<varies>", text)
    return "\n".join(line.rstrip() for line in text.splitlines()).strip() + "\n"


def keep_screenshot(target: Path, png: bytes, screen: str) -> bool:
    """Write `png` to `target`, unless the file there already shows the same screen text (its digest sits in a
    tEXt chunk): the pixels differ run to run in ways no reader notices. Returns whether it wrote."""
    digest = hashlib.sha256(screen.encode()).hexdigest().encode()
    if target.exists() and png_text(target.read_bytes()).get(SCREEN_KEY) == digest:
        return False
    target.write_bytes(with_png_text(png, SCREEN_KEY, digest))
    return True


def _chunks(png: bytes) -> Iterator[tuple[bytes, bytes]]:
    position = 8
    while position < len(png):
        (length,) = struct.unpack(">I", png[position : position + 4])
        kind = png[position + 4 : position + 8]
        yield kind, png[position + 8 : position + 8 + length]
        position += 12 + length


def png_text(png: bytes) -> dict[bytes, bytes]:
    return dict(data.split(b"\0", 1) for kind, data in _chunks(png) if kind == b"tEXt")


def with_png_text(png: bytes, key: bytes, value: bytes) -> bytes:
    data = key + b"\0" + value
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data + struct.pack(">I", zlib.crc32(b"tEXt" + data))
    end = png.rindex(b"IEND") - 4
    return png[:end] + chunk + png[end:]
