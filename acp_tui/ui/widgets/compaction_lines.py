"""A context compaction drawn from its data (`CompactionEntry`), live and frozen alike.

"⟳ Compacting context…" while it runs; once completed, "Context compacted" with its summary
folded under it (a click on the title opens it, remembered in the view state); failed or
cancelled, what happened and the agent's error. Summary text is Markdown, other blocks as in
messages.
"""

from __future__ import annotations

from rich.text import Text
from textual.strip import Strip

from acp_tui.protocol import models as m
from acp_tui.thread.entries import CompactionEntry
from acp_tui.ui.widgets.entry_lines import Render
from acp_tui.ui.widgets.entry_renderables import (
    Look,
    block_lines,
    collapsible_title,
    fill,
    padded,
    section_action,
    with_margin,
    wrap_text,
)
from acp_tui.ui.widgets.entry_state import EntryViewState
from acp_tui.ui.widgets.message_lines import markdown_document_lines

SUMMARY = "compaction-summary"
"""The section that holds the summary (closed unless the user opens it)."""
INDENT = 2
ENDED = {
    "failed": ("✗ Context compaction failed", "card-border-failed"),
    "cancelled": ("■ Context compaction cancelled", "card-border-cancelled"),
}


def compaction_render(entry: CompactionEntry, state: EntryViewState) -> Render:
    """The renderer of a compaction entry, reading its view state when drawn."""
    return lambda look, width: compaction_lines(entry, look, width, state)


def compaction_title(entry: CompactionEntry) -> str:
    """What the compaction's first line says."""
    if entry.status == "in_progress":
        return "⟳ Compacting context…"
    if entry.status == "completed":
        return "Context compacted"
    ended = ENDED.get(entry.status)
    return ended[0] if ended is not None else f"Context compaction: {entry.status}"


def summary_lines(entry: CompactionEntry, look: Look, width: int) -> list[Strip]:
    """The compaction's summary blocks: text as Markdown (inert), other blocks by their kind."""
    lines: list[Strip] = []
    for block in list(entry.summary):
        if isinstance(block, m.TextContent):
            lines += markdown_document_lines(block.text, look, width)
        else:
            lines += block_lines(block, look, width)
    return lines


def compaction_lines(
    entry: CompactionEntry, look: Look, width: int, state: EntryViewState | None = None
) -> list[Strip]:
    """A compaction entry's lines: its title and, when opened, the summary it produced."""
    title = compaction_title(entry)
    if entry.status == "completed" and entry.summary:
        open_ = state.sections.get(SUMMARY, False) if state is not None else False
        action = section_action(SUMMARY)
        head = collapsible_title(title, width, look.style("title"), expanded=open_, action=action)
        if not open_:
            return with_margin([head], width, look)
        body = summary_lines(entry, look, width - INDENT)
        return with_margin([head, *padded(body, width, look.style("base"), INDENT, 0)], width, look)
    ended = ENDED.get(entry.status)
    style = look.style(ended[1] if ended is not None else "notice")
    text = Text(title)
    if entry.error:
        text.append(f"\n{entry.error}")
    lines = [fill(line, width, style) for line in wrap_text(text, look, width)]
    return with_margin(lines, width, look)
