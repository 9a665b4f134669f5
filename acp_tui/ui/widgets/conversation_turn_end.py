"""What the conversation does when a turn ends, so that the turn end's collection
(`acp_tui.ui.collector`) frees the turn's widgets instead of freezing them.

Each finished entry joins the frozen history (drawn by the same functions, so it looks the
same) once the messages drawn from data have mounted; the collection then waits until every
widget removed meanwhile is gone. A widget that outlived the collection would be frozen with
what lives long and, dropped later, stay there as garbage no collection walks (a widget is full
of cycles, and holds every line it drew). What the user thawed, a card with a terminal or the
question asked now stay live. The elapsed time of running cards ticks from one timer of the
conversation: a card's own timer (its task, its sleep's handle) would hold the card alive. The
timer runs only while a live card's call runs (and its tab is shown): an idle session, in the
background or not, wakes the app for nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.await_remove import AwaitRemove
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widget import AwaitMount, Widget

from acp_tui.thread.entries import Entry, ToolCallEntry
from acp_tui.ui import collector
from acp_tui.ui.widgets.message_view import AgentMessageView, ThoughtView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from acp_tui.ui.widgets.tool_call_facts import RUNNING

TICK = 1.0
"""Seconds between two redraws of the running cards' elapsed time."""


class ConversationTurnEnd(VerticalScroll):
    """The turn-end side of `ConversationView` (a mixin: it needs the view's state)."""

    freeze_finished_turns = True
    """False keeps finished entries live in the window of recent ones (tests comparing live
    widgets with their frozen drawing)."""
    views: dict[int, Widget]
    _mounting: list[AwaitMount]
    _removing: list[AwaitRemove]
    _settle_pending: bool
    _streaming: set[int]
    _settling = False
    _catching_up: bool

    if TYPE_CHECKING:

        def freeze_all(self) -> int: ...
        @property
        def hidden(self) -> bool: ...

        def _finish_streaming(
            self, except_id: int | None = None, up_to: int | None = None
        ) -> None: ...

    _clock: Timer | None = None
    clock_running = False
    """The running cards' clock ticks (paused while no live card's call runs, or hidden)."""

    def _start_ticking(self) -> None:
        self._clock = self.set_interval(TICK, self._tick_running_cards, pause=True)
        self.clock_running = False

    def _card_changed(self, entry: Entry) -> None:
        """A card was placed or changed: the clock runs if its call runs (and it is shown)."""
        if isinstance(entry, ToolCallEntry) and entry.status in RUNNING and not self.hidden:
            self._run_clock(True)

    def _wake_clock(self) -> None:
        """Shown again: the clock runs if a live card's call runs."""
        cards = (view for view in self.views.values() if isinstance(view, ToolCallCard))
        if any(card.entry.status in RUNNING for card in cards):
            self._run_clock(True)

    def _run_clock(self, running: bool) -> None:
        if self._clock is None or running == self.clock_running:
            return
        self.clock_running = running
        if running:
            self._clock.resume()
        else:
            self._clock.pause()

    def _tick_running_cards(self) -> None:
        ticked = False
        if not self.hidden:
            for view in self.views.values():
                if isinstance(view, ToolCallCard) and view.entry.status in RUNNING:
                    view.tick()
                    ticked = True
        if not ticked:
            self._run_clock(False)  # (a card that starts running starts it again)

    def _end_streams(self, last: int) -> None:
        """The turn ended: the messages streaming up to entry `last` close their documents now
        (their last lines drawn at once, in the height they have); once that frame is drawn
        they are redrawn from data (a full render of a long message, see `_finish_streaming`)
        and the turn settles (after the next refresh if none was streaming)."""
        settle = not self._settle_pending  # turns ending in a burst (a replay) settle once
        self._settle_pending = True
        views = [
            view
            for entry_id, view in self.views.items()
            if entry_id in self._streaming and entry_id <= last and view.is_mounted
            if isinstance(view, AgentMessageView | ThoughtView)
        ]
        waiting = len(views)
        if self._catching_up:
            # a turn that ended while the tab was hidden: its end was never on the screen, so
            # the messages are drawn from their data at once (no frame of their streamed
            # height, with its blank step at the end, before the swap)
            for view in views:
                view.finish()
            self._finish_streaming(up_to=last)
            if settle:
                self._turn_settled()
            return

        def drawn() -> None:
            nonlocal waiting
            waiting -= 1
            if waiting > 0 or not self.is_attached:  # (the app quit meanwhile)
                return
            self._finish_streaming(up_to=last)
            if settle:
                self._turn_settled()

        if not views:
            waiting = 1
            self.call_after_refresh(drawn)
        for view in views:
            view.finish(replaced=True)  # (its end drawn without a layout)
            view.when_drawn(drawn)

    @property
    def turn_end_settled(self) -> bool:
        """Whether the last turn end is done with: its finished entries frozen (for tests)."""
        return not (self._settle_pending or self._settling)

    def _turn_settled(self) -> None:
        self._settle_pending = False
        self._settling = True
        collector.collect_after(self, self._settle)

    async def _settle(self) -> list[AwaitRemove]:
        """The finished entries join the frozen history; returns the removals to wait for."""
        try:
            mounting, self._mounting = self._mounting, []
            for mount in mounting:
                await mount
            if self.is_attached and self.freeze_finished_turns:
                self.freeze_all()
        finally:
            self._settling = False
        removing, self._removing = self._removing, []
        return removing
