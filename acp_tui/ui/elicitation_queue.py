"""Elicitations (`elicitation/create`) shown one screen at a time, in the order the agent asked.

An agent may ask many at once; each would be a modal screen over the last (fifty nested modal
screens overflow Textual's background blending). The queue shows the oldest question still
open, and the next when it is dismissed; questions answered meanwhile (a cancelled turn answers
them all) are skipped. The screen shown says how many wait behind it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

from textual.screen import Screen

from acp_tui.client.elicitation import PendingElicitation
from acp_tui.ui.screens.elicitation_screen import ElicitationScreen


class ElicitationQueue:
    """The agent's open elicitations: one shown, the rest waiting their turn, oldest first."""

    def __init__(self, push: Callable[[Screen[Any], Callable[[Any], None]], None]) -> None:
        self.push = push
        """Shows a screen over the session's own screens (`ScreenUi.show`: when its tab is
        shown), calling back when it is dismissed."""
        self._waiting: deque[PendingElicitation] = deque()
        self.shown: ElicitationScreen | None = None

    @property
    def waiting(self) -> int:
        """How many wait behind the one shown (answered ones no longer count)."""
        return sum(1 for pending in self._waiting if not pending.done)

    def add(self, pending: PendingElicitation) -> None:
        self._waiting.append(pending)
        pending.future.add_done_callback(lambda _: self._count_changed())
        if self.shown is None:
            self._show_next()
        else:
            self._count_changed()

    def _show_next(self) -> None:
        while self._waiting and self._waiting[0].done:
            self._waiting.popleft()  # answered while it waited (a cancelled turn)
        if not self._waiting:
            self.shown = None
            return
        screen = ElicitationScreen(self._waiting.popleft(), waiting=self.waiting)
        self.shown = screen
        self.push(screen, lambda _: self._dismissed(screen))

    def _dismissed(self, screen: ElicitationScreen) -> None:
        if self.shown is screen:
            self.shown = None
            self._show_next()

    def _count_changed(self) -> None:
        if self.shown is not None:
            self.shown.set_waiting(self.waiting)
