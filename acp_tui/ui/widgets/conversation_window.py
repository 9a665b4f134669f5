"""The conversation's window of live entries: only the most recent entries (`live_entries`, and
the current turn's within twice that) are live widgets. Older finished entries are frozen into
`FrozenHistory` widgets (one Line-API widget per run), drawn from their data to look the same,
so layout cost does not grow with the thread. Anything running, waiting for a permission,
showing a terminal, unfolded by the user or thawed (clicked) stays live, unless a flood crowds
the live widgets: then running cards freeze too. A frozen entry thaws back into a live widget
(when clicked, or when it changes)."""

from __future__ import annotations

from collections.abc import Callable

from textual.await_remove import AwaitRemove
from textual.widget import Widget

from acp_tui.thread import entries as thread_entries
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets.conversation_drawing import EntryDrawing
from acp_tui.ui.widgets.conversation_parts import ConversationNote, card_freezes, is_user_message
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from acp_tui.ui.widgets.entry_lines import EntryItem
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.live_entry import LiveEntry

LIVE_ENTRIES = 40
"""How many of the most recent entries stay live widgets."""
FREEZE_BATCH = 20
"""Freeze only once this many entries beyond `LIVE_ENTRIES` are live (amortizes the work)."""


class LiveWindow:
    """Which of the conversation's entries are live widgets: freezing and thawing them."""

    def __init__(
        self,
        view: Widget,
        thread: Thread,
        shown: ShownEntries,
        drawing: EntryDrawing,
        removing: Callable[[AwaitRemove], None],
        *,
        live_entries: int = LIVE_ENTRIES,
        freeze_batch: int = FREEZE_BATCH,
    ) -> None:
        self._view = view
        """The conversation: its children are the live widgets and the frozen histories."""
        self._thread = thread
        self._shown = shown
        self._drawing = drawing
        self._removing = removing
        """Told of each widget removed (the turn end waits for them)."""
        self.live_entries = live_entries
        self.freeze_batch = freeze_batch
        self._freeze_pending = False
        self._force_freeze = False

    @property
    def crowded(self) -> bool:
        """More live widgets than the window holds: running cards freeze too."""
        return len(self._shown.views) > 2 * self.live_entries + self.freeze_batch

    def maybe_freeze(self, *, force: bool = False) -> None:
        """Freeze after the next refresh, once new widgets have mounted (batched; `force`: a
        burst drew entries frozen, so the older live ones freeze too)."""
        self._force_freeze |= force
        crowded = len(self._shown.views) > self.live_entries + self.freeze_batch
        if self._freeze_pending or not (crowded or self._force_freeze):
            return
        self._freeze_pending = True
        self._view.call_after_refresh(self._deferred_freeze)

    def _deferred_freeze(self) -> None:
        self._freeze_pending = False
        self.freeze_old()
        views = self._shown.views
        unmounted = any(not view.is_mounted for view in views.values())
        self._force_freeze = self._force_freeze and unmounted
        if len(views) > self.live_entries + self.freeze_batch and unmounted:
            self.maybe_freeze()  # some old widgets were still mounting
        elif self._force_freeze:
            self.maybe_freeze()

    def _protected_ids(self) -> set[int]:
        """Entries that stay live: the most recent ones and the whole current turn."""
        entries = self._thread.entries
        keep = {e.id for e in entries[-self.live_entries :]} if self.live_entries else set()
        for entry in reversed(entries[-2 * self.live_entries :]):  # (a flood's turn freezes)
            keep.add(entry.id)
            if is_user_message(entry):
                break
        return keep | self._shown.streaming | self._shown.pinned

    def freeze_old(self) -> int:
        """Freeze every finished entry older than the live window; returns how many froze."""
        protected = self._protected_ids()
        children = list(self._view.children)
        boundary = len(children)
        for index, child in enumerate(children):
            entry = self._shown.entry_of.get(child)
            if entry is not None and entry.id in protected:
                boundary = index
                break
        return self._freeze_children(children[:boundary])

    def freeze_all(self) -> int:
        """Freeze everything that can be frozen (at each turn end)."""
        protected = self._shown.streaming | self._shown.pinned
        entry_of = self._shown.entry_of
        children = [
            child
            for child in self._view.children
            if (entry := entry_of.get(child)) is None or entry.id not in protected
        ]
        return self._freeze_children(list(self._view.children), only=set(children))

    def _freeze_children(self, children: list[Widget], only: set[Widget] | None = None) -> int:
        """Merge every run of frozen-able children (and frozen histories) into one history."""
        runs: list[list[tuple[Widget, EntryItem | None]]] = [[]]
        for child in children:
            item = None
            if not isinstance(child, FrozenHistory) and (only is None or child in only):
                item = self._frozen_item(child)
            if isinstance(child, FrozenHistory) or item is not None:
                runs[-1].append((child, item))
            elif runs[-1]:
                runs.append([])
        frozen = 0
        for run in runs:
            if not run or (len(run) == 1 and run[0][1] is None):
                continue
            histories = [child for child, _ in run if isinstance(child, FrozenHistory)]
            target = histories[0] if histories else FrozenHistory()
            items = [item for _, item in run if item is not None]
            frozen += len(items)
            if len(histories) == 1 and histories[0] is run[0][0]:
                # the usual turn end: the entries after the one history join it at its end;
                # what it holds is neither walked nor laid out again (that grew with the
                # session: each turn end of 300 turns back to back walked 1,200 items)
                target.extend_items(items)
            else:
                items = [
                    held
                    for child, item in run
                    for held in (child.items if isinstance(child, FrozenHistory) else [item])
                    if held is not None
                ]
                target.set_items(items)
            for item in items:
                if item.entry_id is not None:
                    self._shown.frozen[item.entry_id] = item
            if target.parent is None:
                self._view.mount(target, before=run[0][0])
            for child, item in run:
                if child is target:
                    continue
                if item is not None:
                    self._shown.forget(child)
                self._removing(child.remove())
        return frozen

    def _frozen_item(self, child: Widget) -> EntryItem | None:
        """A frozen rendering of a live child, or None if it must stay live."""
        if not child.is_mounted:
            return None  # removing a widget while it mounts breaks its on_mount
        if isinstance(child, ConversationNote):
            return child.items[0]
        entry = self._shown.entry_of.get(child)
        if entry is None or entry.id in self._shown.streaming:
            return None
        if isinstance(child, LiveEntry):
            return child.item  # drawn by the same function, its lines already drawn
        if not isinstance(entry, thread_entries.ToolCallEntry):
            return None
        if not card_freezes(entry, crowded=self.crowded):
            return None
        return self._drawing.card_item(entry)

    def thaw(self, entry_id: int, *, pin: bool) -> Widget | None:
        """Turn a frozen entry back into a live widget (that stays live: `pin`); returns it."""
        item = self._shown.frozen.pop(entry_id, None)
        if pin:
            self._shown.state(entry_id).pinned = True
        if item is None:
            return self._shown.views.get(entry_id)
        history = self.history_holding(item)
        entry = item.entry
        view = self._drawing.view_for(entry, item=item) if entry is not None else None
        if history is None or view is None or entry is None:
            return None
        index = history.index_of(item)
        before, after = history.items[:index], history.items[index + 1 :]
        self._shown.place(entry, view)
        if after:
            self._view.mount(FrozenHistory(after), after=history)
        self._view.mount(view, after=history)
        if before:
            history.set_items(before)
        else:
            self._removing(history.remove())
        return view

    def frozen_histories(self) -> list[FrozenHistory]:
        """The frozen histories among the children (a type check: a query matches selectors,
        which cost 1.6 ms a call among the cards of a flood of 500 questions)."""
        return [child for child in self._view.children if isinstance(child, FrozenHistory)]

    def history_holding(self, item: EntryItem) -> FrozenHistory | None:
        """The frozen history that holds `item` (by identity), if any."""
        for history in self.frozen_histories():
            if any(held is item for held in history.items):
                return history
        return None
