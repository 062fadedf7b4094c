"""The reopen form: up to 20 findings (each 1..1,000 characters) and an optional reason.

No findings keeps the item's open set; findings given replace it and reach the next attempt's manifest.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Static

from harn_tui.core.records.common import FINDINGS_MAX
from harn_tui.tui.forms.base import TransitionForm
from harn_tui.tui.forms.validators import HINT, finding_bound, reason_bound
from harn_tui.tui.text import literal


@dataclass(frozen=True)
class ReopenAnswer:
    findings: list[str]
    reason: str | None


class ReopenForm(TransitionForm[ReopenAnswer | None]):
    BINDINGS = [
        Binding("escape", "cancel", "Back"),
        Binding("ctrl+n", "add_finding", "Add finding"),
        Binding("ctrl+s", "submit", "Reopen"),
    ]

    def __init__(self, work_id: str, context: Content) -> None:
        super().__init__(classes="form")
        self.work_id = work_id
        self.context = context
        self.count = 0

    def compose(self) -> ComposeResult:
        with Vertical(classes="form-box"):
            yield Static(literal(f"Reopen work {self.work_id}", "bold"), classes="form-title")
            yield self.refusal_line()
            with VerticalScroll(classes="form-context"):
                yield Static(self.context)
            with VerticalScroll(id="findings", classes="form-rows"):
                yield self._finding_input()
            yield Input(placeholder="reason (optional)", id="reason", validators=[reason_bound(False)], compact=True)
            yield Static(
                literal(
                    "enter in the last finding (or ctrl+n) adds another; blank rows are ignored; no "
                    "findings keeps the open set"
                ),
                classes="form-hint",
            )
            yield Static("", id="error", classes="form-error")
            yield Static(literal(HINT), classes="form-hint")
            with Horizontal(classes="form-buttons"):
                yield Button("Reopen", id="submit", variant="primary", compact=True)
                yield Button("Add finding · ctrl+n", id="add", compact=True)
                yield Button("Back · esc", id="back", compact=True)

    def _finding_input(self) -> Input:
        self.count += 1
        return Input(
            placeholder=f"finding {self.count}",
            id=f"finding-{self.count}",
            classes="finding",
            validators=[finding_bound()],
            compact=True,
        )

    def on_mount(self) -> None:
        self.query_one("#finding-1", Input).focus()

    @on(Button.Pressed, "#add")
    async def action_add_finding(self) -> None:
        if self.count >= FINDINGS_MAX:
            self.query_one("#error", Static).update(literal(f"a reopen takes at most {FINDINGS_MAX} findings"))
            self.app.bell()
            return
        field = self._finding_input()
        await self.query_one("#findings", VerticalScroll).mount(field)
        field.focus()

    @on(Input.Submitted, ".finding")
    async def _next(self, event: Input.Submitted) -> None:
        fields = list(self.query(".finding").results(Input))
        if event.input is fields[-1] and event.value.strip():
            await self.action_add_finding()
        else:
            self.focus_next()

    @on(Input.Submitted, "#reason")
    @on(Button.Pressed, "#submit")
    def action_submit(self) -> None:
        problems: list[str] = []
        findings: list[str] = []
        for number, field in enumerate(self.query(".finding").results(Input), start=1):
            result = field.validate(field.value)
            if result is not None and not result.is_valid:
                problems.append(f"finding {number}: " + "; ".join(result.failure_descriptions))
            elif field.value.strip():
                findings.append(field.value.strip())
        reason = self.query_one("#reason", Input)
        result = reason.validate(reason.value)
        if result is not None and not result.is_valid:
            problems.append("; ".join(result.failure_descriptions))
        if problems:
            self.query_one("#error", Static).update(literal("\n".join(problems), multiline=True))
            self.app.bell()
            return
        self.dismiss(ReopenAnswer(findings, reason.value.strip() or None))

    @on(Button.Pressed, "#back")
    def action_cancel(self) -> None:
        self.dismiss(None)
