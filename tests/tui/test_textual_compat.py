"""Textual's private attributes the console relies on: all still there, and touched in one module only."""

from __future__ import annotations

import re
from pathlib import Path

from textual import __version__ as textual_version
from textual.app import App
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable

import harn_tui
from harn_tui.tui.textual_compat import PRIVATE_ATTRIBUTES


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
