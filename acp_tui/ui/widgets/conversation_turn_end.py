"""What the conversation does when a turn ends, so that the turn end's collection
(`acp_tui.ui.collector`) frees the turn's widgets instead of freezing them.

Each finished entry joins the frozen history (drawn by the same functions, so it looks the
same) once the messages drawn from data have mounted; the collection then waits until every
widget removed meanwhile is gone. A widget that outlived the collection would be frozen with
what lives long and, dropped later, stay there as garbage no collection walks (a widget is full
of cycles, and holds every line it drew). What the user thawed, a card with a terminal or the
question asked now stay live. (The running cards' elapsed time ticks from one timer of the
conversation for the same reason: `conversation_card_clock`.)"""

from __future__ import annotations

from collections.abc import Callable

from textual.await_remove import AwaitRemove
from textual.widget import AwaitMount, Widget

from acp_tui.ui import collector
from acp_tui.ui.widgets.conversation_shown import ShownEntries
from acp_tui.ui.widgets.message_view import AgentMessageView, ThoughtView


class TurnEnd:
    """A conversation's turn ends: streams close, then the finished entries freeze."""

    def __init__(
        self,
        view: Widget,
        shown: ShownEntries,
        *,
        catching_up: Callable[[], bool],
        finish_streaming: Callable[[int], None],
        freeze: Callable[[], None],
    ) -> None:
        self._view = view
        """The conversation (its turn end's collection waits on it)."""
        self._shown = shown
        self._catching_up = catching_up
        """Whether the conversation draws what changed while its tab was hidden, now."""
        self._finish_streaming = finish_streaming
        """Redraws the streaming messages up to an entry id from their data."""
        self._freeze = freeze
        """Freezes the finished entries."""
        self._mounting: list[AwaitMount] = []
        self._removing: list[AwaitRemove] = []
        self._settle_pending = False
        self._settling = False
        self._replayed = False
        """The settle pending ends a `session/load` replay (`end_streams(replayed=True)`)."""

    def mounting(self, mount: AwaitMount) -> None:
        """A widget mounts: the turn settles once it has."""
        self._mounting.append(mount)

    def removing(self, removal: AwaitRemove) -> None:
        """A widget is removed: the turn end's collection waits until it is gone."""
        self._removing.append(removal)

    def end_streams(self, last: int, *, replayed: bool = False) -> None:
        """The turn ended: the messages streaming up to entry `last` close their documents now
        (their last lines drawn at once, in the height they have); once that frame is drawn
        they are redrawn from data (a full render of a long message, see `finish_streaming`)
        and the turn settles (after the next refresh if none was streaming). `replayed`: a
        `session/load` replay has been placed, and settles as a turn end does before the
        replay's collection (`collector.collect_once_replayed`)."""
        settle = not self._settle_pending  # turns ending in a burst (a replay) settle once
        self._settle_pending = True
        self._replayed = self._replayed or replayed
        streaming = self._shown.streaming
        views = [
            view
            for entry_id, view in self._shown.views.items()
            if entry_id in streaming and entry_id <= last and view.is_mounted
            if isinstance(view, AgentMessageView | ThoughtView)
        ]
        waiting = len(views)
        if self._catching_up():
            # a turn that ended while the tab was hidden: its end was never on the screen, so
            # the messages are drawn from their data at once (no frame of their streamed
            # height, with its blank step at the end, before the swap)
            for view in views:
                view.finish()
            self._finish_streaming(last)
            if settle:
                self._turn_settled()
            return

        def drawn() -> None:
            nonlocal waiting
            waiting -= 1
            if waiting > 0 or not self._view.is_attached:  # (the app quit meanwhile)
                return
            self._finish_streaming(last)
            if settle:
                self._turn_settled()

        if not views:
            waiting = 1
            self._view.call_after_refresh(drawn)
        for view in views:
            view.finish(replaced=True)  # (its end drawn without a layout)
            view.when_drawn(drawn)

    @property
    def settled(self) -> bool:
        """Whether the last turn end is done with: its finished entries frozen (for tests)."""
        return not (self._settle_pending or self._settling)

    def _turn_settled(self) -> None:
        self._settle_pending = False
        self._settling = True
        replayed, self._replayed = self._replayed, False
        collector.collect_after(self._view, self._settle, replayed=replayed)

    async def _settle(self) -> list[AwaitRemove]:
        """The finished entries join the frozen history; returns the removals to wait for."""
        try:
            mounting, self._mounting = self._mounting, []
            for mount in mounting:
                await mount
            if self._view.is_attached:
                self._freeze()
        finally:
            self._settling = False
        removing, self._removing = self._removing, []
        return removing
