"""A permission request, shown at the tool call it concerns: the agent's options as buttons.

Keys by option kind: a allow once, A allow always, r reject once, R reject always; arrows move
between the buttons and Enter presses one. Only the kinds offered are shown.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Static

from acp_tui.host.permissions import PendingPermission

KIND_KEYS = {"allow_once": "a", "allow_always": "A", "reject_once": "r", "reject_always": "R"}
KIND_VARIANTS = {
    "allow_once": "success",
    "allow_always": "primary",
    "reject_once": "warning",
    "reject_always": "error",
}


class PermissionPrompt(Vertical, can_focus=True):
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
    PermissionPrompt .answered { color: $text-muted; }
    PermissionPrompt.-answered { border: round $primary 40%; background: transparent; }
    """

    def __init__(self, pending: PendingPermission, position: int = 1) -> None:
        super().__init__()
        self.pending = pending
        self.position = position

    def compose(self) -> ComposeResult:
        title = self.pending.tool_call.get("title")
        question = Text("⚠ The agent asks permission", style="bold")
        if isinstance(title, str) and title:
            question.append(f": {title}")
        yield Static(question, id="question")
        with Horizontal(id="options"):
            for index, option in enumerate(self.pending.options):
                key = KIND_KEYS.get(option.kind)
                label = Text(f"{option.name} ({key})" if key else option.name)
                yield Button(
                    label,
                    id=f"option-{index}",
                    variant=KIND_VARIANTS.get(option.kind, "default"),  # type: ignore[arg-type]
                )
        hint = "keys: " + " · ".join(
            f"{KIND_KEYS[o.kind]} {o.name}" for o in self.pending.options if o.kind in KIND_KEYS
        )
        has_diff = any(
            isinstance(item, dict) and item.get("type") == "diff"
            for item in self.pending.tool_call.get("content") or []
        )
        hint += " · d full diff" if has_diff else ""
        yield Static(Text(hint + " · ←/→ and enter · esc cancels the turn", style="dim"))

    def on_focus(self) -> None:
        buttons = list(self.query(Button))
        if buttons:
            buttons[0].focus()

    def on_key(self, event: events.Key) -> None:
        key = event.character if event.character in ("a", "A", "r", "R") else None
        if key is not None:
            for option in self.pending.options:
                if KIND_KEYS.get(option.kind) == key:
                    event.stop()
                    self.choose(option.option_id)
                    return
        if event.key in ("left", "right"):
            buttons = list(self.query(Button))
            focused = self.screen.focused
            if focused in buttons:
                step = 1 if event.key == "right" else -1
                buttons[(buttons.index(focused) + step) % len(buttons)].focus()
                event.stop()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        index = int((event.button.id or "option-0").removeprefix("option-"))
        self.choose(self.pending.options[index].option_id)

    def choose(self, option_id: str) -> None:
        self.pending.select(option_id)
        self.show_answer()

    def show_answer(self) -> None:
        """Replace the buttons with what was answered (the future holds the outcome)."""
        future = self.pending.future
        if not future.done() or self.has_class("-answered"):
            return
        outcome = {} if future.cancelled() else future.result().get("outcome", {})
        if outcome.get("outcome") == "selected":
            chosen = next(
                (o for o in self.pending.options if o.option_id == outcome.get("optionId")), None
            )
            text = Text(f"✓ answered: {chosen.name if chosen else outcome.get('optionId')}")
        else:
            text = Text("⊘ cancelled")
        self.add_class("-answered")
        self.can_focus = False
        self.remove_children()
        self.mount(Static(text, classes="answered"))
