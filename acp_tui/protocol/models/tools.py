"""Tool calls: the call itself, its updates, its content (content/diff/terminal), locations.

Kinds and statuses are plain strings (an agent may send values newer than this schema); the
constants below list the ones the pinned schema knows.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer

from ._base import (
    AcpModel,
    DefaultOnError,
    DisplayStr,
    OptDisplayStr,
    OptStr,
    OptUInt,
    SkipInvalidItems,
    note_repair,
    parse_with,
)
from .content import ContentBlock

TOOL_KINDS = (
    "read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other",
)  # fmt: skip
TOOL_CALL_STATUSES = ("pending", "in_progress", "completed", "failed")
FINISHED_STATUSES = frozenset({"completed", "failed", "cancelled"})
"""Statuses after which a tool call no longer runs ("cancelled" is a client-side mark)."""


class ToolCallLocation(AcpModel):
    """A file (and optionally a line) the tool call touches, for follow-along UIs."""

    path: DisplayStr
    line: OptUInt = None


class Content(AcpModel):
    """Tool call content `{"type": "content"}`: a regular content block."""

    type: Literal["content"] = "content"
    content: ContentBlock


class Diff(AcpModel):
    """Tool call content `{"type": "diff"}`: a file modification."""

    type: Literal["diff"] = "diff"
    path: DisplayStr
    """Shown to the user (made safe); `old_text`/`new_text` are kept exact (the diff view shows
    lines safely when it draws them)."""
    new_text: str
    old_text: OptStr = None


class Terminal(AcpModel):
    """Tool call content `{"type": "terminal"}`: embeds a terminal created with terminal/create."""

    type: Literal["terminal"] = "terminal"
    terminal_id: str


class UnknownToolCallContent(BaseModel):
    """Tool call content of a type this schema does not know, kept as received."""

    model_config = ConfigDict(defer_build=True)  # built at first use, as AcpModel's

    raw: dict[str, Any]

    @property
    def type(self) -> str | None:
        """The content's `type` as sent, if it is a string."""
        kind = self.raw.get("type")
        return kind if isinstance(kind, str) else None

    @model_serializer
    def _serialize(self) -> dict[str, Any]:
        return self.raw


class PatchDiff(UnknownToolCallContent):
    """A v2 diff (`{"type": "diff", "changes": [...], "patch": {"format", "text"}}`), kept raw.

    Its `type` is "patch_diff", so code that reads a v1 diff's `path`/`newText` skips it.
    """

    @property
    def type(self) -> str | None:
        return "patch_diff"

    @property
    def patch_text(self) -> str | None:
        patch = self.raw.get("patch")
        text = patch.get("text") if isinstance(patch, dict) else None
        return text if isinstance(text, str) else None


_TOOL_CONTENT_TYPES: dict[str, type[Content | Diff | Terminal]] = {
    "content": Content,
    "diff": Diff,
    "terminal": Terminal,
}


def parse_tool_call_content(raw: Any) -> ToolCallContent:
    """Tool call content from its wire form.

    Unknown types are kept as `UnknownToolCallContent`; a known type that does not validate (or
    an item without a `type`) raises
    (so a list marked skip-invalid-items drops it, as the schema says).
    """
    if isinstance(raw, Content | Diff | Terminal | UnknownToolCallContent | PatchDiff):
        return raw
    kind = raw.get("type") if isinstance(raw, dict) else None
    if not isinstance(kind, str):
        raise ValueError("tool call content must be an object with a string `type`")
    model = _TOOL_CONTENT_TYPES.get(kind)
    if kind == "diff" and "changes" in raw and "path" not in raw:
        return PatchDiff(raw=raw)  # a v2 diff: `changes` + a git patch
    if model is None:
        note_repair("unknown", f"tool call content type {kind!r}")
        return UnknownToolCallContent(raw=raw)
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise ValueError(f"invalid {raw.get('type')} tool call content: {error}") from None


ToolCallContent = Annotated[
    Content | Diff | Terminal | UnknownToolCallContent, parse_with(parse_tool_call_content)
]

ContentList = Annotated[list[ToolCallContent], SkipInvalidItems, DefaultOnError]
LocationList = Annotated[list[ToolCallLocation], SkipInvalidItems, DefaultOnError]
AnyLenient = Annotated[Any, DefaultOnError]


class ToolCall(AcpModel):
    """`tool_call` session update: the agent started (or announces) a tool call."""

    session_update: Literal["tool_call"] = "tool_call"
    tool_call_id: str
    title: DisplayStr
    name: OptDisplayStr = None
    """The tool's programmatic name (`Bash`, `Edit`), shown beside the title; optional."""
    kind: Annotated[DisplayStr, DefaultOnError] = "other"
    status: Annotated[DisplayStr, DefaultOnError] = "pending"
    content: ContentList = Field(default_factory=list)
    locations: LocationList = Field(default_factory=list)
    raw_input: AnyLenient = None
    raw_output: AnyLenient = None


class ToolCallUpdate(AcpModel):
    """`tool_call_update` session update (also a permission request's `toolCall`).

    Only fields that are set change the call; `content`/`locations` replace the whole list.
    """

    session_update: Literal["tool_call_update"] = "tool_call_update"
    tool_call_id: str
    title: OptDisplayStr = None
    name: OptDisplayStr = None
    kind: OptDisplayStr = None
    status: OptDisplayStr = None
    content: Annotated[list[ToolCallContent] | None, SkipInvalidItems, DefaultOnError] = None
    locations: Annotated[list[ToolCallLocation] | None, SkipInvalidItems, DefaultOnError] = None
    raw_input: AnyLenient = None
    raw_output: AnyLenient = None


__all__ = [
    "FINISHED_STATUSES",
    "TOOL_CALL_STATUSES",
    "TOOL_KINDS",
    "Content",
    "Diff",
    "PatchDiff",
    "Terminal",
    "ToolCall",
    "ToolCallContent",
    "ToolCallLocation",
    "ToolCallUpdate",
    "UnknownToolCallContent",
    "parse_tool_call_content",
]
