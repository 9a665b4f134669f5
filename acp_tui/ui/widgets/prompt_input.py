"""The prompt editor: multi-line, Enter sends, a key for newline, history with up/down."""

from __future__ import annotations

from dataclasses import dataclass

from textual import events
from textual.message import Message
from textual.widgets import TextArea

NEWLINE_KEYS = frozenset({"ctrl+j", "shift+enter", "alt+enter", "ctrl+enter"})


class PromptInput(TextArea):
    """Enter sends; Ctrl+J (or Shift/Alt+Enter where the terminal tells them apart) adds a line.

    Up on the first line and Down on the last line walk through the prompts sent before.
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

    @dataclass
    class Submitted(Message):
        prompt_input: PromptInput
        text: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, soft_wrap=True, show_line_numbers=False, tab_behavior="focus")
        self.border_title = "Prompt"
        self.border_subtitle = "enter send · ctrl+j newline · ↑↓ history"
        self.sent_history: list[str] = []
        self._history_index: int | None = None
        self._draft = ""

    async def _on_key(self, event: events.Key) -> None:
        if event.key == "enter":
            event.stop()
            event.prevent_default()
            self.submit()
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
            return
        await super()._on_key(event)

    def _on_last_line(self) -> bool:
        return self.cursor_location[0] >= self.document.line_count - 1

    def submit(self) -> None:
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
        if self._history_index is None:
            self._draft = self.text
            self._history_index = len(self.sent_history) - 1
        elif self._history_index > 0:
            self._history_index -= 1
        self._show(self.sent_history[self._history_index])

    def history_forward(self) -> None:
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
