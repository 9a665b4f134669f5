"""A modal that asks the user one host question (outside-cwd access, overwrite, ...).

Guarded like every question (`QuestionKeys`): a key typed as it arrives, or while the user is
typing (or was, a few seconds before), answers nothing and goes to the composer; such a question
waits until the user chooses it (f4, or a click), and says so.
"""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from acp_tui.host.asker import Question
from acp_tui.ui.key_guard import CHOOSE_KEY, QuestionKeys
from acp_tui.ui.widgets.guard_hint import GuardHint


class QuestionScreen(ModalScreen[str | None]):
    """Dismisses with the chosen choice id, or None on Esc (the caller treats it as the last,
    most cautious choice)."""

    DEFAULT_CSS = """
    QuestionScreen { align: center middle; }
    QuestionScreen > Vertical {
        width: 90; max-width: 95%; height: auto;
        border: thick $warning; background: $surface; padding: 1 2;
    }
    QuestionScreen #title { text-style: bold; margin-bottom: 1; }
    QuestionScreen #detail { margin-bottom: 1; }
    QuestionScreen Horizontal { height: auto; }
    QuestionScreen Button { margin-right: 1; }
    """
    BINDINGS = [
        Binding("escape", "dismiss_none", "cancel"),
        Binding(CHOOSE_KEY, "choose_question", "answer here", show=False),
    ]

    def __init__(self, question: Question) -> None:
        super().__init__()
        self.question = question
        self.keys = QuestionKeys()
        self.answered = False
        """Dismissed already: a key queued behind the answering one answers nothing (a second
        dismiss popped the screen below, and the app ended with ScreenStackError)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question.title, id="title", markup=False)
            yield Static(self.question.detail, id="detail", markup=False)
            yield GuardHint(self.keys)
            with Horizontal():
                for index, choice in enumerate(self.question.choices):
                    label = Text(f"{choice.label} ({choice.key})" if choice.key else choice.label)
                    yield Button(
                        label, id=f"choice-{index}", variant="primary" if index == 0 else "default"
                    )

    def on_mount(self) -> None:
        """Arm the key guard (the question arrived now) and focus the first choice."""
        self.keys.arm(self.app)
        self.query(Button).first().focus()

    def on_click(self) -> None:
        """A click on the question chooses it (a click on a choice answers it too)."""
        self.keys.choose()

    def action_choose_question(self) -> None:
        """f4: the user goes to the question on purpose; its keys answer it from now on."""
        self.keys.choose()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Dismiss with the id of the pressed choice."""
        event.stop()
        index = int((event.button.id or "choice-0").removeprefix("choice-"))
        self._answer(self.question.choices[index].id)

    def on_key(self, event: events.Key) -> None:
        """A choice's own key answers with that choice, unless the guard holds the key (it goes
        to the composer then)."""
        if self.keys.hold(event, focus=False):
            return
        for choice in self.question.choices:
            if choice.key and event.key == choice.key:
                self._answer(choice.id)
                return

    def action_dismiss_none(self) -> None:
        """Dismiss without an answer."""
        self._answer(None)

    def _answer(self, choice_id: str | None) -> None:
        if not self.answered:
            self.answered = True
            self.dismiss(choice_id)
