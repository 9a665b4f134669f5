"""Unstable subagent sessions (schema.unstable.json, SDK 2.4.0): the wire shapes, in one place.

A client that offers `clientCapabilities.subagents: {}` gets, on the parent session:

- `subagent_update`: a child session announced or patched (omitted keeps a field, `null` clears
  it; `title`, `description`, `capabilities.cancel`, a `state` snapshot, `cwd`,
  `additionalDirectories`); the child's own `session/update` traffic then comes under the
  child's session id, and the child may announce children of its own;
- `session_message` (an upsert by `messageId`: sender, recipient, content) and
  `session_message_chunk` (one content block appended): what the sessions send each other.

A `state` is a snapshot (`work_state.WorkState`, shared with v2's `state_update`). The next
schema change to subagent sessions touches this module (and the thread's `subagent_sessions.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from ._base import (
    AcpModel,
    DefaultOnError,
    OptDisplayStr,
    OptStr,
    SkipInvalidItems,
)
from .content import ContentBlock, ContentBlockList
from .work_state import WorkState

MAX_CHILDREN = 256
"""Child sessions a client keeps per root session (all depths); more are refused."""
MAX_DEPTH = 8
"""How deep children nest (a child of the root is 1); deeper ones are refused."""


class SubagentSessionCapabilities(AcpModel):
    """What the client may do to this child: `cancel` (an object present: offered)."""

    cancel: Annotated[dict[str, Any] | None, DefaultOnError] = None


class SubagentUpdate(AcpModel):
    """`subagent_update`: a child session of the session it is sent on, announced or patched.

    Patch semantics: a field not sent (`model_fields_set`) is unchanged, `null` clears it.
    """

    session_update: Literal["subagent_update"] = "subagent_update"
    session_id: str
    title: OptDisplayStr = None
    description: OptDisplayStr = None
    capabilities: Annotated[SubagentSessionCapabilities | None, DefaultOnError] = None
    state: Annotated[WorkState | None, DefaultOnError] = None
    cwd: str | None = None
    additional_directories: Annotated[list[str] | None, SkipInvalidItems] = None

    def sent(self, field: str) -> bool:
        """Whether the patch names `field` (sent, maybe as null), i.e. changes it."""
        return field in self.model_fields_set


class SessionMessage(AcpModel):
    """`session_message`: a message between sessions, upserted by `messageId` (patch semantics:
    omitted unchanged, `null` clears; a non-empty `content` replaces the content)."""

    session_update: Literal["session_message"] = "session_message"
    message_id: str
    sender_session_id: OptStr = None
    recipient_session_id: OptStr = None
    sender_message_id: OptStr = None
    recipient_message_id: OptStr = None
    content: ContentBlockList = None

    def sent(self, field: str) -> bool:
        """Whether the upsert names `field`."""
        return field in self.model_fields_set


class SessionMessageChunk(AcpModel):
    """`session_message_chunk`: one content block appended to a session message."""

    session_update: Literal["session_message_chunk"] = "session_message_chunk"
    message_id: str
    content: ContentBlock


__all__ = [
    "MAX_CHILDREN",
    "MAX_DEPTH",
    "SessionMessage",
    "SessionMessageChunk",
    "SubagentSessionCapabilities",
    "SubagentUpdate",
]
