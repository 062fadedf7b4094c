"""Textual's private attributes the console relies on: all still there, and touched in one module only."""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from rich.console import Console
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual import __version__ as textual_version
from textual.app import App
from textual.containers import Vertical
from textual.coordinate import Coordinate
from textual.renderables.styled import Styled
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Static

import harn_tui
from harn_tui.tui.textual_compat import PRIVATE_ATTRIBUTES, OnePassScreen, padded_cell_line
from harn_tui.tui.widgets.keyed_table import KeyedTable


def test_every_private_attribute_the_console_relies_on_is_still_there() -> None:
    instances: dict[type, object] = {
        DataTable: DataTable[str](),
        Widget: Widget(),
        App: App[None](),
        Screen: Screen[None](),
    }
    missing = [
        f"{cls.__name__}.{name}"
        for cls, names in PRIVATE_ATTRIBUTES.items()
        for name in names
        if not hasattr(instances[cls], name)
    ]
    assert not missing, (
        f"Textual {textual_version} no longer has {', '.join(missing)}: "
        "harn_tui/tui/textual_compat.py must follow it before Textual is upgraded"
    )


def test_no_other_module_touches_them() -> None:
    names = sorted({name for names in PRIVATE_ATTRIBUTES.values() for name in names})
    pattern = re.compile(r"(?<!\bos)\.(" + "|".join(re.escape(n) for n in names) + r")\b")  # os._exit is public
    package = Path(harn_tui.__file__).parent
    found = [
        f"{path.relative_to(package)}:{number}"
        for path in sorted(package.rglob("*.py"))
        if path.name != "textual_compat.py"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if pattern.search(line)
    ]
    assert names and not found


def _cells() -> list[Text]:
    tree = Text("│  ", style="dim")
    tree.append("● running", style="bold green")
    tree.append("  ")
    tree.append("Generation 4 step 7 [bold]x[/bold]", style="bold")  # markup in a title stays characters
    partly = Text("ab", style="italic")
    partly.stylize("bold", 0, 1)
    return [tree, partly, Text("3/5", style="dim"), Text(""), Text("", style="bold"), Text("héllo 世界"), Text(" sp  ")]


def test_a_table_cell_renders_as_rich_renders_it() -> None:
    """The console draws its table cells from their own segments: every cell, padded to any width, with and
    without the cursor's style over it, reads and is styled exactly as Rich's own rendering of it."""
    console = Console(width=120, color_system="truecolor", force_terminal=True)
    pre = Style(color="white", bgcolor="black") + Style.from_meta({"row": 3, "column": 1})
    for cell in _cells():
        for width in (cell.cell_len + 2, cell.cell_len + 7):
            for post in (Style.null(), Style(bgcolor="blue")):
                options = console.options.update_dimensions(width, 1).update(no_wrap=True)
                rich = console.render_lines(Styled(Padding(cell, (0, 1)), pre_style=pre, post_style=post), options)
                line = padded_cell_line(console, cell, width, 1, pre, post)
                assert line is not None
                assert list(Strip(line).simplify()) == list(Strip(rich[0]).simplify()), (cell, width, post)
    assert padded_cell_line(console, Text("too wide"), 6, 1, pre, Style.null()) is None, "Rich crops it"
    assert padded_cell_line(console, Text("two\nlines"), 20, 1, pre, Style.null()) is None


class _TableApp(App[None]):
    def compose(self) -> Iterable[Widget]:
        yield KeyedTable([("State", "state"), ("Work", "work"), ("Title", "title")], id="table")


@pytest.mark.anyio
async def test_a_table_row_renders_as_datatable_renders_it() -> None:
    """Each line of a table, drawn with what a render pass shares worked out once, is DataTable's own line:
    header and body rows, with the cursor on one, the mouse over another, focused and not."""
    app = _TableApp()
    async with app.run_test(size=(70, 12)) as pilot:
        table = app.query_one(KeyedTable)
        table.sync([(f"w{n}", _cells()[n % 3 : n % 3 + 3]) for n in range(8)])
        await pilot.pause()
        region = table.size.region

        def drawn(own: bool) -> list[Strip]:
            table._clear_caches()
            table._styles_cache.clear()
            if own:
                return table.render_lines(region)
            table._pseudo_class_state = table.get_pseudo_class_state()  # as DataTable.render_lines sets it
            return Widget.render_lines(table, region)  # no render pass: each line through DataTable's own

        for focused in (True, False):
            table.focus() if focused else table.blur()
            await pilot.pause()
            for cursor, hover in ((0, 3), (5, 5), (7, 0)):
                table.move_cursor(row=cursor)
                table.hover_coordinate = Coordinate(hover, 0)
                await pilot.pause()
                ours, theirs = drawn(True), drawn(False)
                assert [list(line) for line in ours] == [list(line) for line in theirs], (focused, cursor, hover)
        assert "Generation 4 step 7 [bold]x[/bold]" in "".join(line.text for line in drawn(True))


class _FocusScreen(OnePassScreen):
    def compose(self) -> Iterable[Widget]:
        with Vertical(id="panel"):
            yield Static("a label", id="label")
            yield Button("a button", id="button")
            yield Input(id="inside")
        yield Input(id="elsewhere")


class _FocusApp(App[None]):
    CSS = "#panel { border: round gray; height: 12; } #panel:focus-within { border: heavy red; }"

    def __init__(self, css: str) -> None:
        super().__init__()
        self.extra = css

    def on_mount(self) -> None:
        self.stylesheet.add_source(self.extra, read_from=("test", "extra"))
        self.stylesheet.parse()
        self.push_screen(_FocusScreen())


async def _styled_after_focus(css: str) -> tuple[str, str, set[str]]:
    """After the focus moves into the panel: the panel's border, the colour of the button beside the focused
    input, and the colours the label's text is drawn in (from its render cache, as the next frame draws it)."""
    app = _FocusApp(css)
    async with app.run_test(size=(40, 16)) as pilot:
        screen = app.screen
        screen.query_one("#elsewhere").focus()
        await pilot.pause()
        label = screen.query_one("#label")
        label.render_lines(label.size.region)
        screen.query_one("#inside").focus()
        await pilot.pause()
        panel, button = screen.query_one("#panel"), screen.query_one("#button")
        backgrounds = {
            str(segment.style.color.triplet.hex)
            for line in label.render_lines(label.size.region)
            for segment in line
            if segment.text.strip() and segment.style and segment.style.color and segment.style.color.triplet
        }
        return panel.styles.border_top[0], str(button.styles.color), backgrounds


@pytest.mark.anyio
async def test_a_focus_change_restyles_what_it_changes() -> None:
    """The panel whose `:focus-within` changed is restyled, its descendants too when a rule reads the focus from
    an ancestor, and a colour the panel takes reaches the text it holds."""
    border, _, _ = await _styled_after_focus("")
    assert border == "heavy"
    _, button, _ = await _styled_after_focus("#panel:focus-within Button { color: rgb(1, 2, 3); }")
    assert button == "Color(1, 2, 3)", "a rule reading the focus from an ancestor"
    _, _, colours = await _styled_after_focus("#panel:focus-within { color: rgb(4, 5, 6); }")
    assert colours == {"#040506"}, "a colour its descendants are drawn in"
