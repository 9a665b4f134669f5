"""A `TextArea` that sees keys and pastes before it acts on them.

`TextArea` handles keys and pastes in its private `_on_key`/`_on_paste`; a public `on_key` of a
subclass runs after them, too late to keep Enter from inserting a line. `KeysFirstTextArea` calls
`key_first`/`paste_first` before its own handling: they return True when they took the event.
"""

from __future__ import annotations

from textual import events
from textual.widgets import TextArea


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
