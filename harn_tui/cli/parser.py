"""The `harn` argument parser. Import-light on purpose: `harn --help` must not load the core, and only the command
groups an invocation names are built in full."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Collection

from harn_tui.cli.commands import COMMAND_METAVAR, COMMON_OPTIONS, DESCRIPTION, GROUPS, PROG, version_text

TYPE_CHECKING = False  # see harn_tui.cli: no `typing` at start-up
if TYPE_CHECKING:
    from typing import Any, NoReturn, TypeAlias

    VerbTable: TypeAlias = tuple[tuple[str, str, "Callable[[Parser], None] | VerbTable"], ...]


class ParserUsageError(Exception):
    """Raised instead of argparse's exit so usage errors get the exit code and JSON document of SPEC 8."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line: where (the verb, not a second `harn:`), what, a close verb when a choice was mistyped, and
        where the usage is."""
        where = self.prog.removeprefix("harn").strip()
        choice = re.fullmatch(r"argument [^:]+: invalid choice: '(.*)' \(choose from (.*)\)", message)
        if choice is not None:
            choices = re.findall(r"'([^']*)'", choice.group(2))
            import difflib

            close = difflib.get_close_matches(choice.group(1), choices, n=1)
            message = f"{message}; did you mean {close[0]!r}?" if close else message
        raise ParserUsageError(f"{where + ': ' if where else ''}{message} (try '{self.prog} --help')")

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        """`--opt=--` is the value "--": Python 3.11's argparse drops it as the end-of-options marker and hands
        the option an empty list (`--root=--` reached the core as `[]`, a traceback)."""
        if arg_strings == ["--"] and action.option_strings and action.nargs is None:
            return self._get_value(action, "--")
        return super()._get_values(action, arg_strings)


def count(text: str) -> int:
    """A whole number in ASCII digits: `int()` alone would take `'１０'`, `'١٠'` or `' 1_0 '` for 10."""
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number (ASCII digits, optionally signed)")
    return int(text)


MAX_WAKE_INTERVAL_S = 86_400.0


def wake_seconds(text: str) -> float:
    """A wake interval: a finite number of seconds, more than 0 and at most a day (`inf`, `nan`, `0`, `-1` and
    `1e308` would stop, spin or crash the loop)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not text.isascii() or not 0 < value <= MAX_WAKE_INTERVAL_S:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a wake interval: seconds, more than 0 and at most {MAX_WAKE_INTERVAL_S:g}"
        )
    return value


def port_number(text: str) -> int:
    """A TCP port: 0 (any free port) to 65535."""
    value = count(text)
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port: 0 (any free port) to 65535")
    return value


def _common(parser: argparse.ArgumentParser, top: bool) -> None:
    for option, metavar, help_text in COMMON_OPTIONS:
        if metavar is None:  # a flag
            parser.add_argument(
                option, action="store_true", default=False if top else argparse.SUPPRESS, help=help_text
            )
        else:
            parser.add_argument(option, default=None if top else argparse.SUPPRESS, help=help_text)


def executor_options(leaf: Parser) -> None:
    """`--executor local|ray` and `--ray-address ADDR`: where this invocation's attempts run."""
    leaf.add_argument(
        "--executor",
        choices=["local", "ray"],
        help="where attempts run: local (default) or ray (a Ray cluster; needs harn_tui[ray])",
    )
    leaf.add_argument(
        "--ray-address",
        metavar="ADDR",
        help="the Ray cluster (with --executor ray; default: $RAY_ADDRESS, else a local Ray)",
    )


def _leaf(group: argparse._SubParsersAction[Parser], name: str, help_text: str) -> Parser:
    leaf: Parser = group.add_parser(name, help=help_text, description=help_text)
    _common(leaf, top=False)
    return leaf


