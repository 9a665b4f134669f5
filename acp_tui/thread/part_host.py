"""How a part the `Thread` owns (its plans, messages, compactions, tool calls) sees the thread:
it adds entries at the end of the conversation and emits on the thread's signal, nothing else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from acp_tui.signal import Signal
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import Entry


class EntryPlacing(Protocol):
    """What a part needs of its `Thread` to add entries and tell of changes."""

    @property
    def changed(self) -> Signal[ch.Change]:
        """The thread's signal."""

    def next_entry_id(self) -> int:
        """A new entry id of the thread."""

    def place_entry(self, entry: Entry) -> None:
        """Add an entry at the end of the conversation."""


class EntryReading(EntryPlacing, Protocol):
    """An `EntryPlacing` whose part also reads the entries so far."""

    @property
    def entries(self) -> Sequence[Entry]:
        """The thread's entries, in order."""
