"""The accept form: one row per open finding, disposed as fixed or deferred (a deferral needs a reason)."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Button, Input, Select, Static

from harn_tui.core.records import Finding
from harn_tui.tui.forms.base import TransitionForm
from harn_tui.tui.forms.validators import HINT, reason_bound
from harn_tui.tui.text import literal


@dataclass(frozen=True)
class AcceptAnswer:
    dispositions: list[tuple[str, str, str | None]]
    reason: str | None


class FindingRow(Vertical):
    """A finding, its fixed/deferred choice, and the deferral reason."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(classes="finding-row")
        self.finding = finding

    def compose(self) -> ComposeResult:
        yield Static(
            Content.assemble(
                (f"{self.finding.id} ", "bold"),
                ("by ", "dim"),
                literal(self.finding.actor),
                ": ",
                literal(self.finding.statement, multiline=True),
            )
        )
        with Horizontal(classes="finding-choice"):
            yield Select(
                [("fixed", "fixed"), ("deferred", "deferred")],
                prompt="fixed or deferred?",
                id=f"choice-{self.finding.id}",
                classes="disposition",
                compact=True,
            )
            yield Input(
                placeholder="reason for deferring",
                id=f"why-{self.finding.id}",
                classes="defer-reason",
                validators=[reason_bound(False)],
                compact=True,
            )

    def choice(self) -> str | None:
        value = self.query_one(Select).value
        return value if isinstance(value, str) else None

    def problem_or_disposition(self) -> tuple[str | None, tuple[str, str, str | None] | None]:
        choice = self.choice()
        field = self.query_one(".defer-reason", Input)
        reason = field.value.strip()
        if choice is None:
            return f"{self.finding.id}: choose fixed or deferred", None
        result = field.validate(field.value)
        if result is not None and not result.is_valid:
            return f"{self.finding.id}: " + "; ".join(result.failure_descriptions), None
        if choice == "deferred" and not reason:
            return f"{self.finding.id}: deferring needs a reason", None
        return None, (self.finding.id, choice, reason if choice == "deferred" else None)


class AcceptForm(TransitionForm[AcceptAnswer | None]):
    BINDINGS = [Binding("escape", "cancel", "Back"), Binding("ctrl+s", "submit", "Accept")]

    def __init__(self, work_id: str, context: Content, findings: list[Finding]) -> None:
        super().__init__(classes="form")
        self.work_id = work_id
        self.context = context
        self.findings = findings
        self.problems_shown = False

    def compose(self) -> ComposeResult:
        with Vertical(classes="form-box"):
            yield Static(literal(f"Accept work {self.work_id}", "bold"), classes="form-title")
            yield self.refusal_line()
            with VerticalScroll(classes="form-context"):
                yield Static(self.context)
            with VerticalScroll(classes="form-rows"):
                if not self.findings:
                    yield Static(literal("No open findings: nothing to dispose."), classes="form-hint")
                for finding in self.findings:
                    yield FindingRow(finding)
            yield Input(placeholder="reason (optional)", id="reason", validators=[reason_bound(False)], compact=True)
            yield Static("", id="error", classes="form-error")
            yield Static(literal(HINT), classes="form-hint")
            with Horizontal(classes="form-buttons"):
                yield Button("Accept", id="submit", variant="success", compact=True)
                yield Button("Back · esc", id="back", compact=True)

    def on_mount(self) -> None:
        rows = list(self.query(Select))
        (rows[0] if rows else self.query_one("#reason", Input)).focus()

    def _problems(self) -> tuple[list[str], list[tuple[str, str, str | None]]]:
        problems: list[str] = []
        dispositions: list[tuple[str, str, str | None]] = []
        for row in self.query(FindingRow):
            problem, disposition = row.problem_or_disposition()
            if problem:
                problems.append(problem)
            elif disposition is not None:
                dispositions.append(disposition)
        reason = self.query_one("#reason", Input)
        result = reason.validate(reason.value)
        if result is not None and not result.is_valid:
            problems.append("; ".join(result.failure_descriptions))
        return problems, dispositions

    def _show(self, problems: list[str]) -> None:
        self.problems_shown = bool(problems)
        self.query_one("#error", Static).update(literal("\n".join(problems), multiline=True))

    @on(Select.Changed)
    @on(Input.Changed)
    def _recheck(self) -> None:
        """Once problems are shown, each change re-checks them: a problem the operator has just mended goes."""
        if self.problems_shown:
            self._show(self._problems()[0])

    @on(Input.Submitted, "#reason")
    @on(Button.Pressed, "#submit")
    def action_submit(self) -> None:
        problems, dispositions = self._problems()
        if problems:
            self._show(problems)
            self.app.bell()
            return
        reason = self.query_one("#reason", Input).value.strip()
        self.dismiss(AcceptAnswer(dispositions, reason or None))

    @on(Button.Pressed, "#back")
    def action_cancel(self) -> None:
        self.dismiss(None)
