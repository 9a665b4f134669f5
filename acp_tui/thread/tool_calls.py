"""Merging tool call updates into a `ToolCallEntry` and stamping its start/finish times."""

from __future__ import annotations

from acp_tui.protocol.models import FINISHED_STATUSES, ToolCall, ToolCallUpdate
from acp_tui.thread.entries import ToolCallEntry

TOOL_FIELDS = (
    "title", "name", "kind", "status", "content", "locations", "raw_input", "raw_output", "meta",
)  # fmt: skip


def copy_tool_fields(
    entry: ToolCallEntry, update: ToolCall | ToolCallUpdate, fields: set[str]
) -> bool:
    """Copy the fields the agent actually sent (`null` means unchanged); True if any were."""
    changed = False
    for name in TOOL_FIELDS:
        if name in fields:
            value = getattr(update, name)
            if name == "status" and entry.status == "cancelled" and value != "completed":
                # The user cancelled it; the agent's "failed"/"in_progress" that follows the
                # cancel is a consequence, not news. Only a real completion overrides.
                continue
            if value is not None:
                setattr(entry, name, list(value) if isinstance(value, list) else value)
                changed = True
    return changed


def stamp_times(entry: ToolCallEntry, now: float) -> None:
    """Record when the call started running / finished, after its status changed."""
    if entry.status in FINISHED_STATUSES:
        if entry.started_at is None:
            entry.started_at = now
        if entry.finished_at is None:
            entry.finished_at = now
    else:
        entry.finished_at = None
        if entry.status == "in_progress" and entry.started_at is None:
            entry.started_at = now