def build_parser(named: Collection[str] | None = None) -> Parser:
    """The whole parser, or (with `named`, the words of a command line) one whose command groups and verbs other
    than those named are built as their one line of help only: `harn --help` and every verb's parse skip defining
    the options of commands they do not run. A group or verb is only ever chosen by naming it, so the result
    parses `named` exactly as the whole parser does."""
    parser = Parser(prog=PROG, description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=version_text().rstrip("\n"))
    _common(parser, top=True)
    groups = parser.add_subparsers(dest="group", metavar=COMMAND_METAVAR, required=True, parser_class=Parser)
    for name, help_text in GROUPS:
        if named is not None and name not in named:
            _unnamed(groups, name, help_text)
        elif name in VERBS:  # a group of verbs lists them instead of a description
            group: Parser = groups.add_parser(name, help=help_text)
            _common(group, top=False)
            _verbs(group, "verb", VERBS[name], named)
        else:
            group = groups.add_parser(name, help=help_text, description=help_text)
            _common(group, top=False)
            DEFINITIONS[name](group)
    return parser


def _verbs(group: Parser, dest: str, verbs: VerbTable, named: Collection[str] | None) -> None:
    choices = group.add_subparsers(dest=dest, metavar="VERB", required=True, parser_class=Parser)
    for name, help_text, define in verbs:
        if named is not None and name not in named:
            _unnamed(choices, name, help_text)
        elif isinstance(define, tuple):  # verbs of their own (`supervisor plan`)
            nested: Parser = choices.add_parser(name, help=help_text)
            _common(nested, top=False)
            _verbs(nested, f"{name}_verb", define, named)
        else:
            define(_leaf(choices, name, help_text))


def _unnamed(choices: argparse._SubParsersAction[Parser], name: str, help_text: str) -> None:
    """A command the line does not name: its line of help and a choice (building an ArgumentParser for each is
    most of what parsing a command line costs)."""
    choices._choices_actions.append(choices._ChoicesPseudoAction(name, (), help_text))
    choices._name_parser_map[name] = _UNNAMED


class _UnnamedGroup(Parser):
    """What stands for the commands a command line does not name: never chosen (choosing one names it), but if
    one were, a parser that refuses rather than one that parses wrongly."""

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        raise ParserUsageError("this command was not parsed; try 'harn --help'")


_UNNAMED = _UnnamedGroup(prog="harn", add_help=False)


def _help(leaf: Parser) -> None:
    leaf.add_argument("command", nargs="*")


def _init(init: Parser) -> None:
    init.add_argument("--shared", metavar="GROUP", help="create (or convert) the tree as shared with Unix group GROUP")
    init.add_argument(
        "--agents",
        choices=["claude-code", "codex"],
        help="also write the starter kit in harn/: team, replanning, agent templates, mission",
    )


def _schema(schema: Parser) -> None:
    schema.add_argument("record", nargs="?")


def _no_arguments(leaf: Parser) -> None:
    pass


def _tui(tui: Parser) -> None:
    tui.add_argument("--no-supervisor", action="store_true", help="do not run the embedded supervisor loop")
    tui.add_argument(
        "--no-bell",
        action="store_true",
        help="do not ring the terminal bell when a new decision arrives (also HARN_BELL=0)",
    )
    executor_options(tui)


def _examples(examples: Parser) -> None:
    examples.add_argument("dir", help="a new (or empty) directory to copy them into")


def _demo(demo: Parser) -> None:
    demo.add_argument("--no-tui", action="store_true", help="build the demo tree and print its state only")
    demo.add_argument(
        "dir",
        nargs="?",
        help="where to build the demo tree, new or empty (or --root DIR; default: a new temp directory)",
    )


