"""The prompt editor: multi-line, Enter sends, a key for newline, history with up/down.

While the completion list (slash commands, @-mentions) is open, up/down move in it, Tab or Enter
take the highlighted item and Escape closes it; the prompt keeps focus throughout. A slash
command's input hint is shown as ghost text after `/name ` (it is never inserted). Pastes arrive
whole (bracketed paste): line endings are normalised and the text is inserted in one edit
(a pasted path to an image or audio file becomes an @-mention, see `Composer`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events
from textual.binding import Binding
from textual.message import Message
from textual.widgets import TextArea

from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.widgets.completion_list import Completion, CompletionList

if TYPE_CHECKING:
    from acp_tui.ui.early_prompt import EarlyPrompt

NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"})
COMPLETION_KEYS = frozenset({"up", "down", "tab", "enter", "escape"})
EDITING_KEYS = frozenset({"backspace", "delete", "enter", *NEWLINE_KEYS})


class PromptInput(TextArea):
    """Enter sends; Ctrl+J (or Shift/Alt+Enter where the terminal tells them apart) adds a line.

    Up on the first line and Down on the last line walk through the prompts sent before.

    Its `on_key` and `on_paste` see each key and paste before the text area does: Textual calls
    a subclass's handler first, and `prevent_default` keeps the text area's own from running
    (so Enter sends without inserting a line, with every key typed before it in the text).
    """

    DEFAULT_CSS = """
    PromptInput {
        height: auto;
        min-height: 3;
        max-height: 12;
        border: round $primary 50%;
        padding: 0 1;
    }
    PromptInput:focus { border: round $primary; }
    """
    BINDINGS = [
        Binding("ctrl+g", "open_editor", "edit in $EDITOR", show=False, id="prompt.editor"),
    ]

    @dataclass
    class Submitted(Message):
        """The user sent `text` (Enter)."""

        prompt_input: PromptInput
        text: str

    @dataclass
    class CompletionChosen(Message):
        """The user took the highlighted completion (Tab or Enter while the list is open)."""

        prompt_input: PromptInput
        completion: Completion

    class EditorRequested(Message):
        """Ctrl+G: the composer suspends the app and runs $EDITOR on the prompt."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.border_title = "Prompt"
        self.border_subtitle = "enter send · ctrl+j newline · ↑↓ history"
        self.sent_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""
        self.completion: CompletionList | None = None
        self.hint_source: Callable[[str], str | None] | None = None
        self.paste_transform: Callable[[str], str] | None = None
        self._hint_shown = False

    async def on_key(self, event: events.Key) -> None:
        """A key, before the text area acts on it (`prevent_default` where taken)."""
        if event.is_printable or event.key in EDITING_KEYS:
            KeyGuard.of(self.app).typed()  # a question arriving now waits until the user stops
        completion = self.completion
        if completion is not None and completion.is_open and event.key in COMPLETION_KEYS:
            event.stop()
            event.prevent_default()
            if event.key in ("up", "down"):
                completion.move(-1 if event.key == "up" else 1)
            elif event.key == "escape":
                completion.close()
            else:
                chosen = completion.chosen()
                completion.close()
                typed = self.text.rstrip()  # a slash item's value follows the first `/`
                complete = chosen is not None and typed in (f"/{chosen.value}", chosen.value)
                if event.key == "enter" and complete:
                    self.submit()  # the command is typed out already: Enter runs it
                elif chosen is not None:
                    self.post_message(self.CompletionChosen(self, chosen))
            return
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
            return
        if event.character == "?" and not self.text and not self.read_only:
            event.stop()  # `?` in an empty prompt: the help (typed after a word, it is text)
            event.prevent_default()
            await self.app.run_action("help")
            return
        if event.key in NEWLINE_KEYS:
            event.stop()
            event.prevent_default()
            self.insert("\n")
            return
        if event.key == "up" and self.cursor_location[0] == 0 and self.sent_history:
            event.stop()
            event.prevent_default()
            self.history_back()
            return
        if event.key == "down" and self._history_index is not None and self._on_last_line():
            event.stop()
            event.prevent_default()
            self.history_forward()

    async def on_paste(self, event: events.Paste) -> None:
        """A paste, inserted in one edit instead of the text area's own insert."""
        event.stop()
        event.prevent_default()
        if self.read_only:
            return
        KeyGuard.of(self.app).typed()
        text = event.text.replace("\r\n", "\n").replace("\r", "\n")
        if self.paste_transform is not None:
            text = self.paste_transform(text)
        self.insert_text(text)

    def insert_text(self, text: str) -> None:
        """Insert at the cursor (replacing a selection) in one edit, the cursor after it."""
        result = self.replace(text, *self.selection)
        self.move_cursor(result.end_location)

    # ------------------------------------------------------------------ hint

    def update_suggestion(self) -> None:
        """Show the input hint of the command being typed (only with the cursor at the end of a
        one-line prompt)."""
        hint = None
        if self.hint_source is not None and self.cursor_location == self.document.end:
            line_count = self.document.line_count
            if line_count == 1:
                hint = self.hint_source(self.text)
        self._hint_shown = hint is not None
        self.suggestion = hint or ""

    def action_cursor_right(self, select: bool = False) -> None:
        if self._hint_shown:  # a hint is a placeholder, not a completion to take
            self.suggestion = ""
            self._hint_shown = False
        super().action_cursor_right(select)

    def action_open_editor(self) -> None:
        """Ask for the prompt to be edited in $EDITOR."""
        self.post_message(self.EditorRequested())

    # ------------------------------------------------------------------ sending, history

    def _on_last_line(self) -> bool:
        return self.cursor_location[0] >= self.document.line_count - 1

    def submit(self) -> None:
        """Send the prompt (`Submitted`), remember it in the history and clear the input; an empty
        prompt is not sent."""
        text = self.text
        if not text.strip():
            return
        if not self.sent_history or self.sent_history[-1] != text:
            self.sent_history.append(text)
        self._history_index = None
        self._draft = ""
        self.clear()
        self.post_message(self.Submitted(self, text))

    def history_back(self) -> None:
        """Show the previous prompt sent (the draft is kept for `history_forward`)."""
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.sent_history) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        self._show(self.sent_history[self._history_index])

    def history_forward(self) -> None:
        """Show the next prompt sent, or the draft after the last one."""
        if self._history_index is None:
            return
        if self._history_index < len(self.sent_history) - 1:
            self._history_index += 1
            self._show(self.sent_history[self._history_index])
        else:
            self._history_index = None
            self._show(self._draft)

    def _show(self, text: str) -> None:
        self.load_text(text)
        last = self.document.line_count - 1
        self.move_cursor((last, len(self.document.get_line(last))))


def take_early_prompt(prompt: PromptInput, early: EarlyPrompt) -> None:
    """What was typed before the UI showed (`early_prompt.py`): its sent prompts sent from
    `prompt` as if typed there (same path: local commands, history, the queue), then the rest of
    the text in it, the cursor where it was."""
    for text in early.sent:
        prompt.load_text(text)
        prompt.submit()
    if early.text:
        prompt.load_text(early.text)
        before = early.text[: early.cursor]
        prompt.move_cursor((before.count("\n"), len(before) - before.rfind("\n") - 1))
