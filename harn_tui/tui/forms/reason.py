"""A modal form for one reason: reject, retry, deny, cancel. Live counter, bounds checked before dispatch."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Static

from harn_tui.core.records.common import REASON_MAX
from harn_tui.tui.forms.base import TransitionForm
from harn_tui.tui.forms.validators import HINT, counter_text, reason_bound
from harn_tui.tui.text import literal


@dataclass(frozen=True)
class ReasonAnswer:
    reason: str | None


class ReasonForm(TransitionForm[ReasonAnswer | None]):
    """`allowed=False` shows the context (e.g. why a retry is not eligible) with the submit button disabled."""

    BINDINGS = [Binding("escape", "cancel", "Back"), Binding("ctrl+s", "submit", "Submit")]

    def __init__(
        self,
        title: str,
        context: Content,
        *,
        required: bool,
        submit_label: str,
        allowed: bool = True,
        placeholder: str = "",
    ) -> None:
        super().__init__(classes="form")
        self.form_title = title
        self.context = context
        self.required = required
        self.submit_label = submit_label
        self.allowed = allowed
        self.placeholder = placeholder or ("reason (required)" if required else "reason (optional)")

    def compose(self) -> ComposeResult:
        with Vertical(classes="form-box"):
            yield Static(literal(self.form_title, "bold"), classes="form-title")
            yield self.refusal_line()
            with VerticalScroll(classes="form-context"):
                yield Static(self.context)
            yield Input(
                placeholder=self.placeholder,
                id="reason",
                validators=[reason_bound(self.required)],
                disabled=not self.allowed,
                compact=True,
            )
            with Horizontal(classes="form-status"):
                yield Static(counter_text("", REASON_MAX), id="counter", classes="counter")
                yield Static("", id="error", classes="form-error")
            yield Static(literal(HINT), classes="form-hint")
            with Horizontal(classes="form-buttons"):
                yield Button(self.submit_label, id="submit", variant="primary", disabled=not self.allowed, compact=True)
                yield Button("Back · esc", id="back", compact=True)

    def on_mount(self) -> None:
        if self.allowed:
            self.query_one("#reason", Input).focus()
        else:
            self.query_one("#back", Button).focus()

    @on(Input.Changed, "#reason")
    def _changed(self, event: Input.Changed) -> None:
        counter = self.query_one("#counter", Static)
        counter.update(counter_text(event.value, REASON_MAX))
        counter.set_class(len(event.value.strip()) > REASON_MAX, "-over")
        result = event.validation_result
        shown = "" if result is None or result.is_valid or not event.value else "; ".join(result.failure_descriptions)
        self.query_one("#error", Static).update(literal(shown))

    @on(Input.Submitted, "#reason")
    @on(Button.Pressed, "#submit")
    def action_submit(self) -> None:
        if not self.allowed:
            self.app.bell()
            return
        field = self.query_one("#reason", Input)
        result = field.validate(field.value)
        if result is not None and not result.is_valid:
            self.query_one("#error", Static).update(literal("; ".join(result.failure_descriptions)))
            self.app.bell()
            return
        text = field.value.strip()
        self.dismiss(ReasonAnswer(text or None))

    @on(Button.Pressed, "#back")
    def action_cancel(self) -> None:
        self.dismiss(None)
