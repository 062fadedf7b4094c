"""Messages between the console's workers and its screen."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from textual.message import Message


class TreeChanged(Message):
    """Files under `.harnery/` changed; the paths wait in the watcher's pending set.

    Adjacent `TreeChanged` messages coalesce (`can_replace`): a burst of writes costs one refresh, and no
    path is lost because the handler drains the whole pending set.
    """

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, TreeChanged)


@dataclass(frozen=True)
class DispatchResult:
    """What one transition dispatch ended with: `ok` and the core's words (verbatim on refusal)."""

    title: str
    ok: bool
    message: str
    outcome: str | None = None


class Dispatched(Message):
    """A transition worker finished (applied, already done, or refused)."""

    def __init__(self, result: DispatchResult, refresh: tuple[Path, ...] = ()) -> None:
        super().__init__()
        self.result = result
        self.refresh = refresh


class SupervisorStatus(Message):
    """The embedded supervisor loop started, stopped or failed."""

    def __init__(self, status: str, detail: str = "", last_tick: str | None = None) -> None:
        super().__init__()
        self.status = status
        self.detail = detail
        self.last_tick = last_tick
