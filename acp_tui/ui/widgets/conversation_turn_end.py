"""What the conversation does when a turn ends, so that the turn end's collection
(`acp_tui.ui.collector`) frees the turn's widgets instead of freezing them.

Each finished entry joins the frozen history (drawn by the same functions, so it looks the
same) once the messages drawn from data have mounted; the collection then waits until every
widget removed meanwhile is gone. A widget that outlived the collection would be frozen with
what lives long and, dropped later, stay there as garbage no collection walks (a widget is full
of cycles, and holds every line it drew). What the user thawed, a card with a terminal or the
question asked now stay live. The elapsed time of running cards ticks from one timer of the
conversation: a card's own timer (its task, its sleep's handle) would hold the card alive."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.await_remove import AwaitRemove
from textual.containers import VerticalScroll
from textual.widget import AwaitMount, Widget

from acp_tui.ui import collector
from acp_tui.ui.widgets.tool_call_card import ToolCallCard

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
    _settling = False

    if TYPE_CHECKING:

        def freeze_all(self) -> int: ...

    def _start_ticking(self) -> None:
        self.set_interval(TICK, self._tick_running_cards)

    def _tick_running_cards(self) -> None:
        for view in self.views.values():
            if isinstance(view, ToolCallCard):
                view.tick()

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
