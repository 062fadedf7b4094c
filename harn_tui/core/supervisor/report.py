"""What a tick or a run reports: why it stopped, what it did, and the goal document afterwards."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harn_tui.core.errors import SystemRefused
from harn_tui.core.projection import GoalView

STATE_STOP_REASONS = {
    "succeeded": "succeeded",
    "awaiting_attention": "needs_human",
    "blocked": "blocked",
    "budget_exhausted": "budget_exhausted",
    "corrupt": "corrupt",
    "running": "running",
    "ready": "ready",
}
TERMINAL_STOP_REASONS = frozenset({"succeeded", "needs_human", "blocked", "budget_exhausted", "corrupt"})


def stop_reason_for(view: GoalView) -> str:
    """The stop reason a goal's state gives: `ready` means another tick has something to do."""
    return STATE_STOP_REASONS.get(view.state, view.state)


@dataclass
class TickReport:
    """`cycles` counts ticks that acted; `dispatches` attempts started or resumed; `replans` plan requests.

    `stop_reason`: succeeded, needs_human, blocked, budget_exhausted, corrupt, running (a run of another
    process is live), ready (a tick acted and more is due), busy (another supervisor holds the goal's
    `supervisor.lock`), io_error (the system refused a write: `error` says which and why; the tick stopped
    there), executor_unavailable (the executor could not be reached before a dispatch: `unavailable` says why;
    nothing was recorded for it), and for a run also max_cycles, max_runtime, no_change (a tick changed
    nothing) and stopped (serve was asked to stop).
    """

    stop_reason: str
    cycles: int = 0
    dispatches: int = 0
    acceptances: int = 0
    replans: int = 0
    outcomes: list[dict[str, Any]] = field(default_factory=list)
    goal: GoalView | None = None
    applied: int = 0
    error: SystemRefused | None = None
    unavailable: str | None = None

    def executor_unavailable(self, message: str) -> None:
        """The executor could not be reached: the tick (and a run) stops; exit 0, as every tick."""
        self.unavailable = self.unavailable or message
        self.stop_reason = "executor_unavailable"

    def refused_by_system(self, error: SystemRefused) -> None:
        """The system refused a write: the tick (and a run) stops with `io_error`; the first refusal is kept."""
        if self.error is None:
            self.error = error
        self.stop_reason = "io_error"

    @property
    def acted(self) -> bool:
        """True if the tick wrote something (`applied` counts auto-applied plans; it is not in the document)."""
        return bool(self.dispatches or self.acceptances or self.replans or self.applied)

    def absorb(self, other: TickReport) -> None:
        """Add one tick's counts and outcomes to this run's."""
        self.cycles += other.cycles
        self.dispatches += other.dispatches
        self.acceptances += other.acceptances
        self.replans += other.replans
        self.applied += other.applied
        self.outcomes.extend(other.outcomes)
        self.stop_reason = other.stop_reason
        self.error = self.error or other.error
        self.unavailable = self.unavailable or other.unavailable

    def to_json(self) -> dict[str, Any]:
        """The tick document; a tick stopped by an io error also carries `error` as a failing command's is."""
        document = {
            "stop_reason": self.stop_reason,
            "cycles": self.cycles,
            "dispatches": self.dispatches,
            "acceptances": self.acceptances,
            "replans": self.replans,
            "outcomes": list(self.outcomes),
            "goal": self.goal.to_json() if self.goal is not None else None,
        }
        if self.error is not None:
            document["error"] = {"code": self.error.code, "message": self.error.message}
        elif self.unavailable is not None:
            document["error"] = {"code": "executor_unavailable", "message": self.unavailable}
        return document
