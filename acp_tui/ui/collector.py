"""Keep long-lived objects out of the garbage collector's way, and no garbage in with them.

A full collection walks every tracked object, so in a long session its pauses would grow with
the history. Objects in the permanent generation (`gc.freeze`) are never walked: when a turn
ends (the user is reading, nothing streams) the turn's garbage is collected first, cycles
included (`gc.collect()` walks only what is not frozen: what the turn made), then what
survived is frozen. The permanent generation then holds what lives long (the history's
compact data, the live widgets), never the turn's garbage, and each collection walks about
one turn's objects, never the history.

There is no full pass over the permanent generation: it would walk the whole history (hundreds
of milliseconds in a long session) whenever it runs, typing or not. What dies in there later
is freed by reference counting; our own cycles are broken where their owner dies (the
conversation's frozen history holds plain data; removed widgets drop their rendered lines,
`release_dead_widget_renders`), so little waits there for a collection that never comes.

The turn end waits for what the turn removed (`collect_after`): the streaming view a finished
message replaces, the widgets merged into the frozen history. A widget is full of cycles
(styles, message queue, parent); frozen while its removal was still under way, it would stay
in the permanent generation as garbage with every line it drew (about 3,000 objects a turn).

Nothing is frozen while a turn runs anywhere in the process (`watch`): the collection comes a
few frames after the turn end, and by then a queued prompt (or another tab) may have started a
turn whose streaming message, frozen alive, would be replaced a moment later and stay in the
permanent generation as garbage. That turn end leaves its garbage to the next one, up to
`MAX_POSTPONED` in a row (prompts sent back to back, never a quiet moment between): then it
freezes anyway, so the unfrozen objects, walked by every full collection, stay bounded (what
that freeze catches alive and dies later is one streaming message in so many turns).
"""

from __future__ import annotations

import gc
import logging
import weakref
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from textual.await_remove import AwaitRemove
from textual.widget import Widget

from acp_tui.host import memory_snapshots
from acp_tui.ui.textual_internals import (
    drop_rendered_lines,
    release_dead_widget_renders,
    release_removed_children,
)
from acp_tui.ui.widgets.entry_lines import EntryLines

log = logging.getLogger(__name__)

MAX_POSTPONED = 2


class Turns(Protocol):
    """What runs turns (a thread): whether one runs now."""

    @property
    def turn_running(self) -> bool: ...


class CollectorPolicy:
    """Called at each turn end; ``enabled`` False leaves the collector alone (benchmarks)."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self.turns = 0
        self.collected = 0
        """Objects the turn-end collections freed (for tests and benchmarks)."""
        self.postponed = 0
        """Turn ends that froze nothing: a turn ran somewhere by then (for tests)."""
        self._in_a_row = 0
        self._watched: weakref.WeakSet[Turns] = weakref.WeakSet()

    def watch(self, turns: Turns) -> None:
        """Freeze nothing while `turns` runs one (held weakly: forgotten with it)."""
        self._watched.add(turns)

    def turn_ended(self) -> None:
        """Collect the turn's garbage, then freeze what survived (unless a turn runs)."""
        memory_snapshots.turn_ended()  # (only when a benchmark asks, by the environment)
        if not self.enabled:
            return
        self.turns += 1
        running = any(turns.turn_running for turns in list(self._watched))
        if running and self._in_a_row < MAX_POSTPONED:
            self.postponed += 1
            self._in_a_row += 1
            return
        self._in_a_row = 0
        self.collected += gc.collect()  # (only the unfrozen objects: the turn's)
        gc.freeze()


def collect_after(widget: Widget, settle: Callable[[], Awaitable[Sequence[AwaitRemove]]]) -> None:
    """The turn end's collection (`policy.turn_ended`), once `settle` has put the turn's widgets
    away and the widgets it removed are gone, so their cycles are collected as the turn's
    garbage instead of being frozen. `widget` (their parent) runs the wait."""

    def collect() -> None:
        release_removed_children(widget)  # (Textual's caches would keep them alive)
        release_dead_widget_renders()  # (and their lines)
        if widget.is_attached:
            drop_rendered_lines(widget.screen)  # (strips are cycles: collected now, not frozen)
            for lines in widget.screen.query(EntryLines):
                lines.drop_strips()
        policy.turn_ended()

    async def settle_then_collect() -> None:
        try:
            for removal in await settle():
                await removal
        except Exception:  # (a removal that failed: collect anyway, said in the log)
            log.exception("settling the turn's widgets before the turn end's collection")
        widget.call_after_refresh(collect)

    widget.call_later(settle_then_collect)  # (no task or worker of its own to outlive it)


policy = CollectorPolicy()
"""The process's policy. Process-wide on purpose: Python has one garbage collector per process
(`gc.freeze`/`gc.collect` act on all of it), so two policies would undo each other. Nothing of a
session is kept here: `turn_ended` counts turn ends of every session."""
