"""A `session/update` notification's params read into a typed update: the one reader of them.

`parse_update_notification(params)` returns a `TextChunk` for a plain text chunk (the streaming
hot path: one dict look-up per field, no pydantic) or the update's model
(`models.parse_session_update`: unknown kinds and invalid known ones as `UnknownUpdate`, kept
raw and shown as unknown). Agent text is made safe here, as the models' `DisplayStr` does.
`parse_v2_update_notification` does the same for a v2 session (no fast path: v2 chunks carry
ids the reducer needs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from acp_tui.protocol.models import (
    KnownSessionUpdate,
    ToolCallUpdate,
    UnknownUpdate,
    parse_session_update,
)
from acp_tui.safe_text import safe_text

TEXT_CHUNK_KINDS: Final = frozenset(
    {"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"}
)


@dataclass(slots=True)
class TextChunk:
    """A message chunk that is one plain text block (`{"type": "text", "text": ...}`, nothing
    else) with at most a `messageId`: what its model would hold, without building it."""

    session_update: str
    """One of `TEXT_CHUNK_KINDS`."""
    text: str
    """Made safe for the terminal."""
    message_id: str | None = None


TOOL_CALL_KINDS: Final = ("tool_call", "tool_call_update")

ParsedUpdate = TextChunk | KnownSessionUpdate | UnknownUpdate
"""What a `session/update` carries, typed."""


def parse_update_notification(params: Any) -> ParsedUpdate:
    """The update of a `session/update` notification's params; never raises."""
    if type(params) is not dict:
        return UnknownUpdate(raw=params, error="params is not an object")
    update = params.get("update")
    if type(update) is not dict:
        return UnknownUpdate(raw=params, error="params has no update object")
    kind = update.get("sessionUpdate")
    if kind in TEXT_CHUNK_KINDS:
        content = update.get("content")
        if type(content) is dict and len(content) == 2 and content.get("type") == "text":
            text = content.get("text")
            if type(text) is str:
                size = len(update)
                if size == 2:
                    return TextChunk(kind, safe_text(text))
                if size == 3 and "messageId" in update:
                    message_id = update["messageId"]
                    if message_id is None or type(message_id) is str:
                        return TextChunk(kind, safe_text(text), message_id)
    return parse_session_update(update)


def notification_session_id(params: Any) -> Any:
    """The `sessionId` of a `session/update` notification's params, as sent (None when the
    params are not an object)."""
    return params.get("sessionId") if type(params) is dict else None


def tool_call_of_notification(params: Any) -> tuple[str, dict[str, Any]] | None:
    """The id of the tool call a `session/update` notification's `tool_call` or
    `tool_call_update` is about, with the update's fields as sent; None for any other update."""
    update = params.get("update") if type(params) is dict else None
    if type(update) is not dict or update.get("sessionUpdate") not in TOOL_CALL_KINDS:
        return None
    return str(update.get("toolCallId")), update


def retargeted_tool_call_update(update: dict[str, Any], tool_call_id: str) -> ToolCallUpdate | None:
    """A tool call's update as sent (`tool_call_of_notification`) read as a `tool_call_update`
    of the call `tool_call_id` instead, its title left out; None when it does not read as one."""
    fields = {key: value for key, value in update.items() if key != "title"}
    fields.update(sessionUpdate="tool_call_update", toolCallId=tool_call_id)
    parsed = parse_session_update(fields)
    return parsed if isinstance(parsed, ToolCallUpdate) else None


def update_kind(update: ParsedUpdate) -> str | None:
    """The `sessionUpdate` kind of a parsed update (an unknown one's as sent, if a string)."""
    return update.session_update


def parse_v2_update_notification(params: Any) -> Any:
    """The update of a v2 session's `session/update` (see `models.v2.parse_v2_update`)."""
    from acp_tui.protocol.models.v2 import parse_v2_update

    update = params.get("update") if isinstance(params, dict) else None
    if not isinstance(update, dict):
        return UnknownUpdate(raw=params, error="params has no update object")
    return parse_v2_update(update)
