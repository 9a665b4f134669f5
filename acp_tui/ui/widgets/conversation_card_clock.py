"""The clock of the running cards: the elapsed time of every live card whose call runs ticks
from this one timer of the conversation (a card's own timer, its task, its sleep's handle,
would hold the card alive past the turn end's collection, see `conversation_turn_end`). The
timer runs only while a live card's call runs and the tab is shown: an idle session, in the
background or not, wakes the app for nothing."""

from __future__ import annotations

from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget

from acp_tui.thread.entries import Entry, ToolCallEntry
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from acp_tui.ui.widgets.tool_call_facts import RUNNING

TICK = 1.0
"""Seconds between two redraws of the running cards' elapsed time."""


class CardClock:
    """One timer for the elapsed time of a conversation's running cards."""

    def __init__(self, shown: ShownEntries, hidden: Callable[[], bool]) -> None:
        self._shown = shown
        self._hidden = hidden
        """Whether the conversation's tab is hidden (the clock stops then)."""
        self._timer: Timer | None = None
        self.running = False
        """The clock ticks (paused while no live card's call runs, or hidden)."""

    def start(self, widget: Widget) -> None:
        """The clock's timer, paused, on `widget` (the conversation, once mounted)."""
        self._timer = widget.set_interval(TICK, self.tick, pause=True)
        self.running = False

    def card_changed(self, entry: Entry) -> None:
        """A card was placed or changed: the clock runs if its call runs (and it is shown)."""
        if isinstance(entry, ToolCallEntry) and entry.status in RUNNING and not self._hidden():
            self._run(True)

    def wake(self) -> None:
        """Shown again: the clock runs if a live card's call runs."""
        cards = (view for view in self._shown.views.values() if isinstance(view, ToolCallCard))
        if any(card.entry.status in RUNNING for card in cards):
            self._run(True)

    def _run(self, running: bool) -> None:
        if self._timer is None or running == self.running:
            return
        self.running = running
        if running:
            self._timer.resume()
        else:
            self._timer.pause()

    def tick(self) -> None:
        """Redraw the running cards' elapsed time (the clock stops if none runs)."""
        ticked = False
        if not self._hidden():
            for view in self._shown.views.values():
                if isinstance(view, ToolCallCard) and view.entry.status in RUNNING:
                    view.tick()
                    ticked = True
        if not ticked:
            self._run(False)  # (a card that starts running starts it again)
