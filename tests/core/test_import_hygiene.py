"""The core, the console's view models and the agent library never pull in the UI layer, and the CLI loads Textual
only for `harn tui`."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import harn_tui.agent
import harn_tui.console
import harn_tui.core


def core_modules() -> list[str]:
    return sorted(
        info.name
        for package in (harn_tui.core, harn_tui.console, harn_tui.agent)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package.__name__}.")
    )


def loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(result.stdout.split())


def test_every_core_module_imports_without_textual_or_rich() -> None:
    modules = core_modules()
    assert "harn_tui.core.projection.goal" in modules
    assert "harn_tui.console.model" in modules
    assert "harn_tui.agent.runner" in modules
    loaded = loaded_after("\n".join(f"import {name}" for name in modules))
    assert not {m for m in loaded if m.split(".")[0] in ("textual", "rich")}


def test_cli_help_and_read_verbs_do_not_import_textual() -> None:
    loaded = loaded_after(
        "from harn_tui.cli import main\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['fault-points', '--json'])\n"
    )
    assert "harn_tui.cli.dispatch" in loaded
    assert "textual" not in loaded and "rich" not in loaded


def test_cli_help_imports_no_core_pydantic_or_typing() -> None:
    """`harn --help` prints from the command tables alone, `harn work create --help` from the parser of its own
    group: no core, no pydantic, no `typing` (each is a large share of a start-up that should cost little more
    than the interpreter's)."""
    for argv, parser in ((["--help"], False), (["work", "create", "--help"], True)):
        loaded = loaded_after(
            "from harn_tui.cli import main\n"
            "import contextlib, io\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    try: main({argv!r})\n"
            "    except SystemExit: pass\n"
        )
        assert ("harn_tui.cli.parser" in loaded) is parser and ("argparse" in loaded) is parser, argv
        assert not {m for m in loaded if m.split(".")[0] in ("pydantic", "typing")}, argv
        assert not {m for m in loaded if m.startswith("harn_tui.core")}, argv
