"""Keep long-lived objects out of the garbage collector's way, and no garbage in with them: the
turn's widgets put away before the turn end's collection (`collect_after`), and why that
collection freezes when it does (`runtime.CollectorPolicy`, `FREEZE_AT`, `MAX_UNFROZEN`).

A full collection walks every tracked object, so in a long session its pauses would grow with
the history. Objects in the permanent generation (`gc.freeze`) are never walked, and never
collected either: what dies in there stays for good unless reference counting frees it, and a
widget is full of cycles (styles, message queue, signals, the lines it drew).

So the app freezes rarely. When a turn ends its garbage is collected (`gc.collect()` walks only
what is not frozen: the survivors since the last freeze, and the turn's garbage). What survives
stays unfrozen until there are `FREEZE_AT` such objects; only then does a turn end freeze them.
A turn end finds 5,000-10,000 unfrozen objects alive (the live widgets of the moment), and the
history is compact data (a turn leaves 130-250 tracked objects behind), so that is every 15-35
turns (150 replies written at once, in a pty), and a collection walks at most about 15,000-
19,000 objects (17-48 ms of CPU on a machine loaded 4-7), never the history.

Freezing at every turn end, as this did before, froze the live widgets of the moment, and what
the next turn replaces stayed in the permanent generation as garbage: the footer's keys (a
starting turn rebuilds them), restyled widgets' component styles, their lines, and when the
user's next prompt had already started a turn (typed as "ready" shows, queued, `//all`), its
prompt and streaming message (300 replies written at once, each prompt typed at "ready": 0.28
MB a turn on main; with the footer rebuilt each turn, 0.4 MB). The footer now keeps its keys
across turns (`ScreenFooter`: the cancel key hidden, not rebuilt).

Nothing is frozen while a turn runs anywhere in the process (`watch`): its streaming message,
cards and prompt would be replaced a moment later. Prompts back to back (queued, `//all`, tabs
streaming in turn) may never leave a quiet turn end: past `MAX_UNFROZEN` objects the turn end
freezes anyway (what that catches alive and dies later is one turn's widgets every 15 turns or
more). Between turn ends (a `session/load` replaying a whole conversation), a full collection
the interpreter runs by itself freezes its survivors past `MAX_UNFROZEN` as well
(`runtime.bound_full_collections`), and once the replay has been drawn, it settles as a turn
end does (its widgets merged into the history and gone) and what it left unfrozen is collected
and frozen (`collect_once_replayed`), not walked by the first turn end after it.

There is no full pass over the permanent generation: it would walk the whole history (hundreds
of milliseconds in a long session). Our own cycles are broken where their owner dies (the
conversation's frozen history holds plain data; removed widgets drop their rendered lines,
`release_dead_widget_renders`).

The turn end waits for what the turn removed (`collect_after`): the streaming view a finished
message replaces, the widgets merged into the frozen history, so their cycles are the turn's
garbage, collected at once, and never frozen by the freeze that may follow.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from textual.await_remove import AwaitRemove
from textual.widget import Widget

from acp_tui.host import memory_snapshots
from acp_tui.ui import runtime
from acp_tui.ui.textual_internals import (
    drop_rendered_lines,
    release_dead_widget_renders,
    release_removed_children,
)
from acp_tui.ui.widgets.entry_lines import EntryLines

log = logging.getLogger(__name__)


def collect_after(
    widget: Widget,
    settle: Callable[[], Awaitable[Sequence[AwaitRemove]]],
    *,
    replayed: bool = False,
) -> None:
    """The turn end's collection (`runtime.collection.turn_ended`), once `settle` has put the
    turn's widgets away and the widgets it removed are gone, so their cycles are collected as
    the turn's garbage instead of being frozen. `widget` (their parent) runs the wait.
    `replayed`: the settle ends a `session/load` replay (`collect_once_replayed`), and the
    replay's collection runs instead (`runtime.collection.replay_drawn`)."""

    def collect() -> None:
        release_removed_children(widget)  # (Textual's caches would keep them alive)
        release_dead_widget_renders()  # (and their lines)
        if widget.is_attached:
            drop_rendered_lines(widget.screen)  # (strips are cycles: collected now, not frozen)
            for lines in widget.screen.query(EntryLines):
                lines.drop_strips()
        if replayed:
            runtime.collection.replay_drawn()
            return
        memory_snapshots.turn_ended()  # (only when a benchmark asks, by the environment)
        runtime.collection.turn_ended()

    async def settle_then_collect() -> None:
        try:
            for removal in await settle():
                await removal
        except Exception:  # (a removal that failed: collect anyway, said in the log)
            log.exception("settling the turn's widgets before the turn end's collection")
        widget.call_after_refresh(collect)

    widget.call_later(settle_then_collect)  # (no task or worker of its own to outlive it)


def collect_once_replayed(
    widget: Widget, placing: Callable[[], bool], end_streams: Callable[[], None]
) -> None:
    """The replay's collection (`runtime.collection.replay_drawn`), after the frame in which a
    `session/load`'s replay has been placed (`placing()` false): `end_streams` ends it as a
    turn end does (its last message's stream closed, the entries merged into the history, the
    removed widgets gone, the lines dropped) and calls `collect_after(replayed=True)`: its
    garbage collected while nothing streams, and what the conversation holds frozen, instead
    of walked at the first turn end. (Frozen as they were on the screen, the live window's
    widgets stayed as garbage for good once the first turn end merged them: in a pty after 300
    turns, 15,000-70,000 objects.) `widget` (the conversation) runs the wait."""

    def placed() -> None:
        if not widget.is_attached:  # (the app quit meanwhile)
            return
        if placing():
            widget.call_after_refresh(placed)
            return
        end_streams()

    widget.call_after_refresh(placed)
