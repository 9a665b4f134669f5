"""The agent's context compactions as the thread keeps them: one entry per compaction id,
upserted by `compaction_update` (patch semantics, `compaction.py`) and grown by
`compaction_summary_chunk` (a chunk before its compaction starts one: nothing is lost).

A part `Thread` owns (`Thread.compaction_part`): it sees the thread through `EntryPlacing`,
adds its entries and emits on the thread's signal through it.
"""

from __future__ import annotations

from acp_tui.protocol.models import CompactionSummaryChunk, CompactionUpdate
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.compaction import append_summary, new_compaction, patch_compaction
from acp_tui.thread.entries import CompactionEntry
from acp_tui.thread.part_host import EntryPlacing


class ThreadCompactions:
    """The compactions of one thread (see the module docstring)."""

    def __init__(self, thread: EntryPlacing) -> None:
        self._thread = thread
        self.by_id: dict[str, CompactionEntry] = {}
        """The compactions by id, in the order they came."""

    def reset(self) -> None:
        """Forget every compaction (another session opens in the thread)."""
        self.by_id = {}

    def on_update(self, update: CompactionUpdate) -> None:
        entry = self.by_id.get(update.compaction_id)
        if entry is None:
            entry = new_compaction(update, self._thread.next_entry_id())
            self.by_id[entry.compaction_id] = entry
            self._thread.place_entry(entry)
            return
        patch_compaction(entry, update)
        self._thread.changed.emit(ch.EntryChanged(entry))

    def on_summary_chunk(self, update: CompactionSummaryChunk) -> None:
        entry = self.by_id.get(update.compaction_id)
        if entry is None:  # a chunk before its compaction: it starts one (nothing is lost)
            start = CompactionUpdate(compaction_id=update.compaction_id, status="in_progress")
            self.on_update(start)
            entry = self.by_id[update.compaction_id]
        append_summary(entry, update.content)
        self._thread.changed.emit(ch.EntryChanged(entry))
