"""Compaction upserts: how a `compaction_update` patches its entry, and summary chunks append.

Patch semantics (schema `CompactionUpdate`): a field the update omits is unchanged, `null`
clears it, a value replaces it; `summary: []` clears the summary too. A summary chunk appends
one block, joining a plain text chunk to a trailing text block.
"""

from __future__ import annotations

from acp_tui.protocol.models import CompactionUpdate, ContentBlock, TextContent
from acp_tui.safe_text import safe_text
from acp_tui.thread.entries import CompactionEntry


def new_compaction(update: CompactionUpdate, entry_id: int) -> CompactionEntry:
    """The entry a compaction's first update creates."""
    entry = CompactionEntry(update.compaction_id, id=entry_id)
    patch_compaction(entry, update)
    return entry


def patch_compaction(entry: CompactionEntry, update: CompactionUpdate) -> None:
    """Apply ``update`` to ``entry`` with patch semantics (only the fields it sent)."""
    sent = update.model_fields_set
    entry.status = safe_text(update.status)
    if "summary" in sent:
        entry.summary = []
        for block in update.summary or ():
            append_summary(entry, block)
    if "error" in sent:
        entry.error = update.error
    if "meta" in sent:
        entry.meta = update.meta


def _plain(block: ContentBlock) -> bool:
    return (
        type(block) is TextContent
        and block.annotations is None
        and block.meta is None
        and not block.model_extra
    )


def append_summary(entry: CompactionEntry, block: ContentBlock) -> None:
    """One more block of the summary (a plain text chunk continues a trailing text block)."""
    summary = entry.summary
    if summary and isinstance(block, TextContent) and _plain(block):
        last = summary[-1]
        if isinstance(last, TextContent):
            summary[-1] = last.model_copy(update={"text": last.text + block.text})
            return
    summary.append(block)
