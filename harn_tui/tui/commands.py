"""The one table of console commands: it feeds the main screen's key bindings and the command palette.

A command is legal only when the screen's `check_action` says so for the focused item; the footer and the
palette both ask that same gate, so they never offer a key that would do nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from functools import partial

from textual.actions import parse
from textual.binding import Binding, BindingType
from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content

from harn_tui.tui.text import literal, safe_highlight
from harn_tui.tui.textual_compat import palette_help


@dataclass(frozen=True)
class Command:
    action: str
    title: str
    help: str
    key: str | None = None
    show: bool = True
    key_display: str | None = None
    footer: str | None = None  # a shorter label for the footer (the palette shows the title)


COMMANDS: tuple[Command, ...] = (
    Command("approve_plan", "Approve plan", "Apply the pending plan proposal of this goal", "a"),
    Command("reject_plan", "Reject plan", "Reject the pending plan proposal, with a reason", "x"),
    Command("retry_plan", "Retry plan", "Ask the planner again after an attention plan, with a reason", "r"),
    Command(
        "reopen_plan",
        "Reopen mission",
        "Reopen the completed mission to plan one more milestone, with a reason",
        "o",
        footer="Reopen mission",
    ),
    Command("accept_work", "Accept work", "Accept work in review, disposing every open finding", "a", footer="Accept"),
    Command("reopen_work", "Reopen work", "Reopen work with findings for the next attempt", "o", footer="Reopen"),
    Command("cancel_work", "Cancel work", "Cancel this work item (asks to confirm)", "c", footer="Cancel"),
    Command("approve_request", "Approve request", "Approve the approval a parked attempt is waiting on", "a"),
    Command("deny_request", "Deny request", "Deny the approval a parked attempt is waiting on, with a reason", "x"),
    Command(
        "show_diff",
        "Show diff",
        "Open the diff the selected item's attempts committed (newest first)",
        "d",
        footer="Diff",
    ),
    Command(
        "next_decision(1)",
        "Next decision",
        "Go to the next decision waiting for a human, oldest first",
        "n",
        footer="Next decision",
    ),
    Command(
        "next_decision(-1)", "Previous decision", "Go to the previous decision waiting for a human", "N", show=False
    ),
    Command(
        "filter_goals",
        "Filter goals",
        "Type to filter the goal list by id, title, state, next action or why",
        "slash",
        key_display="/",
        footer="Filter",
    ),
    Command(
        "toggle_quiet",
        "Hide or show quiet goals",
        "Hide the goals that need nothing (succeeded, or running with nobody to ask), or show them again",
        "h",
        show=False,
    ),
    Command("tick_goal", "Tick goal", "Run one supervisor cycle for this goal now", "t"),
    Command(
        "toggle_supervisor", "Supervisor on/off", "Start or stop the embedded supervisor loop", "s", footer="Supervisor"
    ),
    Command("cycle_panel(1)", "Next panel", "Move the focus to the next panel (the order of 1..7)", "tab", show=False),
    Command("cycle_panel(-1)", "Previous panel", "Move the focus to the previous panel", "shift+tab", show=False),
    Command("focus_panel('goals')", "Go to goals", "Focus the goals panel", "1", show=False),
    Command("focus_panel('graph')", "Go to goal graph", "Focus the goal graph", "2", show=False),
    Command("focus_panel('attention')", "Go to attention", "Show why the goal stopped", "3", show=False),
    Command("focus_panel('plans')", "Go to plan history", "Show every plan, newest first", "4", show=False),
    Command("focus_panel('findings')", "Go to findings", "Show work in review and its findings", "5", show=False),
    Command("focus_panel('item')", "Go to item detail", "Show the selected work item", "6", show=False),
    Command(
        "focus_panel('history')",
        "Go to history",
        "Show the goal's history; enter shows the goal as it was then",
        "7",
        show=False,
    ),
    Command(
        "back_to_now",
        "Back to now",
        "Leave the past view: the graph and panels show the present again",
        "escape",
        key_display="esc",
        footer="Back to now",
    ),
    Command(
        "clear_filter", "Clear filter", "Show every goal again", "escape", key_display="esc", footer="Clear filter"
    ),
)


def action_name(command: Command) -> str:
    return parse(command.action)[1]


def bindings() -> list[BindingType]:
    """Key bindings for every command that has a key (several commands may share a key; the legal one wins)."""
    return [
        Binding(c.key, c.action, c.footer or c.title, show=c.show, tooltip=c.help, key_display=c.key_display)
        for c in COMMANDS
        if c.key
    ]


class ConsoleCommands(Provider):
    """Command-palette entries: the same commands, filtered by the same `check_action` as the footer."""

    def _legal(self) -> Iterator[Command]:
        for command in COMMANDS:
            _, name, parameters = parse(command.action)
            if self.screen.check_action(name, parameters):
                yield command

    def _run(self, command: Command) -> Callable[[], Awaitable[None]]:
        return partial(self.screen.run_action, command.action)

    async def discover(self) -> Hits:
        for command in self._legal():
            yield DiscoveryHit(_display(command), self._run(command), help=palette_help(literal(command.help)))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command in self._legal():
            score = matcher.match(command.title)
            if score > 0:
                highlighted = safe_highlight(matcher, command.title)
                if command.key:
                    highlighted = highlighted + Content.styled(f"  [{command.key}]", "dim")
                yield Hit(score, highlighted, self._run(command), help=palette_help(literal(command.help)))


def _display(command: Command) -> Content:
    shown = literal(command.title)
    return shown + Content.styled(f"  [{command.key}]", "dim") if command.key else shown