def _template_new(new: Parser) -> None:
    new.add_argument("kind", choices=["agent"])
    new.add_argument("file")
    new.add_argument("--worker", required=True, help="the team member who does the work")
    new.add_argument("--judge", help="the team member who judges every criterion (not the worker)")
    new.add_argument("--team", help="a team file whose worker and judge profiles are embedded in the script")
    new.add_argument(
        "--check",
        action="append",
        default=[],
        metavar="CMD",
        help="a check run in the workspace: one argv split with shell rules, run without a shell",
    )
    new.add_argument("--ask-first", action="store_true", help="the worker's plan waits for an approval first")
    new.add_argument(
        "--workspace",
        choices=["git", "none"],
        help="git (default inside a git work tree) or none (the scratch directory)",
    )
    new.add_argument("--base", help="the ref a first attempt starts from (default: HEAD when it starts)")
    new.add_argument(
        "--agent-arg",
        action="append",
        default=[],
        metavar="ARG",
        help="a frozen argument for the worker's CLI (write --agent-arg=--flag for one with a dash)",
    )
    new.add_argument("--max-diff-kb", type=count, default=256, help="the most of the diff the judge reads (KiB)")


def _supervisor_create(create: Parser) -> None:
    create.add_argument("--team", required=True, metavar="FILE", help="the team file: planner, reviewers, workers")
    create.add_argument("--mission", metavar="FILE", help="a mission file (objective, acceptance, max_milestones)")
    create.add_argument("--root-work", metavar="ID", help="an existing work item the goal drives (or --mission)")
    create.add_argument("--replanning", metavar="FILE", help="the replanning file: planner, templates, budgets")
    create.add_argument("--id", help="the goal's id (default: a new generated id)")
    create.add_argument("--title", help="the goal's title (default: from the mission or the root work item)")
    create.add_argument("--max-total-attempts", type=count, metavar="N", help="attempts the whole goal may use")
    create.add_argument("--max-parallel-work", type=count, metavar="N", help="templates run at once")
    create.add_argument("--max-cycles", type=count, metavar="N", help="cycles one `supervisor run` may take")
    create.add_argument(
        "--accept-passing-proof", action="store_true", help="accept passing work with no open finding without a human"
    )
    create.add_argument("--retry-blocked", action="store_true", help="retry blocked work without a human")


def _goal(leaf: Parser) -> None:
    leaf.add_argument("goal")


def _goal_show(leaf: Parser) -> None:
    leaf.add_argument("goal")
    leaf.add_argument(
        "--at",
        metavar="WHEN",
        help="the goal as it stood at WHEN: an ISO 8601 timestamp with an offset, or event:K",
    )


def _goal_ticks(leaf: Parser) -> None:
    leaf.add_argument("goal")
    executor_options(leaf)


def _serve(serve: Parser) -> None:
    serve.add_argument("goals", nargs="*")
    serve.add_argument("--wake-interval", type=wake_seconds, default=5.0)
    executor_options(serve)


def _plan(leaf: Parser) -> None:
    leaf.add_argument("goal")
    leaf.add_argument("plan")


def _plan_reason(required: bool) -> Callable[[Parser], None]:
    def define(leaf: Parser) -> None:
        _plan(leaf)
        leaf.add_argument("--reason", required=required)

    return define


def _work_create(create: Parser) -> None:
    create.add_argument("title", help="a short title (at most 200 characters)")
    create.add_argument("template", help="the executable template file that runs each attempt")
    create.add_argument("--objective", required=True, help="what the work must achieve")
    create.add_argument(
        "--accept",
        action="append",
        default=[],
        metavar="CRITERION",
        help="an acceptance criterion the proof reports on (repeat for more)",
    )
    create.add_argument(
        "--depends-on",
        action="append",
        default=[],
        metavar="ID",
        help="work that must succeed first (ID or ID,ID; repeat for more)",
    )
    create.add_argument(
        "--max-attempts", type=count, default=3, metavar="N", help="attempts before the item blocks (default 3)"
    )
    create.add_argument("--id", help="the work item's id (default: a new generated id)")


def _id(leaf: Parser) -> None:
    leaf.add_argument("id")


def _id_executor(leaf: Parser) -> None:
    leaf.add_argument("id")
    executor_options(leaf)


