"""How the conversation draws the queue of questions moving: once per frame, whatever moved
since (a cancelled turn answers hundreds at once, and only where the queue ends matters). The
question asked now gets its live prompt; the cards waiting for theirs say how many are before
them, the frozen ones redrawn in place, all at once."""

from __future__ import annotations

from collections.abc import Callable

from textual.widget import Widget

from acp_tui.thread import thread_changes
from acp_tui.thread.entries import Entry, ToolCallEntry
from acp_tui.ui.widgets import card_lines
from acp_tui.ui.widgets.conversation_parts import card_freezes
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from acp_tui.ui.widgets.conversation_window import LiveWindow
from acp_tui.ui.widgets.entry_lines import EntryItem


class QuestionQueue:
    """The questions' queue of a conversation, drawn once per frame."""

    def __init__(
        self,
        view: Widget,
        shown: ShownEntries,
        window: LiveWindow,
        update_entry: Callable[[Entry], None],
    ) -> None:
        self._view = view
        self._shown = shown
        self._window = window
        self._update_entry = update_entry
        """Draws a changed entry again (live, or thawed)."""
        self._moves: dict[int, ToolCallEntry] = {}

    def changed(self, change: thread_changes.Change) -> None:
        """The queue of questions moved: drawn once the frame comes."""
        if not self._moves:
            self._view.call_after_refresh(self._drawn)
        if isinstance(change, thread_changes.PermissionQueueMoved):
            self._moves.update((entry.id, entry) for entry in change.entries)
        elif isinstance(change, thread_changes.PermissionChanged):
            self._moves[change.entry.id] = change.entry

    def _drawn(self) -> None:
        moved, self._moves = self._moves, {}
        if not self._view.is_attached:  # the app quit meanwhile
            return
        asked = [entry for entry in moved.values() if card_lines.asked_now(entry)]
        for entry in asked:
            self._update_entry(entry)  # (the question asked now: a live prompt)
        self._moved([entry for entry in moved.values() if entry not in asked])

    def _moved(self, waiting: list[ToolCallEntry]) -> None:
        """Cards waiting for their question say how many are before them: draw them again
        (the frozen ones in place, all at once)."""
        redrawn: list[EntryItem] = []
        for entry in waiting:
            item = self._shown.frozen.get(entry.id)
            if item is not None and card_freezes(entry, crowded=True):
                item.invalidate()
                redrawn.append(item)
            else:
                self._update_entry(entry)
        if redrawn:
            ids = {id(item) for item in redrawn}
            for history in self._window.frozen_histories():
                if any(id(held) in ids for held in history.items):
                    history.changed()
