"""The prompts typed while a turn runs (or before the session is ready), sent one by one (v1),
or sent at once and shown waiting until the agent takes them (v2)."""

from __future__ import annotations

import itertools

from acp_tui.client.events import QueuedPrompt
from acp_tui.signal import Signal


class PromptQueue:
    """Prompts waiting for their turn, in order; `changed` carries the whole list after every
    change (the queue view redraws from it)."""

    def __init__(self) -> None:
        self.items: list[QueuedPrompt] = []
        self.changed: Signal[list[QueuedPrompt]] = Signal("prompt queue")
        self._ids = itertools.count(1)

    def next_id(self) -> int:
        """A fresh prompt id (v2 numbers every prompt it sends, queued or not)."""
        return next(self._ids)

    def add(self, text: str, *, item_id: int | None = None, sent: bool = False) -> QueuedPrompt:
        """Queue a prompt (at the end) and tell the listeners."""
        item = QueuedPrompt(self.next_id() if item_id is None else item_id, text, sent=sent)
        self.items.append(item)
        self.changed.emit(self.items)
        return item

    def __contains__(self, item_id: object) -> bool:
        return any(item.id == item_id for item in self.items)

    def remove(self, item_id: int) -> None:
        """Drop the queued prompt with `item_id` and tell the listeners."""
        self.items = [item for item in self.items if item.id != item_id]
        self.changed.emit(self.items)

    def pop(self) -> QueuedPrompt | None:
        """The next prompt to send, taken off the queue; None if it is empty."""
        if not self.items:
            return None
        item = self.items.pop(0)
        self.changed.emit(self.items)
        return item
