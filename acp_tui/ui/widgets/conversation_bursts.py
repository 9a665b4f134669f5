"""How the conversation takes a flood: a burst of new entries (more than `live_entries` before
a frame is drawn) waits for the frame, where only the newest few become live widgets and the
rest are drawn from data in the frozen history (lazily: an item is drawn when it is shown);
updates to frozen cards in a burst redraw them in place instead of thawing each one; the queue
of questions moving (hundreds answered at once) is drawn once per frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.containers import VerticalScroll
from textual.widget import Widget

from acp_tui.thread import entries as thread_entries
from acp_tui.thread import thread_changes
from acp_tui.thread.entries import Entry, ToolCallEntry
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets import card_lines
from acp_tui.ui.widgets.conversation_parts import ConversationNote, card_freezes
from acp_tui.ui.widgets.entry_lines import EntryItem, Render
from acp_tui.ui.widgets.frozen_history import FrozenHistory

BURST_LIVE = 8
"""How many of the newest entries a burst places as live widgets each frame (the rest are
drawn from data in the frozen history); also how many frozen cards a burst of updates thaws."""


FLOOD = 200
"""A burst of more entries than this is a flood: its items are drawn only when shown."""


class ConversationBursts(VerticalScroll):
    """The burst side of `ConversationView` (a mixin: it needs the view's state)."""

    thread: Thread
    views: dict[int, Widget]
    live_entries: int
    freeze_batch: int
    _frozen: dict[int, EntryItem]
    _arriving: dict[int, Entry | ConversationNote]
    _added_this_frame: int
    _burst: bool
    _thawed_this_frame: int
    _queue_moves: dict[int, ToolCallEntry]

    if TYPE_CHECKING:

        def _mount_view(self, entry: Entry, *, streaming: bool = True) -> None: ...
        def _maybe_freeze(self, *, force: bool = False) -> None: ...
        def _update_entry(self, entry: Entry) -> None: ...
        def _renderer(self, entry: Entry) -> Render: ...
        def _card_item(self, entry: ToolCallEntry, *, lazy: bool = False) -> EntryItem: ...

    def _add_entry(self, entry: Entry) -> None:
        """A live view for a new entry; in a burst (more new entries than `live_entries`
        before a frame is drawn) the rest wait for the frame, where the older of them are
        drawn from data in the frozen history (a flood of tool calls makes no widget each)."""
        if entry.id in self._arriving:
            return  # (drawn from its data when it is placed)
        if self._added_this_frame == 0 and not self._arriving:
            self.call_after_refresh(self._frame_drawn)
        if self._burst or self._arriving or self._added_this_frame >= self.live_entries:
            self._arriving[entry.id] = entry
            return
        self._added_this_frame += 1
        self._mount_view(entry)

    def _frame_drawn(self) -> None:
        if not self.is_attached:  # the app quit while a flood arrived: nothing to draw into
            self._arriving = {}
            return
        self._added_this_frame = 0
        self._burst = len(self._arriving) > BURST_LIVE
        if self._burst:
            self.call_after_refresh(self._frame_drawn)  # (to see the burst end)
        if not self._arriving:
            return
        arrived = list(self._arriving.values())
        self._arriving = {}
        lazy = len(arrived) > FLOOD  # (a few hundred are drawn at once, as ever)
        room = BURST_LIVE if lazy else self.live_entries
        newest = {entry.id for entry in self.thread.entries[-room:]}
        last = self.thread.entries[-1] if self.thread.entries else None
        run: list[EntryItem] = []
        frozen_before = len(self._frozen)
        for entry in arrived:
            if isinstance(entry, ConversationNote):
                run.append(entry.items[0])
                continue
            item = None if entry.id in newest else self._arrived_item(entry, lazy)
            if item is not None:
                run.append(item)
                self._frozen[entry.id] = item
                continue
            if run:
                self.mount(FrozenHistory(run))
                run = []
            self._mount_view(entry, streaming=entry is last)
        if run:
            self.mount(FrozenHistory(run))
        self._maybe_freeze(force=len(self._frozen) > frozen_before)

    def _arrived_item(self, entry: Entry, lazy: bool) -> EntryItem | None:
        """An entry of a burst drawn from its data, or None if it needs a live widget."""
        if isinstance(entry, thread_entries.ToolCallEntry):
            return self._card_item(entry, lazy=lazy) if card_freezes(entry, crowded=True) else None
        if entry in self.thread.entries[-1:]:
            return None  # (a message may still be streaming)
        return EntryItem(self._renderer(entry), entry, lazy=lazy)

    def _queue_changed(self, change: thread_changes.Change) -> None:
        """The queue of questions moved: drawn once the frame comes (a cancelled turn answers
        hundreds at once, and only where the queue ends matters)."""
        if not self._queue_moves:
            self.call_after_refresh(self._queue_drawn)
        if isinstance(change, thread_changes.PermissionQueueMoved):
            self._queue_moves.update((entry.id, entry) for entry in change.entries)
        elif isinstance(change, thread_changes.PermissionChanged):
            self._queue_moves[change.entry.id] = change.entry

    def _queue_drawn(self) -> None:
        moved, self._queue_moves = self._queue_moves, {}
        if not self.is_attached:  # the app quit meanwhile
            return
        asked = [entry for entry in moved.values() if card_lines.asked_now(entry)]
        for entry in asked:
            self._update_entry(entry)  # (the question asked now: a live prompt)
        self._queue_moved([entry for entry in moved.values() if entry not in asked])

    def _queue_moved(self, waiting: list[ToolCallEntry]) -> None:
        """Cards waiting for their question say how many are before them: draw them again
        (the frozen ones in place, all at once)."""
        redrawn: list[EntryItem] = []
        for entry in waiting:
            item = self._frozen.get(entry.id)
            if item is not None and card_freezes(entry, crowded=True):
                item.invalidate()
                redrawn.append(item)
            else:
                self._update_entry(entry)
        if redrawn:
            ids = {id(item) for item in redrawn}
            for history in self.frozen_histories():
                if any(id(held) in ids for held in history.items):
                    history.changed()

    def _redraw_frozen(self, entry: Entry) -> bool:
        """Draw a frozen card again in place, rather than thawing it, when it needs no widget
        and a burst of updates already thawed a few this frame; False: thaw it."""
        if not isinstance(entry, ToolCallEntry) or not card_freezes(entry, crowded=True):
            return False
        if self._thawed_this_frame < BURST_LIVE and not self._crowded:
            if not self._thawed_this_frame:
                self.call_after_refresh(self._thaws_drawn)
            self._thawed_this_frame += 1
            return False
        item = self._frozen[entry.id]
        history = self.history_holding(item)
        if history is not None:
            history.item_changed(item)
        else:
            item.invalidate()
        return True

    def frozen_histories(self) -> list[FrozenHistory]:
        """The frozen histories among the children (a type check: a query matches selectors,
        which cost 1.6 ms a call among the cards of a flood of 500 questions)."""
        return [child for child in self.children if isinstance(child, FrozenHistory)]

    def history_holding(self, item: EntryItem) -> FrozenHistory | None:
        """The frozen history that holds `item` (by identity), if any."""
        for history in self.frozen_histories():
            if any(held is item for held in history.items):
                return history
        return None

    def _thaws_drawn(self) -> None:
        self._thawed_this_frame = 0

    @property
    def _crowded(self) -> bool:
        """More live widgets than the window holds: running cards freeze too."""
        return len(self.views) > 2 * self.live_entries + self.freeze_batch

    def _mount_note(self, note: ConversationNote) -> None:
        """A note goes after what a burst added (drawn from data with it), else at the end."""
        if self._arriving:
            self._arriving[-len(self._arriving) - 1] = note
        else:
            self.mount(note)
