"""The supervisor loop: `tick_goal`, `run_goal` and `serve` (SPEC section 7)."""

from __future__ import annotations

from harn_tui.core.supervisor.report import TickReport, stop_reason_for
from harn_tui.core.supervisor.run import run_bounded, run_goal
from harn_tui.core.supervisor.serve import serve
from harn_tui.core.supervisor.tick import tick_goal

__all__ = ["TickReport", "run_bounded", "run_goal", "serve", "stop_reason_for", "tick_goal"]
