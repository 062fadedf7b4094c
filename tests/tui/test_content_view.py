"""A content view hidden in another tab wraps what it is given at the width it will be shown at."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import ContentSwitcher

from harn_tui.tui.widgets.content_view import ContentView, wrap

TEXT = Content(" ".join(f"word{number}" for number in range(200)))


class Tabs(App[None]):
    CSS = "Vertical { border: round white; padding: 0 1; }"

    def compose(self) -> ComposeResult:
        with ContentSwitcher(initial="shown"):
            with Vertical(id="shown"):
                yield ContentView(TEXT, id="shown-view")
            with Vertical(id="hidden"):
                yield ContentView(id="hidden-view")


@pytest.mark.anyio
async def test_content_given_while_hidden_is_laid_out_once_shown_at_the_same_size() -> None:
    app = Tabs()
    async with app.run_test(size=(50, 20)) as pilot:
        shown, hidden = app.query_one("#shown-view", ContentView), app.query_one("#hidden-view", ContentView)
        width = shown.scrollable_content_region.width
        assert width > 0 and hidden.scrollable_content_region.width == 0  # a hidden tab has no region
        hidden.update(TEXT)
        lines = len(wrap(TEXT, width))
        assert lines > 8
        assert hidden.virtual_size == shown.virtual_size  # wrapped and sized at once, as the shown one
        size = hidden.virtual_size
        app.query_one(ContentSwitcher).current = "hidden"
        await pilot.pause()
        assert hidden.scrollable_content_region.width == width  # it was wrapped at the width it got
        assert hidden.virtual_size == size  # so showing it changed nothing: no second layout
        assert hidden.render_line(0).text.rstrip() == wrap(TEXT, width)[0].plain
