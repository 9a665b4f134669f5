"""The conversation: observes the session `Thread` and shows one widget per recent entry.

Only what changed is touched: a text chunk is appended to its message's streaming view, a tool
call update refreshes its card. The view follows the bottom while streaming and stops following
when the user scrolls up (Textual's scroll anchor), resuming when they scroll back down.

`ConversationView` is the widget; the parts it owns do the rest, each in its module:
- `ShownEntries`: what it shows of each entry (its live widget or frozen item, its view state);
- `EntryDrawing`: how an entry is drawn (its live widget, its drawing from data);
- `LiveWindow`: which entries stay live widgets, the older ones frozen into `FrozenHistory`
  widgets so layout cost does not grow with the thread (and thawed again);
- `Bursts`: a flood of new entries placed per frame, most of it drawn from data;
- `QuestionQueue`: the queue of questions moving, drawn once per frame;
- `TurnEnd`: a turn ends, streams close and the finished entries freeze before the collection;
- `CardClock`: the one timer of the running cards' elapsed time;
- `CatchUp`: while the tab is hidden, what changed is only remembered, and drawn once shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import on
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.layout import DockArrangeResult
from textual.widget import Widget

from acp_tui.client.events import Notice
from acp_tui.thread import thread_changes
from acp_tui.thread.entries import Entry
from acp_tui.thread.thread import Thread
from acp_tui.ui import runtime
from acp_tui.ui.textual_internals.tall_regions import tall_regions_apart
from acp_tui.ui.widgets.conversation_bursts import Bursts
from acp_tui.ui.widgets.conversation_card_clock import CardClock
from acp_tui.ui.widgets.conversation_catch_up import CatchUp
from acp_tui.ui.widgets.conversation_drawing import EntryDrawing
from acp_tui.ui.widgets.conversation_parts import (
    STOP_REASON_TEXT,
    ConversationNote,
    focus_within,
    forward_click,
    is_user_message,
)
from acp_tui.ui.widgets.conversation_question_queue import QuestionQueue
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from acp_tui.ui.widgets.conversation_turn_end import TurnEnd
from acp_tui.ui.widgets.conversation_window import FREEZE_BATCH, LIVE_ENTRIES, LiveWindow
from acp_tui.ui.widgets.entry_state import EntryViewState
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.live_entry import LiveEntry
from acp_tui.ui.widgets.message_view import AgentMessageView, MessageLines, ThoughtView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade

__all__ = ["ConversationNote", "ConversationView"]


class ConversationView(VerticalScroll):
    DEFAULT_CSS = """
    ConversationView { height: 1fr; padding: 0 1; scrollbar-gutter: stable; }
    ConversationView .-background { border-left: outer $accent 60%; }
    """
    # (.-background: a streaming message or a card; entries drawn from data draw their bar)

    QUICK_SCROLLBAR = True
    """The engine's scrollbar that paints its own lines (`textual_internals/quick_scrollbar.py`):
    this bar is painted again at every layout of a streamed message."""

    freeze_finished_turns = True
    """False keeps finished entries live in the window of recent ones (tests comparing live
    widgets with their frozen drawing)."""

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
        # its parts (see the module docstring), each built once what it uses is; the two that
        # ask whether the tab is hidden read `while_hidden`, built last, when they are called
        self.shown = ShownEntries()
        self.card_clock = CardClock(self.shown, hidden=lambda: self.while_hidden.hidden)
        self.drawing = EntryDrawing(thread, session, self.shown, self.card_clock.card_changed)
        self.turn_end = TurnEnd(
            self,
            self.shown,
            catching_up=lambda: self.while_hidden.catching_up,
            finish_streaming=self._finish_streaming,
            freeze=self._freeze_finished_turn,
        )
        self.window = LiveWindow(
            self,
            thread,
            self.shown,
            self.drawing,
            self.turn_end.removing,
            live_entries=live_entries,
            freeze_batch=freeze_batch,
        )
        self.bursts = Bursts(self, thread, self.shown, self.window, self.drawing, self._mount_view)
        self.questions = QuestionQueue(self, self.shown, self.window, self._update_entry)
        self.while_hidden = CatchUp(
            thread,
            self.shown,
            draw_change=self._on_change,
            place_notice=self._on_notice,
            end_turn=self._turn_ended,
            update_entry=self._update_entry,
            arriving=self.bursts.arriving,
            shown_again=self.card_clock.wake,
        )
        self._unsubscribe: Callable[[], None] | None = None

    def arrange(self, size: Size, optimal: bool = False) -> DockArrangeResult:
        """Textual's arrangement, its frozen histories kept out of the grid that finds the
        children on the screen (`tall_regions`: filling it grew with the history)."""
        return tall_regions_apart(super().arrange(size, optimal))

    def on_mount(self) -> None:
        """Draw the thread's entries so far and follow its changes."""
        self.anchor()
        self.card_clock.start(self)
        for entry in list(self.thread.entries):
            self.bursts.add(entry)
        self._unsubscribe = self.thread.subscribe(self.while_hidden.observe)  # (not while hidden)
        runtime.collection.watch(self.thread)
        if self.session is not None:
            self.session.notices.subscribe(self.while_hidden.observe_notice)

    def on_unmount(self) -> None:
        """Stop following the thread."""
        if self._unsubscribe is not None:
            self._unsubscribe()

    # ------------------------------------------------------------ what others ask of it

    def follow(self) -> None:
        """Jump to the bottom and follow again (after the user sends a prompt)."""
        self.anchor()

    @property
    def views(self) -> dict[int, Widget]:
        """Live widgets by entry id (frozen entries have none)."""
        return self.shown.views

    def view_state(self, entry_id: int) -> EntryViewState:
        """The entry's view state (what the user did to it), kept across freezing."""
        return self.shown.state(entry_id)

    @property
    def streaming(self) -> bool:
        """Whether a message or thought of the agent is streaming into this conversation now."""
        return bool(self.shown.streaming)

    @property
    def frozen_entry_ids(self) -> set[int]:
        """Ids of the entries shown in the frozen history."""
        return set(self.shown.frozen)

    def thaw(self, entry_id: int) -> Widget | None:
        """Turn a frozen entry back into a live widget that stays live; returns it."""
        return self.window.thaw(entry_id, pin=True)

    def freeze_all(self) -> int:
        """Freeze everything that can be frozen (at each turn end); returns how many froze."""
        return self.window.freeze_all()

    @property
    def turn_end_settled(self) -> bool:
        """Whether the last turn end is done with: its finished entries frozen (for tests)."""
        return self.turn_end.settled

    @property
    def placing(self) -> bool:
        """Whether a burst of entries (a `session/load` replay) is still being placed."""
        return self.bursts.placing

    @property
    def hidden(self) -> bool:
        """Its tab is in the background: changes are remembered, nothing is drawn."""
        return self.while_hidden.hidden

    @property
    def missed_anything(self) -> bool:
        """Hidden, and something changed that `catch_up` will draw."""
        return self.while_hidden.missed_anything

    def hide(self) -> None:
        """Its tab was switched away from: from now on changes are only remembered."""
        self.while_hidden.hide()

    def catch_up(self) -> bool:
        """Its tab is shown again: what changed meanwhile is drawn, once. True if anything
        had changed."""
        return self.while_hidden.catch_up()

    def when_shown(self, show: Callable[[], None]) -> None:
        """Run `show` now, or when the tab is shown again, in order with the entries (what
        the screen places in the conversation: a turn's summary)."""
        self.while_hidden.when_shown(show)

    # ------------------------------------------------------------ thread changes

    def _on_change(self, change: thread_changes.Change) -> None:
        match change:
            case thread_changes.MessageChunkAppended(entry=entry):
                if entry.id in self.shown.frozen:
                    self.window.thaw(entry.id, pin=False)
                view = self.shown.views.get(entry.id)
                if isinstance(view, AgentMessageView | ThoughtView):
                    view.append_chunk(change.block_index, change.text)
                elif isinstance(view, LiveEntry):
                    view.redraw()
                elif view is None:
                    self.bursts.add(entry)
            case thread_changes.EntryAdded(entry=entry):
                self._finish_streaming(except_id=entry.id)
                self.bursts.add(entry)
                self.window.maybe_freeze()
            case thread_changes.EntryChanged(entry=entry):
                self._update_entry(entry)
            case thread_changes.PermissionChanged(entry=tool_call, moved=False):
                self._update_entry(tool_call)
            case (
                thread_changes.PermissionChanged(entry=tool_call)
                | thread_changes.PermissionQueueMoved(entries=[tool_call, *_])
            ):
                self.questions.changed(change)
            case thread_changes.TurnStateChanged(running=False, stop_reason=stop_reason):
                entries = self.thread.entries
                self._turn_ended(stop_reason, entries[-1].id if entries else 0, change.error)

    def _turn_ended(self, stop_reason: str | None, last: int, error: str | None = None) -> None:
        """The turn ended (its last entry then: `last`; `error`: what failed, if it did)."""
        self.turn_end.end_streams(last)  # (then the turn settles)
        self._show_stop_reason(stop_reason, error)
        self.window.maybe_freeze()

    def _freeze_finished_turn(self) -> None:
        if self.freeze_finished_turns:
            self.window.freeze_all()

    def _mount_view(self, entry: Entry, streaming: bool = True) -> None:
        streams = streaming and self.while_hidden.streams(entry)
        view = self.drawing.view_for(entry, streaming=streams)
        if view is None:
            return
        self.shown.place(entry, view)
        if isinstance(view, AgentMessageView | ThoughtView):
            self.shown.streaming.add(entry.id)
        self.mount(view)
        self._mark_background(entry, view)

    def _update_entry(self, entry: Entry) -> None:
        if self.bursts.arriving(entry.id):
            return  # (drawn from its data when it is placed)
        if entry.id in self.shown.frozen:
            if self.bursts.redraw_frozen(entry):
                return
            self.window.thaw(entry.id, pin=False)
        view = self.shown.views.get(entry.id)
        if view is not None:
            self._mark_background(entry, view)
        if view is None:
            self.bursts.add(entry)
        elif isinstance(view, ToolCallCard):
            view.update_from_entry()
            self.card_clock.card_changed(entry)
        elif isinstance(view, AgentMessageView | ThoughtView):
            view.sync_blocks()
        elif isinstance(view, LiveEntry):
            view.redraw()

    def _mark_background(self, entry: Entry, view: Widget) -> None:
        """v2: what arrived or changed after the turn ended is marked as background activity,
        in place (a note above it, a bar beside it: drawn by an entry drawn from data, see
        `EntryDrawing.renderer`, else a CSS border)."""
        if entry.id not in self.thread.background or view.has_class("-marked"):
            return
        if isinstance(view, LiveEntry):
            view.redraw()
        else:
            view.add_class("-background")
        view.add_class("-marked")
        note = ConversationNote("↻ background activity (after the turn ended)", "background-mark")
        self.mount(note, before=view)

    def _finish_streaming(self, up_to: int | None = None, except_id: int | None = None) -> None:
        """Streaming messages (all, or those of entries up to id `up_to`) are complete: each is
        replaced by the message drawn from its data, which takes over what it parsed."""
        shown = self.shown
        for entry_id in list(shown.streaming):
            if entry_id == except_id or (up_to is not None and entry_id > up_to):
                continue
            shown.streaming.discard(entry_id)
            view = shown.views.get(entry_id)
            entry = shown.entry_of.get(view) if view is not None else None
            if not isinstance(view, AgentMessageView | ThoughtView) or entry is None:
                continue
            view.finish()
            settled = self.drawing.view_for(entry, streamed=view.streamed())
            if settled is None:
                continue
            shown.place(entry, settled)
            shown.entry_of.pop(view, None)
            if view.has_class("-marked"):
                settled.add_class("-marked")
            self.turn_end.mounting(self.mount(settled, after=view))
            self.turn_end.removing(view.remove())

    def _show_stop_reason(self, stop_reason: str | None, error: str | None = None) -> None:
        if stop_reason in (None, "end_turn"):
            return
        text = STOP_REASON_TEXT.get(str(stop_reason), f"the turn stopped: {stop_reason}")
        if stop_reason == "error":  # an error, with what failed when the agent says it
            failed = f"{text}: {error}" if error else text
            self.bursts.add_note(ConversationNote(f"✗ {failed}", "stop-error"))
            return
        self.bursts.add_note(ConversationNote(f"■ {text}", "stop-reason"))
        if stop_reason == "refusal":
            users = [e for e in self.thread.entries if is_user_message(e)]
            view = self.shown.views.get(users[-1].id) if users else None
            if isinstance(view, MessageLines):
                reason = "the agent refused this prompt; it was not kept"
                self.view_state(users[-1].id).not_kept = reason
                view.mark_not_kept(reason)

    def _on_notice(self, notice: Notice) -> None:
        self.bursts.add_note(ConversationNote(f"— {notice.text} —", "notice"))

    @on(FrozenHistory.ThawRequested)
    def _thaw_clicked(self, event: FrozenHistory.ThawRequested) -> None:
        event.stop()
        entry_id = event.item.entry_id
        if entry_id is None:
            return
        view = self.window.thaw(entry_id, pin=True)
        if event.keyboard and view is not None:
            self.call_after_refresh(focus_within, view)
        elif event.click is not None and view is not None:
            self.call_after_refresh(forward_click, self.screen, event.click)
