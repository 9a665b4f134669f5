"""A `TextArea` and an `Input` that see keys (and pastes) before they act on them.

Both handle keys in their private `_on_key` (and `TextArea` pastes in `_on_paste`); a public
`on_key` of a subclass runs after them, too late to keep Enter from inserting a line, and an
`Input`'s enter binding runs only after the next queued key was typed in. `KeysFirstTextArea`
and `KeysFirstInput` call `key_first` (`paste_first`) before their own handling: True when it
took the event.
"""

from __future__ import annotations

from textual import events
from textual.widgets import Input, TextArea


class KeysFirstTextArea(TextArea):
    """A text area whose subclasses see each key and paste first."""

    async def key_first(self, event: events.Key) -> bool:
        """Handle `event` before the text area; True when it was taken (the default: never)."""
        return False

    async def paste_first(self, event: events.Paste) -> bool:
        """Handle `event` before the text area; True when it was taken (the default: never)."""
        return False

    async def _on_key(self, event: events.Key) -> None:
        if not await self.key_first(event):
            await super()._on_key(event)

    async def _on_paste(self, event: events.Paste) -> None:
        if not await self.paste_first(event):
            await super()._on_paste(event)


class KeysFirstInput(Input):
    """A text field whose subclasses see each key first."""

    async def key_first(self, event: events.Key) -> bool:
        """Handle `event` before the field; True when it was taken (the default: never)."""
        return False

    async def _on_key(self, event: events.Key) -> None:
        if not await self.key_first(event):
            await super()._on_key(event)
