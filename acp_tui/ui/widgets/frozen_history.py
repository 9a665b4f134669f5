"""FrozenHistory: many finished conversation entries as ONE `EntryLines` widget.

The conversation keeps only recent entries as live widgets; older finished ones become items
of a frozen history, drawn by the same functions as the live entries (see `entry_lines`), so
layout and compositing cost one widget however long the history is.
A click on an item, or Enter on the item under the cursor (the history takes focus; up/down move
the cursor between entries), posts `FrozenHistory.ThawRequested` (the conversation turns it
back into a live widget, for example to unfold a tool call's raw input).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from textual import events
from textual.binding import Binding
from textual.geometry import Region
from textual.message import Message
from textual.widget import Widget

from acp_tui.thread.entries import Entry
from acp_tui.ui.widgets.entry_lines import EntryItem, EntryLines


class FrozenHistory(EntryLines, can_focus=True):
    """Finished entries, drawn once per width; up/down/Enter or a click thaw one."""

    BINDINGS: ClassVar[list[Binding]] = [  # type: ignore[assignment]
        Binding("up", "cursor(-1)", "previous entry", show=False, id="frozen.previous"),
        Binding("down", "cursor(1)", "next entry", show=False, id="frozen.next"),
        Binding("enter", "thaw", "open entry", id="frozen.thaw"),  # (the footer, when focused)
    ]

    class ThawRequested(Message):
        """The user clicked a frozen item."""

        def __init__(
            self,
            history: FrozenHistory,
            item: EntryItem,
            *,
            keyboard: bool = False,
            click: events.Click | None = None,
        ) -> None:
            super().__init__()
            self.history = history
            self.item = item
            self.keyboard = keyboard
            """Enter asked (not a click): the thawed view takes the focus."""
            self.click = click
            """The click that asked: the thawed view gets it too (one click opens a section of
            a finished turn's card, as it does on a live one)."""

    def __init__(self, items: Iterable[EntryItem] = ()) -> None:
        super().__init__(items)
        # self.cursor (see EntryLines): the item Enter thaws while the history has focus

    @property
    def cursor_entry(self) -> Entry | None:
        """The entry under the cursor: what the keys acting on the focused entry act on
        (continue from it, rewind to it), as on a live entry."""
        if self.cursor is None or self.cursor >= len(self.items):
            return None
        return self.items[self.cursor].entry

    def set_items(self, items: Iterable[EntryItem]) -> None:
        """Replace the items and drop the cursor."""
        self.cursor = None
        super().set_items(items)

    # ------------------------------------------------------------ keyboard

    def _entries(self) -> list[int]:
        return [index for index, item in enumerate(self.items) if item.entry is not None]

    def on_focus(self) -> None:
        """Show the cursor (on the entry nearest the live ones, the first time)."""
        entries = self._entries()
        if self.cursor not in entries:
            self.cursor = entries[-1] if entries else None
        self.repaint()  # (EntryLines.on_focus repaints too; the cursor must be set first)

    def action_cursor(self, step: int) -> None:
        """Move the cursor to the previous (-1) or next (1) entry."""
        entries = self._entries()
        if not entries:
            return
        position = entries.index(self.cursor) if self.cursor in entries else len(entries) - 1
        self.cursor = entries[max(0, min(len(entries) - 1, position + step))]
        self.repaint()
        self._show_cursor()

    def _show_cursor(self) -> None:
        if self.cursor is None or self.parent is None or self.size.width <= 0:
            return
        layout = self.layout_for(self.size.width)
        top = layout.offsets[self.cursor]
        bottom = (
            layout.offsets[self.cursor + 1] if self.cursor + 1 < len(self.items) else layout.total
        )
        region = Region(0, self.virtual_region.y + top, self.size.width, bottom - top)
        parent = self.parent
        if isinstance(parent, Widget):
            parent.scroll_to_region(region, animate=False, immediate=True)

    def action_thaw(self) -> None:
        """Thaw the entry under the cursor, as a click on it does."""
        if self.cursor is not None and self.cursor < len(self.items):
            item = self.items[self.cursor]
            self.post_message(self.ThawRequested(self, item, keyboard=True))

    def on_click(self, event: events.Click) -> None:
        """A click on an entry asks the conversation to thaw it into a live widget."""
        found = self.item_at(event.y)
        if found is not None and found[0].entry is not None:
            event.stop()
            self.cursor = self.index_of(found[0])
            self.post_message(self.ThawRequested(self, found[0], click=event))
