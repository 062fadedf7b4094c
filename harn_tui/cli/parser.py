"""The `harn` argument parser. Import-light on purpose: `harn --help` must not load the core, and only the command
groups an invocation names are built in full."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Collection

from harn_tui.cli.commands import COMMAND_METAVAR, COMMON_OPTIONS, DESCRIPTION, GROUPS, PROG, version_text

TYPE_CHECKING = False  # see harn_tui.cli: no `typing` at start-up
if TYPE_CHECKING:
    from typing import Any, NoReturn


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
    """The whole parser, or (with `named`, the words of a command line) one whose command groups other than those
    named are built as their one line of help only: `harn --help` and every verb's parse skip defining the
    options of verbs they do not run. A group is only ever chosen by naming it, so the result parses `named`
    exactly as the whole parser does."""
    parser = Parser(prog=PROG, description=DESCRIPTION)
    parser.add_argument("--version", action="version", version=version_text().rstrip("\n"))
    _common(parser, top=True)
    groups = parser.add_subparsers(dest="group", metavar=COMMAND_METAVAR, required=True, parser_class=Parser)
    unnamed: Parser | None = None
    for name, help_text in GROUPS:
        define = DEFINITIONS[name]
        if named is None or name in named:
            description = None if define in VERB_GROUPS else help_text  # a group of verbs lists them instead
            group: Parser = groups.add_parser(name, help=help_text, description=description)
            _common(group, top=False)
            define(group)
        else:  # a line of help and a choice (an ArgumentParser each would be most of `harn --help`'s work)
            groups._choices_actions.append(groups._ChoicesPseudoAction(name, (), help_text))
            unnamed = unnamed or _UnnamedGroup(prog="harn", add_help=False)
            groups._name_parser_map[name] = unnamed
    return parser


class _UnnamedGroup(Parser):
    """What stands for the groups a command line does not name: never chosen (choosing one names it), but if one
    were, a parser that refuses rather than one that parses wrongly."""

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        raise ParserUsageError("this command was not parsed; try 'harn --help'")


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


def _template(template: Parser) -> None:
    verbs = template.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=Parser)
    _leaf(verbs, "list", "what `template new` can write")
    new = _leaf(verbs, "new", "write a template script (no tree needed); an existing FILE is refused")
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


def _supervisor(sup: Parser) -> None:
    verbs = sup.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=Parser)
    create = _leaf(verbs, "create", "freeze a new goal from team, mission and replanning files")
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
    _leaf(verbs, "list", "every goal with its state")
    _leaf(verbs, "status", "the serve loops keeping this tree: live and stale, backoff, last error")
    for name, help_text in (
        ("show", "one goal's projection"),
        ("history", "every event of a goal, in order"),
        ("tick", "one supervisor cycle for a goal"),
        ("run", "tick a goal until it needs a human, finishes or stops changing"),
    ):
        leaf = _leaf(verbs, name, help_text)
        leaf.add_argument("goal")
        if name in ("tick", "run"):
            executor_options(leaf)
        if name == "show":
            leaf.add_argument(
                "--at",
                metavar="WHEN",
                help="the goal as it stood at WHEN: an ISO 8601 timestamp with an offset, or event:K",
            )
    serve = _leaf(verbs, "serve", "run the loop for every enrolled goal, waking on tree changes")
    serve.add_argument("goals", nargs="*")
    serve.add_argument("--wake-interval", type=wake_seconds, default=5.0)
    executor_options(serve)
    plan: Parser = verbs.add_parser("plan", help="a goal's plans")
    _common(plan, top=False)
    plan_verbs = plan.add_subparsers(dest="plan_verb", metavar="VERB", required=True, parser_class=Parser)
    _leaf(plan_verbs, "list", "every plan of a goal").add_argument("goal")
    for name, help_text, reason_required in (
        ("show", "one plan with its request, input, proposal, review and events", None),
        ("diff", "what a plan replaces, keeps and adds", None),
        ("approve", "apply (or complete) the latest proposed plan", False),
        ("reject", "reject a proposed plan; the reason reaches the next planner", True),
        ("retry", "ask the planner again for the latest attention plan, with guidance", True),
        ("reopen", "reopen a completed mission (its latest plan): the next milestone is planned", True),
    ):
        leaf = _leaf(plan_verbs, name, help_text)
        leaf.add_argument("goal")
        leaf.add_argument("plan")
        if reason_required is not None:
            leaf.add_argument("--reason", required=reason_required)


def _work(work: Parser) -> None:
    verbs = work.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=Parser)
    create = _leaf(verbs, "create", "create a standalone work item")
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
    _leaf(verbs, "list", "every work item")
    for name, help_text in (
        ("show", "one work item with its intent, events and attempts"),
        ("run", "run one attempt of a ready item"),
        ("retry", "retry a blocked item"),
    ):
        leaf = _leaf(verbs, name, help_text)
        leaf.add_argument("id")
        if name != "show":
            executor_options(leaf)
    diff = _leaf(verbs, "diff", "the diff an attempt committed in its git workspace")
    diff.add_argument("id")
    diff.add_argument("--run", help="the attempt's run id (default: the latest attempt with a git workspace)")
    accept = _leaf(verbs, "accept", "accept reviewed work, disposing of every open finding")
    accept.add_argument("id")
    accept.add_argument("--dispose", action="append", default=[], metavar="ID=fixed|ID=deferred:REASON")
    accept.add_argument("--reason")
    reopen = _leaf(verbs, "reopen", "send work back with findings for the next attempt")
    reopen.add_argument("id")
    reopen.add_argument("--finding", action="append", default=[])
    reopen.add_argument("--reason")
    cancel = _leaf(verbs, "cancel", "cancel a work item")
    cancel.add_argument("id")
    cancel.add_argument("--reason")


def _approval(approval: Parser) -> None:
    verbs = approval.add_subparsers(dest="verb", metavar="VERB", required=True, parser_class=Parser)
    _leaf(verbs, "list", "every approval")
    _leaf(verbs, "show", "one approval").add_argument("id")
    for name in ("approve", "deny"):
        leaf = _leaf(verbs, name, f"{name} a pending approval")
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
    "supervisor": _supervisor,
    "work": _work,
    "approval": _approval,
    "template": _template,
    "web": _web,
}
VERB_GROUPS = (_supervisor, _work, _approval, _template)
