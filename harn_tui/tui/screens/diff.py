"""The diff screen: what one attempt of a work item committed in its git workspace (`git diff base commit`).

Opened by `d` on a work item whose attempts have git workspaces, at the newest of them (the one `harn work diff`
shows by default); `[` and `]` step to older and newer ones, `esc` goes back to the main screen. The diff is read
by git in a worker thread, so a large diff never freezes the screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from harn_tui.console.workspaces import SHORT_COMMIT, AttemptDiff, diffstat
from harn_tui.core.errors import NotFound
from harn_tui.core.workspace_diff import committed_diff
from harn_tui.tui.text import literal, under_root, visible
from harn_tui.tui.widgets.diff_view import DiffView, shown_lines
from harn_tui.tui.widgets.footer import KeysFooter
from harn_tui.tui.widgets.titles import set_border

if TYPE_CHECKING:
    from harn_tui.console.workspaces import DiffLineKind


def diff_heading(diff: AttemptDiff, position: int, total: int, root: Path) -> Content:
    """Two lines: which attempt of which work (and which of the diffable ones), then where its change is."""
    workspace = diff.workspace
    where = ""
    if Path(workspace.repository) != root:
        where = f" in {under_root(workspace.repository, root)}"
    first = Content.assemble(
        ("Diff of ", "dim"),
        literal(diff.work_id, "bold"),
        (" · attempt ", "dim"),
        f"#{diff.number} ",
        literal(diff.run_id),
        (f" · {position} of {total} with a workspace", "dim"),
    )
    second = Content.assemble(
        literal(workspace.branch, "bold"),
        where,
        ("  base ", "dim"),
        workspace.base[:SHORT_COMMIT],
        (" → ", "dim"),
        workspace.commit[:SHORT_COMMIT],
        "  ",
        diffstat(workspace),
    )
    return Content("\n").join([first, second])


class DiffScreen(Screen[None]):
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("left_square_bracket", "step(1)", "Older attempt", key_display="["),
        Binding("right_square_bracket", "step(-1)", "Newer attempt", key_display="]"),
    ]

    def __init__(self, diffs: list[AttemptDiff], root: Path) -> None:
        super().__init__()
        self.diffs = diffs  # newest first
        self.root = root
        self.index = 0
        self.loaded: AttemptDiff | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="diff-heading")
        yield DiffView(id="diff")
        yield KeysFooter()

    def on_mount(self) -> None:
        self.query_one(DiffView).focus()
        self._show(0)

    @property
    def shown(self) -> AttemptDiff:
        return self.diffs[self.index]

    def _show(self, index: int) -> None:
        self.index = index
        diff = self.shown
        self.query_one("#diff-heading", Static).update(diff_heading(diff, index + 1, len(self.diffs), self.root))
        view = self.query_one(DiffView)
        set_border(view, title="Diff · reading it…")
        view.show([], [])
        self.loaded = None
        self._read(diff)
        self.refresh_bindings()

    @work(thread=True, exclusive=True, group="diff", exit_on_error=False)
    def _read(self, diff: AttemptDiff) -> None:
        try:
            text = committed_diff(diff.workspace)
        except NotFound as error:
            self.app.call_from_thread(self._failed, diff, error.message)
            return
        hint = f"harn work diff {diff.work_id} --run {diff.run_id} prints all of it"
        lines, kinds = shown_lines(text, hint)
        self.app.call_from_thread(self._loaded, diff, lines, kinds)

    def _loaded(self, diff: AttemptDiff, lines: list[str], kinds: list[DiffLineKind]) -> None:
        if diff is not self.shown:
            return  # the operator stepped on while git was reading
        view = self.query_one(DiffView)
        if not lines:
            lines, kinds = ["(the attempt committed no change)"], ["context"]
        view.show(lines, kinds)
        self.loaded = diff
        set_border(view, title=f"Diff · {len(lines)} lines")

    def _failed(self, diff: AttemptDiff, message: str) -> None:
        if diff is not self.shown:
            return
        view = self.query_one(DiffView)
        view.show([visible(message)], ["context"])
        self.loaded = diff
        set_border(view, title="Diff · cannot be read")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step":
            step = parameters[0]
            return isinstance(step, int) and 0 <= self.index + step < len(self.diffs)
        return True

    def action_step(self, step: int) -> None:
        target = self.index + step
        if 0 <= target < len(self.diffs):
            self._show(target)

    def action_back(self) -> None:
        self.dismiss(None)