def _work_diff(diff: Parser) -> None:
    diff.add_argument("id")
    diff.add_argument("--run", help="the attempt's run id (default: the latest attempt with a git workspace)")


def _work_accept(accept: Parser) -> None:
    accept.add_argument("id")
    accept.add_argument("--dispose", action="append", default=[], metavar="ID=fixed|ID=deferred:REASON")
    accept.add_argument("--reason")


def _work_reopen(reopen: Parser) -> None:
    reopen.add_argument("id")
    reopen.add_argument("--finding", action="append", default=[])
    reopen.add_argument("--reason")


def _id_reason(leaf: Parser) -> None:
    leaf.add_argument("id")
    leaf.add_argument("--reason")


def _web(web: Parser) -> None:
    web.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: loopback only)")
    web.add_argument("--port", type=port_number, default=8421, help="the port (0: any free port)")
    web.add_argument("--public-url", help="the base URL browsers reach this server at (a proxy's), if not --host")
    web.add_argument("--no-supervisor", action="store_true", help="do not run the embedded supervisor loop")
    executor_options(web)


# What defines each command group's arguments (the groups themselves, in order, are `commands.GROUPS`).
DEFINITIONS: dict[str, Callable[[Parser], None]] = {
    "help": _help,
    "init": _init,
    "schema": _schema,
    "pending": _no_arguments,
    "verify": _no_arguments,
    "fault-points": _no_arguments,
    "tui": _tui,
    "examples": _examples,
    "demo": _demo,
    "web": _web,
}

# The groups of verbs: each verb's name, line of help, and what defines its arguments (or its own verbs).
PLAN_VERBS: VerbTable = (
    ("list", "every plan of a goal", _goal),
    ("show", "one plan with its request, input, proposal, review and events", _plan),
    ("diff", "what a plan replaces, keeps and adds", _plan),
    ("approve", "apply (or complete) the latest proposed plan", _plan_reason(required=False)),
    ("reject", "reject a proposed plan; the reason reaches the next planner", _plan_reason(required=True)),
    ("retry", "ask the planner again for the latest attention plan, with guidance", _plan_reason(required=True)),
    (
        "reopen",
        "reopen a completed mission (its latest plan): the next milestone is planned",
        _plan_reason(required=True),
    ),
)
VERBS: dict[str, VerbTable] = {
    "supervisor": (
        ("create", "freeze a new goal from team, mission and replanning files", _supervisor_create),
        ("list", "every goal with its state", _no_arguments),
        ("status", "the serve loops keeping this tree: live and stale, backoff, last error", _no_arguments),
        ("show", "one goal's projection", _goal_show),
        ("history", "every event of a goal, in order", _goal),
        ("tick", "one supervisor cycle for a goal", _goal_ticks),
        ("run", "tick a goal until it needs a human, finishes or stops changing", _goal_ticks),
        ("serve", "run the loop for every enrolled goal, waking on tree changes", _serve),
        ("plan", "a goal's plans", PLAN_VERBS),
    ),
    "work": (
        ("create", "create a standalone work item", _work_create),
        ("list", "every work item", _no_arguments),
        ("show", "one work item with its intent, events and attempts", _id),
        ("run", "run one attempt of a ready item", _id_executor),
        ("retry", "retry a blocked item", _id_executor),
        ("diff", "the diff an attempt committed in its git workspace", _work_diff),
        ("accept", "accept reviewed work, disposing of every open finding", _work_accept),
        ("reopen", "send work back with findings for the next attempt", _work_reopen),
        ("cancel", "cancel a work item", _id_reason),
    ),
    "approval": (
        ("list", "every approval", _no_arguments),
        ("show", "one approval", _id),
        ("approve", "approve a pending approval", _id_reason),
        ("deny", "deny a pending approval", _id_reason),
    ),
    "template": (
        ("list", "what `template new` can write", _no_arguments),
        ("new", "write a template script (no tree needed); an existing FILE is refused", _template_new),
    ),
}
