"""How the conversation takes a flood: a burst of new entries (more than `live_entries` before
a frame is drawn) waits for the frame, where only the newest few become live widgets and the
rest are drawn from data in the frozen history (lazily: an item is drawn when it is shown);
updates to frozen cards in a burst redraw them in place instead of thawing each one."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget

from acp_tui.thread import entries as thread_entries
from acp_tui.thread.entries import Entry, ToolCallEntry
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets.conversation_drawing import EntryDrawing
from acp_tui.ui.widgets.conversation_parts import ConversationNote, card_freezes
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from acp_tui.ui.widgets.conversation_window import LiveWindow
from acp_tui.ui.widgets.entry_lines import EntryItem
from acp_tui.ui.widgets.frozen_history import FrozenHistory

BURST_LIVE = 8
"""How many of the newest entries a burst places as live widgets each frame (the rest are
drawn from data in the frozen history); also how many frozen cards a burst of updates thaws."""


FLOOD = 200
"""A burst of more entries than this is a flood: its items are drawn only when shown."""


class Bursts:
    """New entries and notes of a conversation, placed at once or, in a burst, per frame."""

    def __init__(
        self,
        view: Widget,
        thread: Thread,
        shown: ShownEntries,
        window: LiveWindow,
        drawing: EntryDrawing,
        mount_view: Callable[[Entry, bool], None],
    ) -> None:
        self._view = view
        """The conversation: what is placed is mounted into it."""
        self._thread = thread
        self._shown = shown
        self._window = window
        self._drawing = drawing
        self._mount_view = mount_view
        """Mounts the live view of an entry (streaming: whether a message may stream)."""
        self._arriving: dict[int, Entry | ConversationNote] = {}
        """What a burst added, waiting for the next frame, in order (see `add`): entries by
        id, notes by negative numbers."""
        self._added_this_frame = 0
        self._burst = False
        """The last frame placed a burst: new entries wait for the next frame while it lasts."""
        self._thawed_this_frame = 0

    def arriving(self, entry_id: int) -> bool:
        """Whether the entry waits for the next frame (it is drawn from its data then)."""
        return entry_id in self._arriving

    @property
    def placing(self) -> bool:
        """Whether a burst is still being placed (entries wait for a frame, or the last frame
        placed some)."""
        return self._burst or bool(self._arriving)

    def add(self, entry: Entry) -> None:
        """A live view for a new entry; in a burst (more new entries than `live_entries`
        before a frame is drawn) the rest wait for the frame, where the older of them are
        drawn from data in the frozen history (a flood of tool calls makes no widget each)."""
        if entry.id in self._arriving:
            return  # (drawn from its data when it is placed)
        if self._added_this_frame == 0 and not self._arriving:
            self._view.call_after_refresh(self._frame_drawn)
        if self._burst or self._arriving or self._added_this_frame >= self._window.live_entries:
            self._arriving[entry.id] = entry
            return
        self._added_this_frame += 1
        self._mount_view(entry, True)

    def add_note(self, note: ConversationNote) -> None:
        """A note goes after what a burst added (drawn from data with it), else at the end."""
        if self._arriving:
            self._arriving[-len(self._arriving) - 1] = note
        else:
            self._view.mount(note)

    def _frame_drawn(self) -> None:
        if not self._view.is_attached:  # the app quit while a flood arrived: nothing to draw
            self._arriving = {}
            return
        self._added_this_frame = 0
        self._burst = len(self._arriving) > BURST_LIVE
        if self._burst:
            self._view.call_after_refresh(self._frame_drawn)  # (to see the burst end)
        if not self._arriving:
            return
        arrived = list(self._arriving.values())
        self._arriving = {}
        lazy = len(arrived) > FLOOD  # (a few hundred are drawn at once, as ever)
        room = BURST_LIVE if lazy else self._window.live_entries
        entries = self._thread.entries
        newest = {entry.id for entry in entries[-room:]}
        last = entries[-1] if entries else None
        run: list[EntryItem] = []
        frozen = self._shown.frozen
        frozen_before = len(frozen)
        for entry in arrived:
            if isinstance(entry, ConversationNote):
                run.append(entry.items[0])
                continue
            item = None if entry.id in newest else self._arrived_item(entry, lazy)
            if item is not None:
                run.append(item)
                frozen[entry.id] = item
                continue
            if run:
                self._view.mount(FrozenHistory(run))
                run = []
            self._mount_view(entry, entry is last)
        if run:
            self._view.mount(FrozenHistory(run))
        self._window.maybe_freeze(force=len(frozen) > frozen_before)

    def _arrived_item(self, entry: Entry, lazy: bool) -> EntryItem | None:
        """An entry of a burst drawn from its data, or None if it needs a live widget."""
        if isinstance(entry, thread_entries.ToolCallEntry):
            if not card_freezes(entry, crowded=True):
                return None
            return self._drawing.card_item(entry, lazy=lazy)
        if entry in self._thread.entries[-1:]:
            return None  # (a message may still be streaming)
        return EntryItem(self._drawing.renderer(entry), entry, lazy=lazy)

    def redraw_frozen(self, entry: Entry) -> bool:
        """Draw a frozen card again in place, rather than thawing it, when it needs no widget
        and a burst of updates already thawed a few this frame; False: thaw it."""
        if not isinstance(entry, ToolCallEntry) or not card_freezes(entry, crowded=True):
            return False
        if self._thawed_this_frame < BURST_LIVE and not self._window.crowded:
            if not self._thawed_this_frame:
                self._view.call_after_refresh(self._thaws_drawn)
            self._thawed_this_frame += 1
            return False
        item = self._shown.frozen[entry.id]
        history = self._window.history_holding(item)
        if history is not None:
            history.item_changed(item)
        else:
            item.invalidate()
        return True

    def _thaws_drawn(self) -> None:
        self._thawed_this_frame = 0
