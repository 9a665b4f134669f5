"""Keep long-lived objects out of the garbage collector's way.

A full collection walks every tracked object, so in a long session its pauses grow with the
history. When a turn ends (the user is reading, nothing streams) the young garbage is
collected and everything that survived is moved to the permanent generation
(`gc.freeze`), which collections no longer walk. Objects that die in there later are still
freed by reference counting; only cycles among them wait, so every `FULL_EVERY` turn ends
the permanent generation is released and one full collection runs (its cost is then spread
over that many turns instead of landing mid-stream).
"""

from __future__ import annotations

import gc

FULL_EVERY = 25


class CollectorPolicy:
    """Called at each turn end; ``enabled`` False leaves the collector alone (benchmarks)."""

    def __init__(self, *, enabled: bool = True, full_every: int = FULL_EVERY) -> None:
        self.enabled = enabled
        self.full_every = full_every
        self.turns = 0

    def turn_ended(self) -> None:
        if not self.enabled:
            return
        self.turns += 1
        if self.turns % self.full_every == 0:
            gc.unfreeze()
            gc.collect()
        else:
            gc.collect(1)
        gc.freeze()


policy = CollectorPolicy()
"""The process's policy (the collector is process-wide)."""
