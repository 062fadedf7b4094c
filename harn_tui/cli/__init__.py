"""The `harn` command line: parse, dispatch to the core, print a document, map errors to exit codes."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # `typing` itself is a tenth of `harn --help`'s start-up; mypy reads this as True
if TYPE_CHECKING:
    from collections.abc import Collection, Sequence
    from typing import Any

    from harn_tui.cli.parser import Parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command line; `argv` None is the `harn` process's own (`sys.argv`), which ends after it."""
    raw = list(sys.argv[1:] if argv is None else argv)
    if raw in HELP_ARGVS or raw == ["--version"]:  # printed without argparse, whose import is most of the cost
        from harn_tui.cli.commands import help_text, version_text

        text = version_text() if raw == ["--version"] else help_text()
        if text is not None:
            return _print(text)
    if argv is None:
        from harn_tui.cli.served import served

        code = served(raw)
        if code is not None:
            return code
    from harn_tui.cli.parser import ParserUsageError

    parser = build_parser(frozenset(raw))
    as_json = "--json" in raw
    for position, value in enumerate(raw, start=1):
        if not _is_utf8(value):
            shown = repr(value) if len(value) <= 60 else repr(value[:60]) + "..."
            return _fail("usage", 2, f"argument {position} ({shown}) is not UTF-8 text", as_json)
    try:
        args = parser.parse_args(raw)
    except ParserUsageError as error:
        return _fail("usage", 2, str(error), as_json)
    if args.group == "help":  # `harn help [COMMAND...]` is `harn [COMMAND...] --help`
        try:
            parser.parse_args([*args.command, "--help"])
        except ParserUsageError as error:
            return _fail("usage", 2, str(error), as_json)
    from harn_tui.core.errors import HarnError, harn_error_of

    try:
        from harn_tui.cli.dispatch import dispatch

        return dispatch(args, owns_process=argv is None)
    except BrokenPipeError:
        return _reader_left()
    except (HarnError, OSError) as error:
        typed = harn_error_of(error)
        if typed is None:
            raise
        return _fail(typed.code, typed.exit_code, typed.message, args.json)
    except KeyboardInterrupt as interrupt:
        if str(interrupt):  # what the interrupt stopped, and how it is recorded
            print(f"harn: {interrupt}", file=sys.stderr)
        return 130


HELP_ARGVS = (["--help"], ["-h"], ["help"])


def build_parser(named: Collection[str] | None = None) -> Parser:
    """`harn_tui.cli.parser.build_parser`, imported when a command line needs argparse."""
    from harn_tui.cli.parser import build_parser

    return build_parser(named)


def _print(text: str) -> int:
    """Print help as argparse does: to stdout, else (none open) stderr; a write that fails (the reader left, a
    full disk) ends quietly, exit 0."""
    out = sys.stdout if sys.stdout is not None else sys.stderr
    try:
        out.write(text)
        out.flush()
    except (AttributeError, OSError):  # AttributeError: no stderr either
        if out is sys.stdout:
            return _reader_left()
    return 0


def _reader_left() -> int:
    """Stdout closed early (`harn schema | head -1`): what was done stands; end quietly, with no traceback now or
    when the interpreter flushes stdout at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # a stdout without a descriptor (redirected in-process)
        pass
    return 0


def _is_utf8(value: str) -> bool:
    """False for an argument holding bytes that are not UTF-8 (Python passes them on as lone surrogates)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _fail(code: str, exit_code: int, message: str, as_json: bool) -> int:
    if as_json:
        try:
            emit({"error": {"code": code, "message": message}})
        except BrokenPipeError:  # the reader left; the exit code still says what went wrong
            _reader_left()
    else:
        print(f"harn: {message}", file=sys.stderr)
    return exit_code


def emit(document: Any) -> None:
    import json

    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()
