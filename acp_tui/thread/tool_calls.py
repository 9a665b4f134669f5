"""Merging tool call updates into a `ToolCallEntry` and stamping its start/finish times."""

from __future__ import annotations

from typing import Any

from acp_tui.protocol.models import FINISHED_STATUSES, ToolCall, ToolCallUpdate
from acp_tui.safe_text import safe_line
from acp_tui.thread.entries import ToolCallEntry

PATH_KEYS = ("file_path", "filePath", "absolute_path", "path", "notebook_path")
"""Keys of a tool call's raw input that name the file it works on (the agents' own spellings)."""
NAME_KEYS = ("toolName", "tool_name", "name")
"""Keys of a tool call's `_meta` (or a dict in it) that name the agent's tool."""

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


def _raw_path(raw_input: Any) -> str | None:
    if isinstance(raw_input, dict):
        for key in PATH_KEYS:
            value = raw_input.get(key)
            if isinstance(value, str) and value.strip():
                return value
    return None


def _tool_name(meta: dict[str, Any] | None) -> str | None:
    if not isinstance(meta, dict):
        return None
    for place in (meta, *(v for v in meta.values() if isinstance(v, dict))):
        for key in NAME_KEYS:
            value = place.get(key)
            if isinstance(value, str) and value.strip():
                return value
    return None


def fallback_title(entry: ToolCallEntry) -> str:
    """A title for a tool call the agent gave none (a failed call some agents announce only by
    its update): what it is (the agent's tool name, else its kind) and the file it names, never
    the raw call id. Made safe for the terminal."""
    what = _tool_name(entry.meta) or (entry.kind if entry.kind != "other" else "") or "tool call"
    path = entry.locations[0].path if entry.locations else _raw_path(entry.raw_input)
    return safe_line(f"{what} {path}" if path else what)
