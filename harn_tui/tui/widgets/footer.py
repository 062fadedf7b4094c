"""A Footer that recomposes only when the legal keys actually changed, and at most once per refresh.

Textual's Footer rebuilds all its keys on every `refresh_bindings()`; the console refreshes bindings on every
selection and live update, so the rebuild is skipped when the active bindings are the same as shown.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


class StableFooter(Footer):
    def __init__(self) -> None:
        super().__init__()
        self._shown: tuple[tuple[str, str, str, bool], ...] | None = None
        self._pending = False

    def bindings_changed(self, screen: Screen) -> None:  # type: ignore[type-arg]
        self._bindings_ready = True
        if not screen.app.app_focus or not self.is_attached or screen is not self.screen or self._pending:
            return
        self._pending = True
        self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        self._pending = False
        signature = tuple(
            (key, active.binding.action, active.binding.description, active.enabled)
            for key, active in self.screen.active_bindings.items()
            if active.binding.show
        )
        if signature == self._shown:
            return
        self._shown = signature
        await self.recompose()
