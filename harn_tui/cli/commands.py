"""The table of `harn`'s command groups and top-level options, and `harn --help` printed from it.

The parser (`harn_tui.cli.parser`) is built from these tables. Importing argparse costs more than the rest of
`harn --help` does (argparse imports `re` and gettext, its formatter `shutil` and `textwrap`, and each heading is a
gettext lookup), so the top-level help is laid out here the way argparse's formatter lays it out, from the same
tables and with nothing but `os` and `sys`. A test compares it with argparse's own output byte for byte at many
terminal widths. Where the layout would need what argparse does and this does not (a help text broken at a hyphen
or inside a word, on very narrow terminals), or on a Python whose argparse it was not compared with, `help_text`
returns None and argparse prints the help.
"""

from __future__ import annotations

import os
import sys

from harn_tui import __version__

PROG = "harn"
DESCRIPTION = "Harnery goal supervisor: journal, transitions, console."

# Every command group in the order `harn --help` lists them: name, one line of help.
GROUPS: tuple[tuple[str, str], ...] = (
    ("help", "this help, or a command's: harn help work create"),
    ("init", "create .harnery/ in the current (or --root) directory"),
    ("schema", "print the JSON Schema of every record, or of RECORD"),
    ("pending", "every decision waiting for a human"),
    ("verify", "check the whole tree; exit 5 on any problem"),
    ("fault-points", "list the fault-injection points"),
    ("tui", "the operator console"),
    ("examples", "copy the example team, replanning, mission, specialists and templates"),
    ("demo", "build a demo tree with scripted specialists and open the console"),
    ("supervisor", "goals: create, inspect, tick, plans"),
    ("work", "work items: create, inspect, run, review"),
    ("approval", "approvals parked attempts ask for"),
    ("template", "templates harn can write: list, new"),
    ("web", "serve the console to browsers: one console per page, behind a token"),
)

# The options every command takes: option, metavar (None: a flag), help.
COMMON_OPTIONS: tuple[tuple[str, str | None, str], ...] = (
    ("--root", "ROOT", "the directory holding .harnery/"),
    ("--actor", "ACTOR", "who acts (default $HARN_ACTOR, else the login name)"),
    ("--json", None, "print JSON documents"),
)

# argparse's own help and version options, as its formatter shows them: invocation, usage part, help.
_BUILT_IN_OPTIONS = (
    ("-h, --help", "[-h]", "show this help message and exit"),
    ("--version", "[--version]", "show program's version number and exit"),
)
COMMAND_METAVAR = "COMMAND"
# The argparse whose layout this reproduces (compared byte for byte by the tests).
LAYOUT_OF = (3, 11)


def version_text() -> str:
    return f"{PROG} {__version__}\n"


def terminal_columns() -> int:
    """The width argparse formats for: `$COLUMNS` when it is a positive number, else stdout's terminal, else 80
    (what `shutil.get_terminal_size` returns, without importing shutil)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns > 0:
        return columns
    try:
        columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ is not None else 0
    except (AttributeError, ValueError, OSError):
        columns = 0
    return columns or 80


def help_text(columns: int | None = None) -> str | None:
    """`harn --help` as argparse prints it at `columns` (default: the terminal's), or None where its layout needs
    argparse."""
    if sys.version_info[:2] != LAYOUT_OF:
        return None
    width = (terminal_columns() if columns is None else columns) - 2
    max_help_position = min(24, max(width - 20, 4))
    options = [*_BUILT_IN_OPTIONS]
    for option, metavar, help_line in COMMON_OPTIONS:
        invocation = option if metavar is None else f"{option} {metavar}"
        options.append((invocation, f"[{invocation}]", help_line))
    indent = 2  # the sections' items; subcommands are indented once more but measured at this indent
    longest = max(len(name) for name in [COMMAND_METAVAR, *(n for n, _ in GROUPS), *(i for i, _, _ in options)])
    help_position = min(longest + indent + 2, max_help_position)

    usage = _usage([part for _, part, _ in options], [COMMAND_METAVAR, "..."], width)
    description = _wrap(DESCRIPTION, max(width, 11))
    if usage is None or description is None:
        return None
    items = [_item(name, line, indent + 2, help_position, width) for name, line in GROUPS]
    option_items = [_item(invocation, line, indent, help_position, width) for invocation, _, line in options]
    if None in items or None in option_items:
        return None
    lines = [*usage, "", *description, "", "positional arguments:", f"{'':{indent}}{COMMAND_METAVAR}"]
    for item in items:
        lines += item or []
    lines += ["", "options:"]
    for item in option_items:
        lines += item or []
    return "\n".join(lines) + "\n"


def _item(header: str, help_line: str, indent: int, help_position: int, width: int) -> list[str] | None:
    """One option or subcommand: its header, then its help from `help_position` (on the next line when the
    header does not leave two spaces before it)."""
    wrapped = _wrap(help_line, max(width - help_position, 11))
    if wrapped is None:
        return None
    header_width = help_position - indent - 2
    if len(header) <= header_width:
        first = [f"{'':{indent}}{header:{header_width}}  {wrapped[0]}"]
    else:
        first = [f"{'':{indent}}{header}", f"{'':{help_position}}{wrapped[0]}"]
    return first + [f"{'':{help_position}}{line}" for line in wrapped[1:]]


def _usage(optional: list[str], positional: list[str], width: int) -> list[str] | None:
    """The usage line, wrapped as argparse wraps it: after `usage: harn`, optionals then positionals, each group
    packed on lines of its own under the first."""
    prefix = "usage: "
    whole = " ".join([PROG, *optional, *positional])
    if len(prefix) + len(whole) <= width:
        return [prefix + whole]
    if len(prefix) + len(PROG) > 0.75 * width:
        return None  # argparse puts the program on a line of its own; not needed at any width we claim
    indent = len(prefix) + len(PROG) + 1
    lines = _pack([PROG, *optional], indent, width, first_length=len(prefix))
    lines[0] = prefix + lines[0][indent:]
    return lines + _pack(positional, indent, width, first_length=indent)


def _pack(parts: list[str], indent: int, width: int, first_length: int) -> list[str]:
    lines: list[str] = []
    line: list[str] = []
    length = first_length - 1
    for part in parts:
        if length + 1 + len(part) > width and line:
            lines.append(" " * indent + " ".join(line))
            line, length = [], indent - 1
        line.append(part)
        length += len(part) + 1
    if line:
        lines.append(" " * indent + " ".join(line))
    return lines


def _wrap(text: str, width: int) -> list[str] | None:
    """`textwrap.wrap(text, width)` for one-space-separated text, or None where textwrap would break a word (one
    longer than the width, or one with a hyphen where the line ends)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        if len(word) > width:
            return None
        if not line:
            line = word
        elif len(line) + 1 + len(word) <= width:
            line = f"{line} {word}"
        elif "-" in word:
            return None
        else:
            lines.append(line)
            line = word
    return [*lines, line]
