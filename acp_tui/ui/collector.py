"""Keep long-lived objects out of the garbage collector's way.

A full collection walks every tracked object, so in a long session its pauses grow with the
history. When a turn ends (the user is reading, nothing streams) the young garbage is
collected and everything that survived is moved to the permanent generation
(`gc.freeze`), which collections no longer walk. Objects that die in there later are still
freed by reference counting; only cycles among them wait, so every `FULL_EVERY` turn ends
the permanent generation is released and one full collection runs (its cost is then spread
over that many turns instead of landing mid-stream).

That full pass (200-400 ms in a long session) waits for a quiet moment: it runs `IDLE_DELAY`
after the turn end if by then no turn runs (`busy`), else it tries again after the next turn
end. Only when turns keep following each other without a pause for `MAX_POSTPONED` turn ends
does it run at a turn end regardless, so the permanent generation is still released.
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable

from acp_tui.host import memory_snapshots

FULL_EVERY = 25
IDLE_DELAY = 0.5
"""Seconds after a turn end before the full pass may run (the next prompt usually comes later)."""
MAX_POSTPONED = 10
"""Turn ends a due full pass may wait for a quiet moment before it runs anyway."""


def never_busy() -> bool:
    return False


class CollectorPolicy:
    """Called at each turn end; ``enabled`` False leaves the collector alone (benchmarks)."""

    def __init__(
        self,
        *,
        enabled: bool = True,
        full_every: int = FULL_EVERY,
        idle_delay: float = IDLE_DELAY,
        max_postponed: int = MAX_POSTPONED,
    ) -> None:
        self.enabled = enabled
        self.full_every = full_every
        self.idle_delay = idle_delay
        self.max_postponed = max_postponed
        self.turns = 0
        self.full_passes = 0
        """Full passes run (for tests and benchmarks)."""
        self.busy: Callable[[], bool] = never_busy
        """True while the app is working (a turn runs): the full pass waits (the app sets it)."""
        self._full_due = False
        self._postponed = 0
        self._waiting: asyncio.TimerHandle | None = None

    def turn_ended(self) -> None:
        memory_snapshots.turn_ended()  # (only when a benchmark asks, by the environment)
        if not self.enabled:
            return
        self.turns += 1
        if self.turns % self.full_every == 0:
            self._full_due = True
        if self._full_due:
            if self._postponed >= self.max_postponed:
                self._full_pass()
                return
            self._postponed += 1
            self._wait_for_quiet()
        gc.collect(1)
        gc.freeze()

    def _wait_for_quiet(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop to wait on: now
            self._full_pass()
            return
        if self._waiting is not None:
            self._waiting.cancel()
        self._waiting = loop.call_later(self.idle_delay, self._quiet)

    def _quiet(self) -> None:
        self._waiting = None
        if self._full_due and self.enabled and not self.busy():
            self._full_pass()

    def _full_pass(self) -> None:
        if self._waiting is not None:
            self._waiting.cancel()
            self._waiting = None
        self._full_due = False
        self._postponed = 0
        self.full_passes += 1
        gc.unfreeze()
        gc.collect()
        gc.freeze()


policy = CollectorPolicy()
"""The process's policy. Process-wide on purpose: Python has one garbage collector per process
(`gc.freeze`/`gc.collect` act on all of it), so two policies would undo each other. Nothing of a
session is kept here: `turn_ended` counts turn ends of every session, and `busy` is the app's
own check (one app per process; the app sets it on mount and puts `never_busy` back on
unmount)."""
