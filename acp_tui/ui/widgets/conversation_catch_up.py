"""What the conversation does while its tab is hidden: nothing but remember what to show.

A session in a background tab keeps streaming into its `Thread` (the reducer keeps the data);
its conversation mounts and draws nothing for it. It remembers, in order, what it must place
when the tab is shown again (the entries that came, the ends of turns with their stop reasons,
the agent's notices, the turn summaries) and, once each, the entries it already shows that
changed meanwhile. Shown again (`catch_up`), it places each new entry once, drawn from its data
(a message still streaming gets its streaming view), and brings each changed one up to date
once; what the user did to an entry (opened, folded: its `EntryViewState`), the scroll position
and the frozen history are the view's own and stay as they were.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from acp_tui.client.events import Notice
from acp_tui.thread import thread_changes
from acp_tui.thread.entries import Entry
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from acp_tui.ui.widgets.message_view import AgentMessageView, ThoughtView

Missed = thread_changes.EntryAdded | Notice | Callable[[], None]
"""What a hidden conversation places when shown again, in the order it came."""


class CatchUp:
    """The conversation's changes remembered while its tab is hidden, drawn once shown."""

    def __init__(
        self,
        thread: Thread,
        shown: ShownEntries,
        *,
        draw_change: Callable[[thread_changes.Change], None],
        place_notice: Callable[[Notice], None],
        end_turn: Callable[[str | None, int, str | None], None],
        update_entry: Callable[[Entry], None],
        arriving: Callable[[int], bool],
        shown_again: Callable[[], None],
    ) -> None:
        self._thread = thread
        self._shown = shown
        self._draw_change = draw_change
        self._place_notice = place_notice
        self._end_turn = end_turn
        """Ends a turn: its stop reason, its last entry's id, what failed (if it did)."""
        self._update_entry = update_entry
        """Draws a shown entry again."""
        self._arriving = arriving
        """Whether a burst holds the entry for the next frame (it is known)."""
        self._shown_again = shown_again
        """Told once it caught up (the running cards' clock)."""
        self._hidden = False
        self._catching_up = False
        self._missed: list[Missed] = []
        self._touched: dict[int, Entry] = {}
        """Entries shown before the tab was hidden that changed since (once each)."""
        self._placing: set[int] = set()
        """Entries that came while hidden (drawn from their data when placed)."""

    @property
    def hidden(self) -> bool:
        """Its tab is in the background: changes are remembered, nothing is drawn."""
        return self._hidden

    @property
    def catching_up(self) -> bool:
        """Drawing what changed while hidden, now."""
        return self._catching_up

    @property
    def missed_anything(self) -> bool:
        """Hidden, and something changed that `catch_up` will draw."""
        return self._hidden and bool(self._missed or self._touched)

    def hide(self) -> None:
        """Its tab was switched away from: from now on changes are only remembered."""
        if self._hidden:
            return
        self._hidden = True
        self._missed, self._touched, self._placing = [], {}, set()

    def catch_up(self) -> bool:
        """Its tab is shown again: what changed meanwhile is drawn, once. True if anything
        had changed."""
        if not self._hidden:
            return False
        self._hidden = False
        missed, touched = self._missed, self._touched
        self._missed, self._touched, self._placing = [], {}, set()
        self._catching_up = True
        try:
            for entry in touched.values():
                self._bring_up_to_date(entry)
            for item in missed:
                if isinstance(item, Notice):
                    self._place_notice(item)
                elif isinstance(item, thread_changes.EntryAdded):
                    self._draw_change(item)
                else:
                    item()
        finally:
            self._catching_up = False
        self._shown_again()
        return bool(missed or touched)

    def when_shown(self, show: Callable[[], None]) -> None:
        """Run `show` now, or when the tab is shown again, in order with the entries (what
        the screen places in the conversation: a turn's summary)."""
        if self._hidden:
            self._missed.append(show)
        else:
            show()

    def streams(self, entry: Entry) -> bool:
        """Whether a message placed now may still be streaming: while catching up only the
        last entry of a running turn (the others are drawn from their data at once)."""
        if not self._catching_up:
            return True
        entries = self._thread.entries
        return self._thread.turn_running and bool(entries) and entries[-1] is entry

    def observe(self, change: thread_changes.Change) -> None:
        """A change of the thread: drawn now, or remembered while hidden."""
        if not self._hidden:
            self._draw_change(change)
            return
        match change:
            case (
                thread_changes.EntryAdded(entry=entry)
                | thread_changes.MessageChunkAppended(entry=entry)
                | thread_changes.EntryChanged(entry=entry)
                | thread_changes.PermissionChanged(entry=entry)
            ):
                self._remember(entry)
            case thread_changes.PermissionQueueMoved(entries=entries):
                for tool_call in entries:
                    self._remember(tool_call)
            case thread_changes.TurnStateChanged(running=False, stop_reason=stop_reason):
                last = self._thread.entries[-1].id if self._thread.entries else 0
                ended = partial(self._end_turn, stop_reason, last, change.error)
                self._missed.append(ended)

    def observe_notice(self, notice: Notice) -> None:
        """A notice of the agent: placed now, or remembered while hidden."""
        if self._hidden:
            self._missed.append(notice)
        else:
            self._place_notice(notice)

    def _known(self, entry: Entry) -> bool:
        shown = self._shown
        return entry.id in shown.views or entry.id in shown.frozen or self._arriving(entry.id)

    def _remember(self, entry: Entry) -> None:
        if entry.id in self._placing:
            return  # (placed drawn from its data as it is then)
        if self._known(entry):
            self._touched[entry.id] = entry
        else:
            self._placing.add(entry.id)
            self._missed.append(thread_changes.EntryAdded(entry))

    def _bring_up_to_date(self, entry: Entry) -> None:
        """An entry shown before the tab was hidden changed: a streaming message gets the text
        it missed, anything else is drawn again (as one change would)."""
        view = self._shown.views.get(entry.id)
        if isinstance(view, AgentMessageView | ThoughtView):
            view.catch_up()
        else:
            self._update_entry(entry)
