"""The agent asks the user for input (`elicitation/create`): a form built from the restricted
JSON Schema, or a URL to visit. Accept checks the form first (errors show under each field);
Decline and Cancel (Esc) answer without content. Everything the agent wrote is shown as plain
text, never as markup (and made safe where it entered, `client/elicitation.py`).

Enter in a text field goes to the next text field and, from the last one, accepts (Tab reaches
every field and button). The form is guarded like every question (`QuestionKeys`): it takes no
key for a moment after it appears, nor while the user goes on typing; no field is focused until
then, and what the user typed goes to the composer under the form, where they were typing. A
form that arrives while the user types (or a few seconds after) waits until they choose it: f4,
or a click."""

from __future__ import annotations

import re
import webbrowser

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.timer import Timer
from textual.widgets import Button, Checkbox, Input, Select, SelectionList, Static
from textual.widgets.selection_list import Selection

from acp_tui.client.elicitation import (
    CANCEL,
    DECLINE,
    FormField,
    PendingElicitation,
    validate_form,
)
from acp_tui.ui.key_guard import CHOOSE_KEY, QuestionKeys
from acp_tui.ui.plain import notify
from acp_tui.ui.widgets.guard_hint import GuardHint

FORM_KEYS = "enter next text field, accept from the last · tab next field · esc cancel"
RELEASE_POLL = 0.1  # seconds between looks at whether the form may take keys
_PLAIN_ID = re.compile(r"[A-Za-z0-9_]+")


class FormInput(Input):
    """A text field whose enter is taken with the key, not by a binding after it bubbled (a key
    typed right after enter would be in the value by then): Textual calls this `on_key` before
    the field's own handling, which `prevent_default` skips."""

    async def on_key(self, event: events.Key) -> None:
        if event.key != "enter":
            return
        event.stop()
        event.prevent_default()
        self.post_message(self.Submitted(self, self.value))


def field_id(index: int, name: str) -> str:
    """The widget id of a field: its property name when that makes an id (`field-name`), else
    its position (`field-3-`, which no name gives)."""
    return f"field-{name}" if _PLAIN_ID.fullmatch(name) else f"field-{index}-"


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
    ElicitationScreen #keys { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "cancel"),
        Binding(CHOOSE_KEY, "choose_question", "answer here", show=False),
    ]
    AUTO_FOCUS = ""  # nothing: a field gets the focus when the guard lets go (`_release`)

    def __init__(self, pending: PendingElicitation, *, waiting: int = 0) -> None:
        super().__init__()
        self.pending = pending
        self.ids = {spec.name: field_id(i, spec.name) for i, spec in enumerate(pending.fields)}
        self.taking_keys = False
        """False until the guard lets go: keys go to the composer, no field has the focus."""
        self.keys = QuestionKeys()
        self._releasing: Timer | None = None
        self.waiting = waiting
        """How many more questions of the agent wait behind this one (shown one at a time)."""

    def compose(self) -> ComposeResult:
        pending = self.pending
        with Vertical():
            if pending.title:
                yield Static(Text(pending.title), id="title")
            yield Static(Text(pending.message), id="message")
            if pending.mode == "url":
                yield Static(Text(pending.url_shown), id="url")
                yield Static(Text("Waiting for the agent…", style="dim"), id="waiting")
                yield GuardHint(self.keys)
                with Horizontal(id="buttons"):
                    yield Button("Open in browser", id="accept", variant="primary")
                    yield Button("Decline", id="decline")
                    yield Button("Cancel (esc)", id="cancel")
                yield self._waiting_count()
                return
            with VerticalScroll():
                for spec in pending.fields:
                    yield from self._field(spec)
            yield GuardHint(self.keys)
            with Horizontal(id="buttons"):
                yield Button("Accept", id="accept", variant="primary")
                yield Button("Decline", id="decline")
                yield Button("Cancel (esc)", id="cancel")
            yield Static(FORM_KEYS, id="keys", markup=False)
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
        widget_id = self.ids[spec.name]
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
            yield FormInput(text, placeholder=placeholder, id=widget_id)
        yield Static("", classes="error", id=f"error-{widget_id.removeprefix('field-')}")

    def on_mount(self) -> None:
        """Follow the request (closing if it is answered or withdrawn elsewhere), arm the key guard
        and hold the form until it is released.
        """
        self.pending.on_complete.append(self._completed)
        self.pending.future.add_done_callback(lambda _: self._answered_elsewhere())
        self.keys.arm(self.app)
        if not self._release():
            self._releasing = self.set_interval(RELEASE_POLL, self._release)

    def _release(self) -> bool:
        """Once the guard lets go: take keys, focus the first field (unless the user clicked
        one). True when done."""
        if self.taking_keys or self.keys.holds():
            return self.taking_keys
        self.taking_keys = True
        if self._releasing is not None:
            self._releasing.stop()
        focusable = self.query("Input, Checkbox, Select, SelectionList, Button")
        if focusable and self.focused is None:
            focusable.first().focus()
        return True

    def on_key(self, event: events.Key) -> None:
        """Before the form takes keys, a key fills and answers nothing: it goes to the composer
        (and the user typing on keeps the form waiting)."""
        if not self.taking_keys and not self._release():
            self.keys.hold(event, focus=False)

    def on_click(self) -> None:
        """A click on the form chooses it: it takes keys from now on."""
        self.action_choose_question()

    def action_choose_question(self) -> None:
        """f4: the user goes to the form on purpose."""
        self.keys.choose()
        self._release()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in a text field: the next text field, or accept from the last one."""
        event.stop()
        inputs = list(self.query(Input).results(Input))
        index = inputs.index(event.input) if event.input in inputs else len(inputs)
        if index + 1 < len(inputs):
            inputs[index + 1].focus()
        else:  # the value as it was at enter (a key typed right after it may be in already)
            name = next((n for n, i in self.ids.items() if i == event.input.id), None)
            self.accept({name: event.value} if name is not None else {})

    def raw_values(self) -> dict[str, object]:
        """The values typed in each field, before validation."""
        values: dict[str, object] = {}
        for spec in self.pending.fields:
            widget = self.query_one(f"#{self.ids[spec.name]}")
            if isinstance(widget, Input | Checkbox):
                values[spec.name] = widget.value
            elif isinstance(widget, Select):
                values[spec.name] = None if widget.value is Select.NULL else widget.value
            elif isinstance(widget, SelectionList):
                values[spec.name] = list(widget.selected)
        return values

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer by button: decline, cancel, open the URL (url mode) or submit the form."""
        event.stop()
        if event.button.id == "decline":
            self._answer(DECLINE)
        elif event.button.id == "cancel":
            self._answer(CANCEL)
        elif self.pending.mode == "url":
            self._open_url()
        else:
            self.accept()

    def accept(self, submitted: dict[str, object] | None = None) -> bool:
        """Send the form if every field is valid; otherwise show the errors beside the fields and
        return False. `submitted`: values that stand for their fields' (enter's)."""
        raw = {**self.raw_values(), **(submitted or {})}
        content, errors = validate_form(self.pending.fields, raw)
        for spec in self.pending.fields:
            error = Text(errors.get(spec.name, ""))
            self.query_one(f"#error-{self.ids[spec.name].removeprefix('field-')}", Static).update(
                error
            )
        if errors:
            first = next(spec for spec in self.pending.fields if spec.name in errors)
            self.query_one(f"#{self.ids[first.name]}").focus()
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
        """Answer the agent's request with "cancel"."""
        self._answer(CANCEL)
