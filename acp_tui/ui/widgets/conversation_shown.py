"""What the conversation shows of each entry of its thread: a live widget, or an item of the
frozen history; what the user did to it (its view state, kept across freezing) and which of
its messages stream now. `ConversationView` owns this record; its parts read and write it."""

from __future__ import annotations

from textual.widget import Widget

from acp_tui.thread.entries import Entry
from acp_tui.ui.widgets.entry_lines import EntryItem
from acp_tui.ui.widgets.entry_state import EntryViewState


class ShownEntries:
    """The conversation's entries as shown: live widgets, frozen items, view states."""

    def __init__(self) -> None:
        self.views: dict[int, Widget] = {}
        """Live widgets by entry id (frozen entries have none)."""
        self.entry_of: dict[Widget, Entry] = {}
        """The entry each live widget shows."""
        self.frozen: dict[int, EntryItem] = {}
        """The items of the frozen history, by entry id."""
        self.states: dict[int, EntryViewState] = {}
        self.streaming: set[int] = set()
        """Entries whose message streams into its streaming view now."""

    def state(self, entry_id: int) -> EntryViewState:
        """The entry's view state (what the user did to it), kept across freezing."""
        state = self.states.get(entry_id)
        if state is None:
            state = self.states[entry_id] = EntryViewState()
        return state

    @property
    def pinned(self) -> set[int]:
        """Entries the user thawed: they stay live."""
        return {entry_id for entry_id, state in self.states.items() if state.pinned}

    def place(self, entry: Entry, view: Widget) -> None:
        """`view` is the live widget of `entry` from now on."""
        self.views[entry.id] = view
        self.entry_of[view] = entry

    def forget(self, view: Widget) -> None:
        """`view` no longer shows its entry (it froze)."""
        entry = self.entry_of.pop(view, None)
        if entry is not None and self.views.get(entry.id) is view:
            del self.views[entry.id]
