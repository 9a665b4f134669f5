"""Memory snapshots at given turn ends, for a benchmark that looks for what grows per turn.

Only when the environment names a directory (`ENV`, with the turn numbers in `TURNS_ENV`,
e.g. ``20,60``): `tracemalloc` starts at the first turn end (`FRAMES` frames per allocation: tracing
the launch would slow it past a bench's patience; only what grows later matters) and at the
end of each of those turns the process writes into that directory ``turn-N.types`` (one line
``COUNT TYPE`` per type of the objects the garbage collector tracks, the permanent generation
included, most first), then runs a full collection and writes ``turn-N.live`` (how many
objects it collected, then the same counts) and ``turn-N.tracemalloc`` (a `tracemalloc`
snapshot of what is live, `Snapshot.load`). The types minus the live counts are garbage the
collector had not reached yet (frozen or old). The app's collection hooks are set aside
meanwhile: the bound on full collections froze what survived that collection before it was
counted (``turn-N.live`` listed a handful of objects), and the pause log counted it as the app's.
Nothing is installed otherwise.
`bench/memory_diff.py` compares two turns.
"""

from __future__ import annotations

import gc
import os
from collections import Counter
from pathlib import Path

ENV = "ACP_TUI_MEM_SNAPSHOTS"
TURNS_ENV = "ACP_TUI_MEM_SNAPSHOT_TURNS"
FRAMES = 3


class Snapshots:
    """Counts turn ends and writes the snapshots of the chosen ones."""

    def __init__(self, directory: Path, turns: frozenset[int]) -> None:
        self.directory = directory
        self.turns = turns
        self.ended = 0

    def turn_ended(self) -> None:
        """Count a finished turn and, at the turns asked for, write a memory snapshot."""
        import tracemalloc  # (only when a bench asks: not on every launch)

        self.ended += 1
        if not tracemalloc.is_tracing():
            tracemalloc.start(FRAMES)
        if self.ended not in self.turns:
            return
        stem = self.directory / f"turn-{self.ended}"
        hooks = gc.callbacks[:]  # (the app's: this collection is the bench's, not the app's:
        gc.callbacks.clear()  # no freeze of what survives it before it is counted, no pause)
        try:
            gc.unfreeze()  # (the permanent generation is not in `gc.get_objects`)
            Path(f"{stem}.types").write_text(type_counts())
            collected = gc.collect()
            Path(f"{stem}.live").write_text(f"{collected} collected\n{type_counts()}")
            tracemalloc.take_snapshot().dump(f"{stem}.tracemalloc")
        except OSError:
            self.turns = frozenset()  # the directory is gone: stop, never fail a turn
        finally:
            gc.callbacks[:] = hooks
            gc.freeze()


def type_counts() -> str:
    """One line ``COUNT TYPE`` per type of the objects the collector tracks, most first."""
    counts = Counter(type(obj).__qualname__ for obj in gc.get_objects())
    return "".join(f"{count} {name}\n" for name, count in counts.most_common())


active: Snapshots | None = None
"""The process's snapshots, when the environment asks for them."""


def directory() -> Path | None:
    """The directory `ENV` names, None when unset: acp-tui's own files, never changes."""
    path = os.environ.get(ENV)
    return Path(path).absolute() if path else None


def install_from_env() -> Snapshots | None:
    """Start tracing when `ENV` names a directory and `TURNS_ENV` some turn numbers."""
    global active
    where = directory()
    if where is None:
        return None
    try:
        turns = frozenset(int(turn) for turn in os.environ.get(TURNS_ENV, "").split(",") if turn)
    except ValueError:
        return None
    if not turns:
        return None
    active = Snapshots(where, turns)
    return active


def turn_ended() -> None:
    """Called at every turn end (`acp_tui.ui.collector`); writes nothing unless installed."""
    if active is not None:
        active.turn_ended()
