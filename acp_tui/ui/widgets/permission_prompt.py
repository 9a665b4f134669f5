"""A permission request, shown in the card of the tool call it concerns: the options as buttons.

The prompt renders a `PermissionAsk` of a `ToolCallEntry` (the session model): the title, kind
and diff come from the merged tool call, not from the request. Keys are bindings with ids, so
the `keymap` setting covers them: a allow once, A allow always, r reject once, R reject always
(the first option of each kind), and 1-9 for every option in order, so two options of the same
kind each have a key. ←/→ move between the buttons, Enter presses one.

Focus: a prompt takes the focus when it mounts (in `on_mount`, when its buttons exist) unless
the user is already answering another open prompt; the default button is allow-once (else
reject-once, else the first option that is not allow-always), never allow-always.

No key meant for something else answers it: it is guarded like every question
(`QuestionKeys`). A prompt that arrives while the user is typing in the composer, or a few
seconds after, does not take the focus: it waits to be chosen (f4, or a click on it) and says
so. Otherwise it takes the focus, and keys that reach it within the guard's hold, or while the
user goes on typing, are not answers: they go back to the composer with the focus, and the
prompt waits to be chosen from then on. f4 (going there on purpose) is not held.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Button, Static

from acp_tui.protocol.models import Diff, PatchDiff
from acp_tui.thread.entries import ToolCallEntry
from acp_tui.thread.permission import OptionLike, PermissionAsk
from acp_tui.ui.key_guard import QuestionKeys
from acp_tui.ui.textual_internals import bound_keys
from acp_tui.ui.textual_internals.wrap_layout import WrapRow
from acp_tui.ui.widgets.guard_hint import GuardHint

KIND_BINDINGS = {
    "allow_once": ("a", "permission.allow-once"),
    "allow_always": ("A", "permission.allow-always"),
    "reject_once": ("r", "permission.reject-once"),
    "reject_always": ("R", "permission.reject-always"),
}
KIND_VARIANTS = {
    "allow_once": "success",
    "allow_always": "primary",
    "reject_once": "warning",
    "reject_always": "error",
}
NUMBERED = 9
DEFAULT_KINDS = ("allow_once", "reject_once")


def default_option_index(options: list[OptionLike]) -> int | None:
    """The button focused first: allow-once, else reject-once, else the first option that is
    not allow-always; None if every option is allow-always."""
    for kind in DEFAULT_KINDS:
        for index, option in enumerate(options):
            if option.kind == kind:
                return index
    return next((i for i, o in enumerate(options) if o.kind != "allow_always"), None)


def option_keys(options: list[OptionLike]) -> list[tuple[str, str]]:
    """(binding id, default key) per option: the kind's letter for the first option of each
    kind, the option's number for the others (and beyond those, none)."""
    keys: list[tuple[str, str]] = []
    taken: set[str] = set()
    for index, option in enumerate(options):
        by_kind = KIND_BINDINGS.get(option.kind)
        if by_kind is not None and option.kind not in taken:
            taken.add(option.kind)
            keys.append((by_kind[1], by_kind[0]))
        elif index < NUMBERED:
            keys.append((f"permission.option-{index + 1}", str(index + 1)))
        else:
            keys.append(("", ""))
    return keys


def _has_diff(entry: ToolCallEntry) -> bool:
    return any(isinstance(item, Diff | PatchDiff) for item in entry.content)


