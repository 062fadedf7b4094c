"""The header: tree root, acting operator, the other operators present and what they look at, supervisor, and
the serve loops keeping the tree (this console's embedded one and external ones)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.content import Content
from textual.widgets import Static

from harn_tui.console.model import SeenEvent
from harn_tui.core.presence import Presence
from harn_tui.core.service import ServiceStatus, shared_goals
from harn_tui.tui.text import literal


@dataclass(frozen=True)
class HeaderState:
    root: str
    actor: str
    others: tuple[Presence, ...] = ()
    supervisor: str = "off"
    last_supervisor_event: SeenEvent | None = None
    last_tick: str | None = None
    services: tuple[ServiceStatus, ...] = ()  # the live ones
    own_service: tuple[str, int] | None = None  # (host, pid) of this console's embedded supervisor
    presence_off: str | None = None  # why this console's heartbeat cannot be written (a full or read-only tree)
    decisions: int = 0  # decisions waiting for a human anywhere in the tree (n / N go through them)
    # the whole tree is being read: the goal rows marked ~ are as seen at this time ("": no row was kept)
    reading: str | None = None


def _service(status: ServiceStatus, own: tuple[str, int] | None) -> Content:
    """`embedded 3 goals` or `bob@build-2:4242 200 goals`, with its backoff and last error."""
    if own == (status.host, status.pid):
        who = Content.styled("embedded", "bold")
    else:
        who = Content.assemble(
            literal(status.actor, "bold"), ("@", "dim"), literal(status.host), (f":{status.pid}", "dim")
        )
    goals = len(status.goals)
    parts = [who, Content(f" {goals} goal{'s' if goals != 1 else ''}")]
    if status.backoff_s:
        parts.append(Content.styled(f", backing off {status.backoff_s:g} s", "bold"))
    if status.last_error:
        parts += [Content(", error: "), literal(status.last_error)]
    return Content.assemble(*parts)


def _services(state: HeaderState) -> Content | None:
    """`serve embedded 3 goals; bob@build-2:4242 200 goals`: this console's own loop first, then by host and pid."""
    if not state.services:
        return None
    own_first = sorted(state.services, key=lambda s: (s.host, s.pid) != state.own_service)  # stable otherwise
    line = Content.assemble(("serve ", "dim"), Content("; ").join(_service(s, state.own_service) for s in own_first))
    shared = shared_goals(state.services)
    if shared:
        goal_id, hosts = shared[0]
        more = f" (+{len(shared) - 1} more)" if len(shared) > 1 else ""
        line = Content.assemble(
            ("⚠ ", "bold"),
            ("serve loops on ", "bold"),
            literal(", ".join(hosts), "bold"),
            (" all enroll ", "bold"),
            literal(goal_id, "bold"),
            (more, "bold"),
            ("  · ", "dim"),
            line,
        )
    return line


def _where(presence: Presence) -> str:
    where = presence.goal_id or "the goal list"
    return f"{where} › {presence.focus}" if presence.focus else where


def header_content(state: HeaderState) -> Content:
    others = len(state.others)
    present = "no other operator here" if not others else f"{others} other operator{'s' if others != 1 else ''} here"
    if state.presence_off is not None:
        present = "presence off"
    waiting = (
        f"{state.decisions} decision{'s' if state.decisions != 1 else ''} waiting"
        if state.decisions
        else "no decision waiting"
    )
    if state.reading:
        waiting = f"reading the tree: ~ rows as seen {state.reading}"
    elif state.reading is not None:
        waiting = "reading the tree"
    first = Content.assemble(
        ("harn ", "bold"),
        (waiting, "bold reverse" if state.decisions else ""),
        ("  · actor ", "dim"),
        literal(state.actor, "bold"),
        ("  · supervisor ", "dim"),
        literal(state.supervisor, "bold" if state.supervisor != "off" else ""),
        ("  · ", "dim"),
        (present, "bold" if others else ""),
        ("  · root ", "dim"),
        literal(state.root),
    )
    parts: list[Content] = []
    for presence in state.others:
        parts.append(
            Content.assemble(
                literal(presence.actor, "bold"),
                ("@", "dim"),
                literal(presence.host),
                (" on ", "dim"),
                literal(_where(presence)),
            )
        )
    second = Content.assemble(("here too: ", "dim"), Content("; ").join(parts)) if parts else Content("")
    if state.presence_off is not None:  # the others do not see this console: say so, and why
        off = Content.assemble(("presence off: ", "bold"), literal(state.presence_off))
        second = off + Content("  · ") + second if parts else off
    last = state.last_supervisor_event
    tick: Content | None = None
    if state.last_tick:
        tick = Content.assemble(("last tick ", "dim"), literal(state.last_tick))
    elif last is not None:
        tick = Content.assemble(("last supervisor event ", "dim"), literal(f"{last.event} {last.target} {last.ts}"))
    if tick is not None:
        second = second + Content("  · ") + tick if second.plain else tick
    services = _services(state)
    if services is not None:
        second = services + Content("  · ") + second if second.plain else services
    return Content("\n").join([first, second])


class HeaderBar(Static):
    """Two lines; untrusted names are literal. Updated whenever presence or supervisor status changes."""

    def show(self, state: HeaderState) -> None:
        content = header_content(state)
        if not (isinstance(self.content, Content) and content.is_same(self.content)):
            self.update(content)
