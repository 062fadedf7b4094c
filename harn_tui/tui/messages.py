"""Messages between the console's workers, its screens and the app: a screen asks the app to act (a transition,
a tick, the embedded loop on or off, a form) by posting one of the `...Requested` messages, and reads what it
shows through `ConsoleHost`; it never imports the app."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from textual.message import Message
from textual.notifications import SeverityLevel

from harn_tui.tui.dispatch import DispatchResult, Request

if TYPE_CHECKING:
    from harn_tui.console.model import ConsoleModel
    from harn_tui.core.decisions import Decision
    from harn_tui.tui.forms.base import TransitionForm


class ConsoleHost(Protocol):
    """What a screen reads of the console app it runs in."""

    @property
    def closing(self) -> bool: ...
    @property
    def decisions(self) -> Sequence[Decision]: ...
    def refresh_header(self) -> None: ...
    def note(self, severity: SeverityLevel, title: str, message: str) -> None: ...
    def beat(self, goal_id: str | None, focus: str | None) -> None: ...


class TransitionRequested(Message):
    """Dispatch `request` through the core in a worker; then re-read `refresh` (the logs it appends to)."""

    def __init__(self, request: Request, refresh: Sequence[Path] = ()) -> None:
        super().__init__()
        self.request = request
        self.refresh = tuple(refresh)


class FormRequested(Message):
    """Open a transition form; `done` gets its answer (None when dismissed)."""

    def __init__(self, form: TransitionForm[Any], done: Callable[[Any], None]) -> None:
        super().__init__()
        self.form = form
        self.done = done


class TickRequested(Message):
    """One tick of the goal in a worker (the tick key), then re-read `refresh`."""

    def __init__(self, goal_id: str, refresh: Sequence[Path] = ()) -> None:
        super().__init__()
        self.goal_id = goal_id
        self.refresh = tuple(refresh)


class SupervisorToggleRequested(Message):
    """Start the embedded supervisor loop, or stop it."""


class TreeChanged(Message):
    """Files under `.harnery/` changed; the paths wait in the watcher's pending set.

    Adjacent `TreeChanged` messages coalesce (`can_replace`): a burst of writes costs one refresh, and no
    path is lost because the handler drains the whole pending set.
    """

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TreeChanged)


class Dispatched(Message):
    """A transition worker finished (applied, already done, or refused)."""

    def __init__(self, result: DispatchResult, refresh: tuple[Path, ...] = ()) -> None:
        super().__init__()
        self.result = result
        self.refresh = refresh


class WholeTreeRead(Message):
    """The whole tree was read behind a console that started from the kept goal list (`model`), or could not
    be (`error`)."""

    def __init__(self, model: ConsoleModel | None, error: str | None = None) -> None:
        super().__init__()
        self.model = model
        self.error = error


class SupervisorStatus(Message):
    """The embedded supervisor loop started, stopped or failed."""

    def __init__(self, status: str, detail: str = "", last_tick: str | None = None) -> None:
        super().__init__()
        self.status = status
        self.detail = detail
        self.last_tick = last_tick