class PermissionPrompt(Vertical, can_focus=True):
    """An open permission request inside its tool call's card: the options as buttons and keys,
    and what "always" would cover (once answered, the card draws the answer instead)."""

    DEFAULT_CSS = """
    PermissionPrompt {
        height: auto;
        border: heavy $warning;
        padding: 0 1;
        margin: 1 0 0 0;
        background: $warning 8%;
    }
    PermissionPrompt:focus-within, PermissionPrompt:focus { border: heavy $accent; }
    PermissionPrompt #question { text-style: bold; }
    PermissionPrompt Horizontal { height: auto; }
    PermissionPrompt Button { margin-right: 1; min-width: 12; }

    PermissionPrompt .covers { color: $text-muted; }
    """

    BINDINGS = [
        *[
            Binding(key, f"choose_kind('{kind}')", kind.replace("_", " "), id=id_)
            for kind, (key, id_) in KIND_BINDINGS.items()  # (in the footer while focused)
        ],
        *[
            Binding(
                str(n),
                f"choose_number({n})",
                f"option {n}",
                show=False,
                id=f"permission.option-{n}",
            )
            for n in range(1, NUMBERED + 1)
        ],
        Binding("left", "move(-1)", "previous option", show=False, id="permission.previous"),
        Binding("right", "move(1)", "next option", show=False, id="permission.next"),
    ]

    def __init__(self, entry: ToolCallEntry, ask: PermissionAsk) -> None:
        super().__init__()
        self.entry = entry
        self.ask = ask
        self.options: list[OptionLike] = list(ask.options)
        self.keys = QuestionKeys()

    # ---- what it shows -------------------------------------------------------------------------

    def _key(self, binding_id: str, default: str) -> str:
        """The key bound to `binding_id` now (the keymap setting may have changed it)."""
        keys = bound_keys(self.app, binding_id, default) if binding_id else ""
        return keys.split(",")[0].strip()

    def compose(self) -> ComposeResult:
        question = Text("⚠ The agent asks permission", style="bold")
        if self.entry.title:
            question.append(f": {self.entry.title}")
        question.append(f"  ({self.entry.kind})", style="dim")
        yield Static(question, id="question")
        keys = [self._key(binding_id, key) for binding_id, key in option_keys(self.options)]
        with WrapRow(id="options"):  # buttons that do not fit in one line wrap to the next
            for index, (option, key) in enumerate(zip(self.options, keys, strict=True)):
                label = Text(f"{option.name} ({key})" if key else option.name)
                yield Button(
                    label,
                    id=f"option-{index}",
                    variant=KIND_VARIANTS.get(option.kind, "default"),  # type: ignore[arg-type]
                )
        if any(o.kind.endswith("_always") for o in self.options) and self.ask.covers:
            yield Static(Text(f"“always” remembers: {self.ask.covers}"), classes="covers")
        # each button names its key already; the hint says the rest, in a line or two at 80 columns
        hint = "d full diff · " if _has_diff(self.entry) else ""
        numbered = len(self.options)
        hint += f"1-{numbered} an option · " if numbered > 1 else ""
        yield Static(Text(hint + "←/→ enter · esc cancels the turn", style="dim"), classes="hint")
        yield GuardHint(self.keys)

    # ---- focus ---------------------------------------------------------------------------------

    def on_mount(self) -> None:
        """The question arrived: take the focus unless the user answers another open prompt,
        or the prompt waits to be chosen (the user was typing)."""
        # The buttons exist now: taking the focus here cannot hit an unmounted widget.
        if not self.ask.open:
            return
        if self._user_is_answering_another():
            self.keys.arm(self.app)  # (it comes up again by itself once that one is answered)
            return
        self.take_focus(armed=True)

    def _user_is_answering_another(self) -> bool:
        focused = self.screen.focused
        while focused is not None:
            if isinstance(focused, PermissionPrompt):
                return focused is not self and focused.ask.open
            focused = focused.parent if isinstance(focused.parent, Widget) else None
        return False

    def default_button(self) -> Button | None:
        """The button focused first (`default_option_index`: allow-once, else reject-once, ...),
        while the request is open."""
        index = default_option_index(self.options)
        if index is None or not self.ask.open:
            return None
        found = self.query(f"#option-{index}")
        return found.first(Button) if found else None

    def take_focus(self, *, armed: bool = False) -> bool:
        """Focus the default button (or the prompt itself) and bring it into view; True if it
        did. `armed`: the prompt comes up by itself (`QuestionKeys.arm`): not if it waits to be
        chosen, and keys are held for a moment; not armed: the user came here on purpose (f4,
        a click), its keys answer at once."""
        if armed:
            self.keys.arm(self.app)
            if self.keys.waits():
                self.scroll_visible()
                return False
        else:
            self.keys.choose()
        # Set now, not with `focus()` (which defers to the app's queue): a key the user presses
        # once the prompt is on screen must not reach the prompt box in between.
        button = self.default_button()
        if button is not None:
            self.screen.set_focus(button)
        elif self.ask.open:
            self.screen.set_focus(self)
        self.scroll_visible()
        return True

    def on_focus(self) -> None:
        """Pass the focus on to the default button."""
        button = self.default_button()
        if button is not None:
            button.focus()

    def on_key(self, event: events.Key) -> None:
        """A key too soon after the prompt took the focus, or in a run of typing: not an answer;
        it goes to the composer, and so does the focus (the prompt waits to be chosen)."""
        self.keys.hold(event, focus=True)

    def on_click(self) -> None:
        """A click on the prompt chooses it (a click on an option answers it too)."""
        if self.ask.open and not self.keys.chosen:
            self.take_focus()

    # ---- answering -----------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A kind no option has is not offered (nor shown in the footer)."""
        if action == "choose_kind":
            return any(o.kind == parameters[0] for o in self.options)
        return True

    def action_choose_kind(self, kind: str) -> None:
        """Answer with the option of that kind (allow once, allow always, reject ...), if
        offered.
        """
        option = next((o for o in self.options if o.kind == kind), None)
        if option is not None:
            self.choose(option.option_id)

    def action_choose_number(self, number: int) -> None:
        """Answer with the option of that number (1-based), if there is one."""
        if 1 <= number <= len(self.options):
            self.choose(self.options[number - 1].option_id)

    def action_move(self, step: int) -> None:
        """Move the focus `step` buttons along, wrapping round."""
        buttons = list(self.query(Button))
        focused = self.screen.focused
        if focused in buttons:
            buttons[(buttons.index(focused) + step) % len(buttons)].focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Answer with the pressed button's option."""
        event.stop()
        index = int((event.button.id or "option-0").removeprefix("option-"))
        self.choose(self.options[index].option_id)

    def choose(self, option_id: str) -> None:
        """Answer the request with `option_id`."""
        self.ask.choose(option_id)
