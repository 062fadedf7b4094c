"""Textual's private attributes the console relies on: all still there, and touched in one module only."""

from __future__ import annotations

import re
from pathlib import Path

from rich.console import Console
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual import __version__ as textual_version
from textual.app import App
from textual.renderables.styled import Styled
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import DataTable

import harn_tui
from harn_tui.tui.textual_compat import PRIVATE_ATTRIBUTES, padded_cell_line


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
