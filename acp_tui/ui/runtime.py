"""The process-wide policy of an acp-tui process, in one place: the garbage collector, the
interpreter's switch interval and the terminal's key table. Each acts on the whole process
(Python has one collector, one switch interval; Textual one table of escape sequences), so two
owners would undo each other. The entry point sets them up (`cli.main`, `launch.run_app`);
the rest of the app calls in here, and nothing else calls `gc.freeze`, `gc.disable` or
`sys.setswitchinterval` (`tests/unit/test_runtime.py` scans the source).

Standard library only at import (`early_start` uses it before anything heavy is loaded);
Textual is imported only to change its key table.

**The switch interval.** Frames reach the terminal while the app is busy: the interpreter hands
the GIL to a waiting thread after 1 ms instead of its default 5 ms. Textual writes each frame
from its writer thread. A frame is put on the thread's queue while the event loop goes on with
the next piece of work (the rest of a reply, a layout), so the thread waits for the GIL to wake,
again after its write and again after its flush: up to the switch interval each time. In a real
terminal, at the end of a reply streamed at full speed, the last frame appeared a median
17.7 ms after Textual handed it over (5 ms interval) and 2.3 ms after (1 ms interval), over 12
runs each. The other threads (the keys read before the first frame, Textual's input thread, the
warm-up) wait less for the GIL in the same way.

**The collector.** Off while the app starts (`pause_collections`: start-up builds objects that
live as long as the app, and collections would walk them again and again meanwhile); once the
main screen is mounted what was built is frozen and collections resume (`keep_what_was_built`),
and again once the first session is open (`freeze`). Each turn end collects the turn's garbage
and freezes the survivors when it is safe (`CollectorPolicy`, below; `ui/collector.py` puts
the turn's widgets away first); between turn ends, a full collection that finds too many
survivors freezes them (`bound_full_collections`), and once a `session/load` replay has been
drawn its garbage is collected and what survives frozen (`CollectorPolicy.replay_drawn`);
while a session opens, full collections come more often (`CollectorPolicy.opening`). At
the process's exit nothing is walked any more (`leave_garbage_to_exit`).

**The key table.** ESC + a digit is read as alt+digit (`read_terminal_keys`).
"""

from __future__ import annotations

import gc
import sys
import weakref
from collections.abc import Callable
from typing import Protocol

SWITCH_INTERVAL = 0.001
"""Seconds a thread holds the GIL while another waits for it (`sys.setswitchinterval`)."""


def setup() -> None:
    """What the entry point sets for the app's process before anything else runs: the switch
    interval (`SWITCH_INTERVAL`; the app's threads: Textual's writer, the early keys' reader)."""
    sys.setswitchinterval(SWITCH_INTERVAL)


def read_terminal_keys() -> None:
    """Textual's key table as acp-tui reads the terminal (ESC + 1…9 is alt+1…9): set by the
    entry point before the app runs (imports Textual)."""
    from acp_tui.ui.textual_internals import read_alt_digits

    read_alt_digits()


# ------------------------------------------------------------------------------ the collector


def pause_collections() -> None:
    """No automatic collection from now on (the app is being built)."""
    gc.disable()


def resume_collections() -> None:
    """Automatic collections again (however launching ended; idempotent)."""
    gc.enable()


def freeze() -> None:
    """Everything alive now lives as long as the app: no collection walks it again."""
    gc.freeze()


def keep_what_was_built() -> None:
    """The app is built: what start-up built frozen, and collections on again."""
    gc.freeze()
    gc.enable()


def leave_garbage_to_exit() -> None:
    """The process exits (an `atexit` hook, run before the interpreter's tear-down): what is
    left is freed by the exit, not walked. The interpreter's last collections walked every
    widget of the conversation (cards, prompts): with 500 permission questions queued they took
    0.8 s of the quit, the tear-down as much again. Frozen objects are never walked."""
    gc.disable()
    gc.freeze()


# ------------------------------------------------------------------ the turn end's collection

FREEZE_AT = 12_000
"""Unfrozen objects (surviving a turn end's collection) past which a quiet turn end freezes them:
every collection of the oldest generation walks them all. (15,000 and 20,000 before the footer
kept its keys across turns: the longest collections of 300 turns back to back, in a pty, went
from 26-50 ms to 17 ms of CPU, RSS growth the same.)"""
MAX_UNFROZEN = 15_000
"""The same past which a turn end freezes even while a turn runs, and past which a full
collection the interpreter ran by itself freezes its survivors (`full_collection_ended`)."""


class Turns(Protocol):
    """What runs turns (a thread): whether one runs now."""

    @property
    def turn_running(self) -> bool: ...


FULL_EVERY_WHILE_OPENING = 2
"""While a session opens, the interpreter runs a full collection after this many collections
of its middle generation (its own 10: a full collection every ~70,000 objects made)."""


