"""Prompts typed while the agent works: visible, editable, removable; sent when the turn ends."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Button, Static

from acp_tui.client.events import QueuedPrompt


class QueuedItem(Horizontal, can_focus=True):
    """One queued prompt: edit it back into the prompt or remove it."""

    DEFAULT_CSS = """
    QueuedItem { height: auto; }
    QueuedItem:focus { background: $boost; }
    QueuedItem > Static { width: 1fr; color: $text-muted; }
    QueuedItem > Button { margin-left: 1; }
    """
    BINDINGS = [
        Binding("e,enter", "edit", "edit"),
        Binding("x,delete", "remove", "remove"),
    ]

    @dataclass
    class EditRequested(Message):
        """The user wants to edit this queued prompt (it leaves the queue for the prompt)."""

        item: QueuedPrompt

    @dataclass
    class RemoveRequested(Message):
        """The user removed this queued prompt."""

        item: QueuedPrompt

    def __init__(self, item: QueuedPrompt) -> None:
        super().__init__()
        self.item = item

    def compose(self) -> ComposeResult:
        label = Text("⏳ ", style="cyan")
        label.append(self.item.text.replace("\n", " ⏎ "), style="italic")
        yield Static(label)
        yield Button("edit", id="edit", variant="default", compact=True)
        yield Button("✕", id="remove", variant="error", compact=True)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """Edit or remove the queued prompt, as the button says."""
        event.stop()
        if event.button.id == "edit":
            self.action_edit()
        else:
            self.action_remove()

    def action_edit(self) -> None:
        """Ask to take the queued prompt back into the composer."""
        self.post_message(self.EditRequested(self.item))

    def action_remove(self) -> None:
        """Ask to remove the queued prompt."""
        self.post_message(self.RemoveRequested(self.item))


NARROW = 100
"""Below this many columns the queue's buttons take only their labels' width (at 80 columns
Textual's 16-column minimum gave "edit" and "✕" 32 of the 80)."""


class QueueView(Vertical):
    """The prompts waiting for the running turn to end, under the prompt."""

    DEFAULT_CSS = """
    QueueView {
        height: auto;
        max-height: 8;
        border-top: dashed $primary 40%;
        display: none;
    }
    QueueView.-has-items { display: block; }
    QueueView.-narrow QueuedItem > Button { min-width: 0; }
    """

    items: tuple[QueuedPrompt, ...] = ()
    waiting_for: reactive[str | None] = reactive(None)
    """What the queue waits for when it is not the end of a turn (no session open yet)."""

    def show_queue(self, items: list[QueuedPrompt]) -> None:
        """Show `items` (the view hides when there are none)."""
        self.items = tuple(items)
        self.remove_children()
        self.mount_all(QueuedItem(item) for item in items)
        self.set_class(bool(items), "-has-items")
        self._title()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "-narrow")

    def watch_waiting_for(self) -> None:
        self._title()

    def _title(self) -> None:
        items = self.items
        if items and items[0].sent:  # v2: sent at once, the agent takes them
            self.border_title = f"queued ({len(items)}): sent, waiting for the agent to take them"
        elif self.waiting_for is not None:
            self.border_title = f"queued ({len(items)}): {self.waiting_for}"
        else:
            self.border_title = f"queued ({len(items)}): sent when the turn ends"
