"""The agent asks the user for input (`elicitation/create`): a form built from the restricted
JSON Schema, or a URL to visit. Accept checks the form first (errors show under each field);
Decline and Cancel (Esc) answer without content. Everything the agent wrote is shown as plain
text, never as markup."""

from __future__ import annotations

import webbrowser

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static
from textual.widgets.selection_list import Selection

from acp_tui.composer.elicitation import (
    CANCEL,
    DECLINE,
    FormField,
    PendingElicitation,
    validate_form,
)
from acp_tui.ui.plain import notify


class ElicitationScreen(ModalScreen[dict[str, object]]):
    """The agent asks the user to fill in a form (`elicitation/create`): fields from its schema,
    checked before sending; dismisses with the answer."""

    DEFAULT_CSS = """
    ElicitationScreen { align: center middle; }
    ElicitationScreen > Vertical {
        width: 90; max-width: 95%; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    ElicitationScreen #message { margin-bottom: 1; }
    ElicitationScreen #title { text-style: bold; }
    ElicitationScreen VerticalScroll { height: auto; max-height: 75vh; }
    ElicitationScreen .label { margin-top: 1; text-style: bold; }
    ElicitationScreen .help { color: $text-muted; }
    ElicitationScreen .error { color: $error; height: auto; }
    ElicitationScreen SelectionList { height: auto; max-height: 8; }
    ElicitationScreen #url { color: $text-accent; margin-bottom: 1; }
    ElicitationScreen #buttons { height: auto; margin-top: 1; }
    ElicitationScreen #waiting-count { color: $text-muted; margin-top: 1; display: none; }
    ElicitationScreen #waiting-count.-waiting { display: block; }
    ElicitationScreen Button { margin-right: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "cancel")]

    def __init__(self, pending: PendingElicitation, *, waiting: int = 0) -> None:
        super().__init__()
        self.pending = pending
        self.waiting = waiting
        """How many more questions of the agent wait behind this one (shown one at a time)."""

    def compose(self) -> ComposeResult:
        pending = self.pending
        with Vertical():
            if pending.title:
                yield Static(Text(pending.title), id="title")
            yield Static(Text(pending.message), id="message")
            if pending.mode == "url":
                yield Static(Text(pending.url), id="url")
                yield Static(Text("Waiting for the agent…", style="dim"), id="waiting")
                with Horizontal(id="buttons"):
                    yield Button("Open in browser", id="accept", variant="primary")
                    yield Button("Decline", id="decline")
                    yield Button("Cancel (esc)", id="cancel")
                yield self._waiting_count()
                return
            with VerticalScroll():
                for spec in pending.fields:
                    yield from self._field(spec)
            with Horizontal(id="buttons"):
                yield Button("Accept", id="accept", variant="primary")
                yield Button("Decline", id="decline")
                yield Button("Cancel (esc)", id="cancel")
            yield self._waiting_count()

    def _waiting_count(self) -> Static:
        return Static(
            self._waiting_text(), id="waiting-count", classes="-waiting" * bool(self.waiting)
        )

    def _waiting_text(self) -> Text:
        count = self.waiting
        return Text(f"{count} more question{'s' * (count != 1)} waiting" if count else "")

    def set_waiting(self, count: int) -> None:
        """The number of questions waiting behind this one changed."""
        self.waiting = count
        if self.is_mounted and self.query("#waiting-count"):
            shown = self.query_one("#waiting-count", Static)
            shown.update(self._waiting_text())
            shown.set_class(bool(count), "-waiting")

    def _field(self, spec: FormField) -> ComposeResult:
        label = Text(spec.title + (" *" if spec.required else ""))
        if spec.kind != "boolean":
            yield Static(label, classes="label")
        if spec.description:
            yield Static(Text(spec.description), classes="help")
        widget_id = f"field-{spec.name}"
        default = spec.default
        if spec.kind == "boolean":
            yield Checkbox(label, value=default is True, id=widget_id)
        elif spec.kind == "enum":
            options = [(Text(c.title), c.value) for c in spec.choices]
            value = default if any(c.value == default for c in spec.choices) else Select.NULL
            yield Select(options, value=value, id=widget_id, allow_blank=True)
        elif spec.kind == "multi":
            chosen = set(default) if isinstance(default, list) else set()
            yield SelectionList[str](
                *(Selection(Text(c.title), c.value, c.value in chosen) for c in spec.choices),
                id=widget_id,
            )
        else:
            kind = spec.kind
            placeholder = {"integer": "an integer", "number": "a number"}.get(
                kind, spec.format or ""
            )
            text = "" if default is None or isinstance(default, bool) else str(default)
            yield Input(text, placeholder=placeholder, id=widget_id)
        yield Static("", classes="error", id=f"error-{spec.name}")

    def on_mount(self) -> None:
        self.pending.on_complete.append(self._completed)
        self.pending.future.add_done_callback(lambda _: self._answered_elsewhere())
        focusable = self.query("Input, Checkbox, Select, SelectionList, Button")
        if focusable:
            focusable.first().focus()

    def raw_values(self) -> dict[str, object]:
        """The values typed in each field, before validation."""
        values: dict[str, object] = {}
        for spec in self.pending.fields:
            widget = self.query_one(f"#field-{spec.name}")
            if isinstance(widget, Input | Checkbox):
                values[spec.name] = widget.value
            elif isinstance(widget, Select):
                values[spec.name] = None if widget.value is Select.NULL else widget.value
            elif isinstance(widget, SelectionList):
                values[spec.name] = list(widget.selected)
        return values

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "decline":
            self._answer(DECLINE)
        elif event.button.id == "cancel":
            self._answer(CANCEL)
        elif self.pending.mode == "url":
            self._open_url()
        else:
            self.accept()

    def accept(self) -> bool:
        """Send the form if every field is valid; otherwise show the errors beside the fields and
        return False."""
        content, errors = validate_form(self.pending.fields, self.raw_values())
        for spec in self.pending.fields:
            self.query_one(f"#error-{spec.name}", Static).update(Text(errors.get(spec.name, "")))
        if errors:
            return False
        self._answer({"action": "accept", "content": content})
        return True

    def _open_url(self) -> None:
        try:
            webbrowser.open(self.pending.url)
        except webbrowser.Error:
            notify(self, "Could not open a browser; copy the URL instead.")
        # accepted: the agent now waits for the interaction and says when it is complete
        self.pending.answer({"action": "accept"})
        self.query_one("#accept", Button).disabled = True

    def _completed(self) -> None:
        if self.is_attached:
            self.dismiss({"action": "accept"})

    def _answer(self, result: dict[str, object]) -> None:
        self.pending.answer(result)
        if self.is_attached:
            self.dismiss(result)

    def _answered_elsewhere(self) -> None:
        # a cancelled turn answers for the user: close the form (URL mode stays until complete)
        if self.is_attached and self.pending.mode == "form" and self.is_current:
            self.dismiss(self.pending.future.result())

    def action_cancel(self) -> None:
        self._answer(CANCEL)