class CollectorPolicy:
    """Called at each turn end (`ui/collector.py`, once the turn's widgets are put away; why
    it freezes when it does is told there); ``enabled`` False leaves the collector alone
    (benchmarks)."""

    def __init__(self, *, enabled: bool = True) -> None:
        self.enabled = enabled
        self.turns = 0
        self.collected = 0
        """Objects the turn-end collections freed (for tests and benchmarks)."""
        self.postponed = 0
        """Turn ends that froze nothing (for tests)."""
        self.freezes = 0
        """Turn ends that froze what survived (for tests)."""
        self.bulk_freezes = 0
        """Full collections between turn ends whose survivors were frozen (for tests)."""
        self.replays = 0
        """Replays drawn whose survivors were frozen (`replay_drawn`; for tests)."""
        self._watched: weakref.WeakSet[Turns] = weakref.WeakSet()
        self._collecting = False
        self._opening = 0
        self._thresholds = gc.get_threshold()

    def opening(self) -> Callable[[], None]:
        """A session opens: a `session/load` may replay a whole conversation, at full speed,
        before its first turn end. Until what this returns is called (once the session is open
        or gone), full collections come more often (`FULL_EVERY_WHILE_OPENING`): after 300
        turns replayed the first one walked 71,000-78,000 objects (38-50 ms of CPU headless,
        on a loaded machine) before the bound on full collections froze them; each now walks
        at most about 23,000."""
        if not self.enabled:
            return lambda: None
        if self._opening == 0:
            self._thresholds = gc.get_threshold()
            young, middle, _ = self._thresholds
            gc.set_threshold(young, middle, FULL_EVERY_WHILE_OPENING)
        self._opening += 1
        done = False

        def opened() -> None:
            nonlocal done
            if done:
                return
            done = True
            self._opening -= 1
            if self._opening == 0:
                gc.set_threshold(*self._thresholds)

        return opened

    def watch(self, turns: Turns) -> None:
        """Freeze nothing while `turns` runs one (held weakly: forgotten with it)."""
        self._watched.add(turns)

    def turn_ended(self) -> None:
        """Collect the turn's garbage; freeze the survivors once they are many (and no turn
        runs, unless they are too many)."""
        if not self.enabled:
            return
        self.turns += 1
        self._collecting = True
        try:
            self.collected += gc.collect()  # (only the unfrozen objects: the survivors since
            # the last freeze, and the turn's garbage)
        finally:
            self._collecting = False
        unfrozen = len(gc.get_objects())
        running = any(turns.turn_running for turns in list(self._watched))
        if unfrozen < (MAX_UNFROZEN if running else FREEZE_AT):
            self.postponed += 1
            return
        self.freezes += 1
        gc.freeze()

    def replay_drawn(self) -> None:
        """A `session/load` replay has been drawn: its garbage collected and what survives
        frozen, at once (no turn streams now).

        The replay builds a whole conversation between two turn ends, and what the bound on
        full collections (`full_collection_ended`) has not frozen by its end stayed for the
        first turn end's collection to walk: after 300 turns replayed, 32,000-56,000 objects
        (12,000-33,000 of them garbage), against 10,000-17,000 at the turn ends after (in a
        pty and headless). Frozen without a collection,
        that garbage would stay for good. Collected here once, while nothing streams (one walk
        of what the replay left unfrozen, as that turn end's was), the turn ends after it walk
        only what the new turns leave."""
        if not self.enabled:
            return
        self.replays += 1
        self._collecting = True
        try:
            self.collected += gc.collect()
        finally:
            self._collecting = False
        gc.freeze()

    def full_collection_ended(self) -> None:
        """A full collection the interpreter ran by itself (not a turn end's) is over: past
        `MAX_UNFROZEN` survivors they are frozen, whether a turn runs or not.

        Between turn ends nothing else bounds what a full collection walks: a `session/load`
        replays a whole conversation at full speed, and each automatic full collection walked
        all of it built so far (up to 240 ms for 300 turns), the first turn end's collection
        too. Frozen here, they are walked once; the next automatic full collection comes only
        once a quarter as many new objects have survived (the interpreter's rule), and walks
        only those. What this catches alive and dies later stays, as at a busy turn end."""
        if not self.enabled or self._collecting or len(gc.get_objects()) < MAX_UNFROZEN:
            return
        self.bulk_freezes += 1
        gc.freeze()


def _after_collection(phase: str, info: dict[str, int]) -> None:
    """A `gc.callbacks` hook: a full collection that ended goes to the process's policy."""
    if phase == "stop" and info.get("generation") == 2:
        collection.full_collection_ended()


def bound_full_collections() -> Callable[[], None]:
    """From now on, each automatic full collection's survivors past `MAX_UNFROZEN` are frozen
    (`CollectorPolicy.full_collection_ended`); set by the launch for the app's run. Returns
    what undoes it."""
    if _after_collection not in gc.callbacks:
        gc.callbacks.append(_after_collection)

    def undo() -> None:
        if _after_collection in gc.callbacks:
            gc.callbacks.remove(_after_collection)

    return undo


collection = CollectorPolicy()
"""The process's turn-end collection. Process-wide on purpose: Python has one garbage collector
per process (`gc.freeze`/`gc.collect` act on all of it), so two policies would undo each other.
Nothing of a session is kept here: `turn_ended` counts turn ends of every session."""
