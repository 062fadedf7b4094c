"""The literal-rendering module: markup never parsed, every control character made visible."""

from __future__ import annotations

import pytest
from rich.console import Console
from textual.app import App, ComposeResult
from textual.fuzzy import Matcher
from textual.widgets import Static

from harn_tui.tui.text import clip, literal, literal_text, safe_highlight, visible

HOSTILE = "[bold]x[/bold] [link=http://e]y[/link] [ABC] [$v] [/oops] \x1b]0;title\x07\x1b[2J\x9b31m\x7f\u202eevil"


def test_controls_become_pictures() -> None:
    assert visible("a\x1b[31mb\x07\x00\x7f\x9b") == "a␛[31mb␇␀␡\\x9b"
    assert visible("line1\nline2\tend\r") == "line1␊line2␉end␍"
    assert visible("line1\nline2", multiline=True) == "line1\nline2"
    assert visible("\u202eevil\u2066") == "<U+202E>evil<U+2066>"
    assert visible("ünïcödé ✔ [ok]") == "ünïcödé ✔ [ok]"


def test_literal_content_keeps_markup_as_characters() -> None:
    content = literal(HOSTILE)
    assert content.plain == visible(HOSTILE)
    assert "[bold]x[/bold]" in content.plain and not content.spans
    text = literal_text(HOSTILE)
    assert text.plain == visible(HOSTILE) and not text.spans
    assert literal("x", "bold").spans


def test_clip_marks_what_it_cut() -> None:
    assert clip("abcdef", 4) == "abc…" and clip("abc", 4) == "abc"


def test_palette_highlighting_does_not_parse_markup() -> None:
    matcher = Matcher("bold")
    highlighted = safe_highlight(matcher, "[bold]x[/bold]")
    assert highlighted.plain == "[bold]x[/bold]"
    assert highlighted.spans


class Probe(App[None]):
    def compose(self) -> ComposeResult:
        yield Static(literal(HOSTILE, multiline=True), id="probe")


@pytest.mark.anyio
async def test_a_widget_renders_hostile_text_without_crashing_or_emitting_escapes() -> None:
    app = Probe()
    async with app.run_test(size=(100, 5)) as pilot:
        await pilot.pause()
        svg = app.export_screenshot()
    assert "\x1b" not in svg and "\x9b" not in svg
    console = Console(record=True, width=200, color_system=None)
    console.print(literal_text(HOSTILE))
    out = console.export_text()
    assert "[bold]x[/bold]" in out and "\x1b" not in out and "␛]0;title␇␛[2J" in out


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
