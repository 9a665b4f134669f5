"""The conversation: observes the session `Thread` and shows one widget per recent entry.

Only what changed is touched: a text chunk is appended to its message's streaming view, a tool
call update refreshes its card. The view follows the bottom while streaming and stops following
when the user scrolls up (Textual's scroll anchor), resuming when they scroll back down.

Long threads stay cheap: only the most recent entries (`live_entries`, and the current turn's
within twice that) are live widgets. Older finished entries are frozen into `FrozenHistory`
widgets (one Line-API widget per run), drawn from their data to look the same, so layout cost
does not grow with the thread. Anything running, waiting for a permission, showing a terminal,
unfolded by the user or thawed (clicked) stays live, unless a flood crowds the live widgets:
then a burst's older entries are drawn from data as they arrive, and running cards freeze too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.await_remove import AwaitRemove
from textual.strip import Strip
from textual.widget import AwaitMount, Widget

from acp_tui.client.events import Notice
from acp_tui.thread import entries as thread_entries
from acp_tui.thread import thread_changes
from acp_tui.thread.entries import Entry, PlanSnapshotEntry, ToolCallEntry
from acp_tui.thread.subagent_sessions import SessionMessageEntry, SubagentLaneEntry
from acp_tui.thread.thread import Thread
from acp_tui.ui import runtime
from acp_tui.ui.textual_internals.quick_scrollbar import QuickScrollbars
from acp_tui.ui.widgets import card_lines
from acp_tui.ui.widgets import entry_renderables as er
from acp_tui.ui.widgets.compaction_lines import compaction_render
from acp_tui.ui.widgets.conversation_catch_up import ConversationCatchUp
from acp_tui.ui.widgets.conversation_parts import (
    STOP_REASON_TEXT,
    ConversationNote,
    card_freezes,
    focus_within,
    forward_click,
    is_user_message,
)
from acp_tui.ui.widgets.conversation_turn_end import ConversationTurnEnd
from acp_tui.ui.widgets.entry_lines import EntryItem, Render
from acp_tui.ui.widgets.entry_state import EntryViewState
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.live_entry import LiveEntry
from acp_tui.ui.widgets.message_lines import StreamedText, message_render
from acp_tui.ui.widgets.message_view import AgentMessageView, MessageLines, ThoughtView
from acp_tui.ui.widgets.subagent_lane import (
    SubagentLaneView,
    lane_render,
    session_message_render,
)
from acp_tui.ui.widgets.tool_call_card import ToolCallCard

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade

LIVE_ENTRIES = 40
"""How many of the most recent entries stay live widgets."""
FREEZE_BATCH = 20
"""Freeze only once this many entries beyond `LIVE_ENTRIES` are live (amortizes the work)."""

__all__ = ["ConversationNote", "ConversationView"]


class ConversationView(QuickScrollbars, ConversationCatchUp, ConversationTurnEnd):
    DEFAULT_CSS = """
    ConversationView { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    ConversationView .-background { border-left: outer $accent 60%; }
    """
    # (.-background: a streaming message or a card; entries drawn from data draw their bar)

    @property
    def BLANK(self) -> bool:  # type: ignore[override]
        """Without a border the view's own lines are blank (entries and scrollbars cover
        them): Textual then paints them as one shared strip, not line by line after each
        layout."""
        styles = self.styles
        return styles.gutter == styles.padding

    def __init__(
        self,
        thread: Thread,
        session: SessionFacade | None = None,
        *,
        id: str | None = None,
        live_entries: int = LIVE_ENTRIES,
        freeze_batch: int = FREEZE_BATCH,
    ) -> None:
        super().__init__(id=id)
        self.thread = thread
        self.session = session
        self.views: dict[int, Widget] = {}
        """Live widgets by entry id (frozen entries have none)."""
        self.live_entries = live_entries
        self.freeze_batch = freeze_batch
        self._entry_of: dict[Widget, Entry] = {}
        self._frozen: dict[int, EntryItem] = {}
        self._states: dict[int, EntryViewState] = {}
        self._streaming: set[int] = set()
        self._freeze_pending = False
        self._force_freeze = False
        self._queue_moves: dict[int, ToolCallEntry] = {}
        self._settle_pending = False
        self._mounting: list[AwaitMount] = []  # (what the turn end waits for: `_settle`)
        self._removing: list[AwaitRemove] = []
        self._arriving: dict[int, Entry | ConversationNote] = {}
        """What a burst added, waiting for the next frame, in order (see `_add_entry`): entries
        by id, notes by negative numbers."""
        self._added_this_frame = 0
        self._burst = False
        """The last frame placed a burst: new entries wait for the next frame while it lasts."""
        self._thawed_this_frame = 0
        self._unsubscribe: Callable[[], None] | None = None

    def on_mount(self) -> None:
        """Draw the thread's entries so far and follow its changes."""
        self.anchor()
        self._start_ticking()
        for entry in list(self.thread.entries):
            self._add_entry(entry)
        self._unsubscribe = self.thread.subscribe(self._observe)  # (not while hidden)
        runtime.collection.watch(self.thread)
        if self.session is not None:
            self.session.notices.subscribe(self._observe_notice)

    def on_unmount(self) -> None:
        """Stop following the thread."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    def follow(self) -> None:
        """Jump to the bottom and follow again (after the user sends a prompt)."""
        self.anchor()

    def view_state(self, entry_id: int) -> EntryViewState:
        """The entry's view state (what the user did to it), kept across freezing."""
        state = self._states.get(entry_id)
        if state is None:
            state = self._states[entry_id] = EntryViewState()
        return state

    @property
    def _pinned(self) -> set[int]:
        return {entry_id for entry_id, state in self._states.items() if state.pinned}

    @property
    def streaming(self) -> bool:
        """Whether a message or thought of the agent is streaming into this conversation now."""
        return bool(self._streaming)

    @property
    def frozen_entry_ids(self) -> set[int]:
        """Ids of the entries shown in the frozen history."""
        return set(self._frozen)

    # ------------------------------------------------------------ thread changes

    def _on_change(self, change: thread_changes.Change) -> None:
        match change:
            case thread_changes.MessageChunkAppended(entry=entry):
                if entry.id in self._frozen:
                    self._thaw(entry.id, pin=False)
                view = self.views.get(entry.id)
                if isinstance(view, AgentMessageView | ThoughtView):
                    view.append_chunk(change.block_index, change.text)
                elif isinstance(view, LiveEntry):
                    view.redraw()
                elif view is None:
                    self._add_entry(entry)
            case thread_changes.EntryAdded(entry=entry):
                self._finish_streaming(except_id=entry.id)
                self._add_entry(entry)
                self._maybe_freeze()
            case thread_changes.EntryChanged(entry=entry):
                self._update_entry(entry)
            case thread_changes.PermissionChanged(entry=tool_call, moved=False):
                self._update_entry(tool_call)
            case (
                thread_changes.PermissionChanged(entry=tool_call)
                | thread_changes.PermissionQueueMoved(entries=[tool_call, *_])
            ):
                self._queue_changed(change)
            case thread_changes.TurnStateChanged(running=False, stop_reason=stop_reason):
                entries = self.thread.entries
                self._turn_ended(stop_reason, entries[-1].id if entries else 0, change.error)

    def _turn_ended(self, stop_reason: str | None, last: int, error: str | None = None) -> None:
        """The turn ended (its last entry then: `last`; `error`: what failed, if it did)."""
        self._end_streams(last)  # (then the turn settles)
        self._show_stop_reason(stop_reason, error)
        self._maybe_freeze()

    def _mount_view(self, entry: Entry, *, streaming: bool = True) -> None:
        view = self._view_for(entry, streaming=streaming and self._streams(entry))
        if view is None:
            return
        self.views[entry.id] = view
        self._entry_of[view] = entry
        if isinstance(view, AgentMessageView | ThoughtView):
            self._streaming.add(entry.id)
        self.mount(view)
        self._mark_background(entry, view)

    def _view_for(
        self,
        entry: Entry,
        *,
        streaming: bool = False,
        item: EntryItem | None = None,
        streamed: StreamedText | None = None,
    ) -> Widget | None:
        """The live view of ``entry``: while the agent streams a message, its streaming view;
        else the entry drawn from its data (by ``item`` if given: a thawed one's lines)."""
        state = self.view_state(entry.id)
        if isinstance(entry, thread_entries.MessageEntry):
            if streaming and entry.role == "thought":
                return ThoughtView(entry)
            if streaming and entry.role != "user":
                return AgentMessageView(entry)
            item = item or EntryItem(self._renderer(entry, streamed), entry)
            return MessageLines(item, entry, state)
        if isinstance(entry, thread_entries.ToolCallEntry):
            lookup = self.session.terminal_lookup if self.session is not None else None
            self._card_changed(entry)  # (its clock)
            return ToolCallCard(entry, lookup, state)
        if isinstance(entry, SubagentLaneEntry):
            return SubagentLaneView(item or EntryItem(self._renderer(entry), entry), state)
        return LiveEntry(item or EntryItem(self._renderer(entry), entry), state)

    def _update_entry(self, entry: Entry) -> None:
        if entry.id in self._arriving:
            return  # (drawn from its data when it is placed)
        if entry.id in self._frozen:
            if self._redraw_frozen(entry):
                return
            self._thaw(entry.id, pin=False)
        view = self.views.get(entry.id)
        if view is not None:
            self._mark_background(entry, view)
        if view is None:
            self._add_entry(entry)
        elif isinstance(view, ToolCallCard):
            view.update_from_entry()
            self._card_changed(entry)
        elif isinstance(view, AgentMessageView | ThoughtView):
            view.sync_blocks()
        elif isinstance(view, LiveEntry):
            view.redraw()

    def _mark_background(self, entry: Entry, view: Widget) -> None:
        """v2: what arrived or changed after the turn ended is marked as background activity,
        in place (a note above it, a bar beside it: drawn by an entry drawn from data, see
        `_renderer`, else a CSS border)."""
        if entry.id not in self.thread.background or view.has_class("-marked"):
            return
        if isinstance(view, LiveEntry):
            view.redraw()
        else:
            view.add_class("-background")
        view.add_class("-marked")
        note = ConversationNote("↻ background activity (after the turn ended)", "background-mark")
        self.mount(note, before=view)

    def _finish_streaming(self, except_id: int | None = None, up_to: int | None = None) -> None:
        """Streaming messages (all, or those of entries up to id `up_to`) are complete: each is
        replaced by the message drawn from its data, which takes over what it parsed."""
        for entry_id in list(self._streaming):
            if entry_id == except_id or (up_to is not None and entry_id > up_to):
                continue
            self._streaming.discard(entry_id)
            view = self.views.get(entry_id)
            entry = self._entry_of.get(view) if view is not None else None
            if not isinstance(view, AgentMessageView | ThoughtView) or entry is None:
                continue
            view.finish()
            settled = self._view_for(entry, streamed=view.streamed())
            if settled is None:
                continue
            self.views[entry_id] = settled
            self._entry_of[settled] = entry
            self._entry_of.pop(view, None)
            if view.has_class("-marked"):
                settled.add_class("-marked")
            self._mounting.append(self.mount(settled, after=view))
            self._removing.append(view.remove())

    def _show_stop_reason(self, stop_reason: str | None, error: str | None = None) -> None:
        if stop_reason in (None, "end_turn"):
            return
        text = STOP_REASON_TEXT.get(str(stop_reason), f"the turn stopped: {stop_reason}")
        if stop_reason == "error":  # an error, with what failed when the agent says it
            failed = f"{text}: {error}" if error else text
            self._mount_note(ConversationNote(f"✗ {failed}", "stop-error"))
            return
        self._mount_note(ConversationNote(f"■ {text}", "stop-reason"))
        if stop_reason == "refusal":
            users = [e for e in self.thread.entries if is_user_message(e)]
            view = self.views.get(users[-1].id) if users else None
            if isinstance(view, MessageLines):
                reason = "the agent refused this prompt; it was not kept"
                self.view_state(users[-1].id).not_kept = reason
                view.mark_not_kept(reason)

    def _on_notice(self, notice: Notice) -> None:
        self._mount_note(ConversationNote(f"— {notice.text} —", "notice"))

    # ------------------------------------------------------------ freezing

    def _maybe_freeze(self, *, force: bool = False) -> None:
        """Freeze after the next refresh, once new widgets have mounted (batched; `force`: a
        burst drew entries frozen, so the older live ones freeze too)."""
        self._force_freeze |= force
        crowded = len(self.views) > self.live_entries + self.freeze_batch
        if self._freeze_pending or not (crowded or self._force_freeze):
            return
        self._freeze_pending = True
        self.call_after_refresh(self._deferred_freeze)

    def _deferred_freeze(self) -> None:
        self._freeze_pending = False
        self.freeze_old()
        unmounted = any(not view.is_mounted for view in self.views.values())
        self._force_freeze = self._force_freeze and unmounted
        if len(self.views) > self.live_entries + self.freeze_batch and unmounted:
            self._maybe_freeze()  # some old widgets were still mounting
        elif self._force_freeze:
            self._maybe_freeze()

    def _protected_ids(self) -> set[int]:
        """Entries that stay live: the most recent ones and the whole current turn."""
        entries = self.thread.entries
        keep = {e.id for e in entries[-self.live_entries :]} if self.live_entries else set()
        for entry in reversed(entries[-2 * self.live_entries :]):  # (a flood's turn freezes)
            keep.add(entry.id)
            if is_user_message(entry):
                break
        return keep | self._streaming | self._pinned

    def freeze_old(self) -> int:
        """Freeze every finished entry older than the live window; returns how many froze."""
        protected = self._protected_ids()
        children = list(self.children)
        boundary = len(children)
        for index, child in enumerate(children):
            entry = self._entry_of.get(child)
            if entry is not None and entry.id in protected:
                boundary = index
                break
        return self._freeze_children(children[:boundary])

    def freeze_all(self) -> int:
        """Freeze everything that can be frozen (at each turn end)."""
        protected = self._streaming | self._pinned
        children = [
            child
            for child in self.children
            if (entry := self._entry_of.get(child)) is None or entry.id not in protected
        ]
        return self._freeze_children(list(self.children), only=set(children))

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
            items: list[EntryItem] = []
            for child, item in run:
                if isinstance(child, FrozenHistory):
                    items.extend(child.items)
                elif item is not None:
                    items.append(item)
                    frozen += 1
            for item in items:
                if item.entry_id is not None:
                    self._frozen[item.entry_id] = item
            target.set_items(items)
            if target.parent is None:
                self.mount(target, before=run[0][0])
            for child, item in run:
                if child is target:
                    continue
                if item is not None:
                    self._forget_view(child)
                self._removing.append(child.remove())
        return frozen

    def _forget_view(self, child: Widget) -> None:
        entry = self._entry_of.pop(child, None)
        if entry is not None and self.views.get(entry.id) is child:
            del self.views[entry.id]

    def _frozen_item(self, child: Widget) -> EntryItem | None:
        """A frozen rendering of a live child, or None if it must stay live."""
        if not child.is_mounted:
            return None  # removing a widget while it mounts breaks its on_mount
        if isinstance(child, ConversationNote):
            return child.items[0]
        entry = self._entry_of.get(child)
        if entry is None or entry.id in self._streaming:
            return None
        if isinstance(child, LiveEntry):
            return child.item  # drawn by the same function, its lines already drawn
        if not isinstance(entry, thread_entries.ToolCallEntry):
            return None
        return self._card_item(entry) if card_freezes(entry, crowded=self._crowded) else None

    def _card_item(self, entry: ToolCallEntry, *, lazy: bool = False) -> EntryItem:
        state = self.view_state(entry.id)  # the card draws its view state, live and frozen
        render: Render = lambda look, width: card_lines.tool_call_lines(  # noqa: E731
            entry, look, width, state
        )
        return EntryItem(self._marked(entry, render), entry, lazy=lazy)

    def _renderer(self, entry: Entry, streamed: StreamedText | None = None) -> Render:
        """How ``entry`` is drawn from its data, live and frozen alike (not a card: a card
        draws itself while live, see `ToolCallCard`)."""
        render: Render
        if isinstance(entry, thread_entries.MessageEntry):
            render = message_render(entry, self.view_state(entry.id), streamed)
        elif isinstance(entry, PlanSnapshotEntry):
            render = er.plan_render(entry)
        elif isinstance(entry, thread_entries.UnknownEntry):
            render = er.unknown_render(entry)
        elif isinstance(entry, thread_entries.CompactionEntry):
            render = compaction_render(entry, self.view_state(entry.id))
        elif isinstance(entry, SubagentLaneEntry):
            terminals = self.session.terminal_lookup if self.session is not None else None
            render = lane_render(entry, self.view_state(entry.id), terminals)
        elif isinstance(entry, SessionMessageEntry):
            render = session_message_render(entry, self.thread.sessions)
        else:
            raise TypeError(f"no renderer for {type(entry).__name__}")
        return self._marked(entry, render)

    def _marked(self, entry: Entry, render: Render) -> Render:
        """``render``, with the background-activity bar once the entry is marked (v2)."""
        background = self.thread.background

        def draw(look: er.Look, width: int) -> list[Strip]:
            if entry.id in background:
                return er.background_marked(render, look, width)
            return render(look, width)

        return draw

    # ------------------------------------------------------------ thawing

    @on(FrozenHistory.ThawRequested)
    def _thaw_clicked(self, event: FrozenHistory.ThawRequested) -> None:
        event.stop()
        entry_id = event.item.entry_id
        if entry_id is None:
            return
        view = self._thaw(entry_id, pin=True)
        if event.keyboard and view is not None:
            self.call_after_refresh(focus_within, view)
        elif event.click is not None and view is not None:
            self.call_after_refresh(forward_click, self.screen, event.click)

    def thaw(self, entry_id: int) -> Widget | None:
        """Turn a frozen entry back into a live widget that stays live; returns it."""
        return self._thaw(entry_id, pin=True)

    def _thaw(self, entry_id: int, *, pin: bool) -> Widget | None:
        item = self._frozen.pop(entry_id, None)
        if pin:
            self.view_state(entry_id).pinned = True
        if item is None:
            return self.views.get(entry_id)
        history = self.history_holding(item)
        view = self._view_for(item.entry, item=item) if item.entry is not None else None
        if history is None or view is None or item.entry is None:
            return None
        index = history.index_of(item)
        before, after = history.items[:index], history.items[index + 1 :]
        self.views[entry_id] = view
        self._entry_of[view] = item.entry
        if after:
            self.mount(FrozenHistory(after), after=history)
        self.mount(view, after=history)
        if before:
            history.set_items(before)
        else:
            self._removing.append(history.remove())
        return view
