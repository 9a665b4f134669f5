"""`session/update` notifications: every update variant, plus the unstable plan_update/plan_removed.

`parse_session_update` never raises on a dict: an unknown `sessionUpdate` variant, or a known
one that does not validate, becomes an `UnknownUpdate` that keeps the raw dict (and the reason).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_serializer,
    model_validator,
)

from ._base import (
    AcpModel,
    DefaultOnError,
    DisplayStr,
    OptDisplayStr,
    OptStr,
    SkipInvalidItems,
    note_repair,
    parse_with,
)
from .content import ContentBlock
from .live_updates import CompactionSummaryChunk, CompactionUpdate, Notice
from .session import AvailableCommand, ConfigOptionList, Cost, PlanEntryList
from .subagent_sessions import SessionMessage, SessionMessageChunk, SubagentUpdate
from .tools import ToolCall, ToolCallUpdate


class ContentChunk(AcpModel):
    """A streamed piece of a message (fields shared by the three chunk updates)."""

    content: ContentBlock
    message_id: OptStr = None


class UserMessageChunk(ContentChunk):
    """Part of a user message (the agent replaying a loaded session, or echoing the prompt)."""

    session_update: Literal["user_message_chunk"] = "user_message_chunk"


class AgentMessageChunk(ContentChunk):
    """Part of the agent's reply, streamed."""

    session_update: Literal["agent_message_chunk"] = "agent_message_chunk"


class AgentThoughtChunk(ContentChunk):
    """Part of the agent's reasoning, streamed."""

    session_update: Literal["agent_thought_chunk"] = "agent_thought_chunk"


class Plan(AcpModel):
    """`plan` update: the agent's whole (v1) plan; each update replaces the previous one."""

    session_update: Literal["plan"] = "plan"
    entries: PlanEntryList = Field(default_factory=list)


class AvailableCommandsUpdate(AcpModel):
    """The slash commands the agent offers now (replaces the previous list)."""

    session_update: Literal["available_commands_update"] = "available_commands_update"
    available_commands: Annotated[list[AvailableCommand], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )


class CurrentModeUpdate(AcpModel):
    """The agent switched mode (itself, or as the client asked)."""

    session_update: Literal["current_mode_update"] = "current_mode_update"
    current_mode_id: str


class ConfigOptionUpdate(AcpModel):
    """The session's config options as they now stand."""

    session_update: Literal["config_option_update"] = "config_option_update"
    config_options: ConfigOptionList = Field(default_factory=list)


class SessionInfoUpdate(AcpModel):
    """Partial session info: an omitted field is unchanged, `null` clears it (see fields set)."""

    session_update: Literal["session_info_update"] = "session_info_update"
    title: OptDisplayStr = None
    updated_at: OptStr = None


class UsageUpdate(AcpModel):
    """Context window use (tokens used of its size) and, if known, the cost so far."""

    session_update: Literal["usage_update"] = "usage_update"
    used: Annotated[int, Field(ge=0)]
    size: Annotated[int, Field(ge=0)]
    cost: Annotated[Cost | None, DefaultOnError] = None


# ---- unstable: plan_update / plan_removed (schema.unstable.json) -------------------------------


class _PlanIdModel(AcpModel):
    """Accepts the plan id spelled `planId` (schema) or `id` (the published plan RFD)."""

    plan_id: DisplayStr

    @model_validator(mode="before")
    @classmethod
    def _accept_id_spelling(cls, data: Any) -> Any:
        if isinstance(data, dict) and "id" in data and not {"planId", "plan_id"} & data.keys():
            data = dict(data)
            data["planId"] = data.pop("id")
        return data


class PlanItems(_PlanIdModel):
    """A plan given as its list of steps."""

    type: Literal["items"] = "items"
    entries: PlanEntryList = Field(default_factory=list)


class PlanFile(_PlanIdModel):
    """A plan kept in a file the agent names by URI."""

    type: Literal["file"] = "file"
    uri: DisplayStr


class PlanMarkdown(_PlanIdModel):
    """A plan given as Markdown text."""

    type: Literal["markdown"] = "markdown"
    content: DisplayStr


class UnknownPlanContent(BaseModel):
    """Plan content of a type this schema does not know, kept as received."""

    model_config = ConfigDict(defer_build=True)  # built at first use, as AcpModel's

    raw: dict[str, Any]

    @property
    def plan_id(self) -> str | None:
        """The plan's id (`planId` or `id`), if it has a string one."""
        value = self.raw.get("planId", self.raw.get("id"))
        return value if isinstance(value, str) else None

    @model_serializer
    def _serialize(self) -> dict[str, Any]:
        return self.raw


_PLAN_TYPES: dict[str, type[PlanItems | PlanFile | PlanMarkdown]] = {
    "items": PlanItems,
    "file": PlanFile,
    "markdown": PlanMarkdown,
}


def _parse_plan_content(raw: Any) -> PlanItems | PlanFile | PlanMarkdown | UnknownPlanContent:
    if isinstance(raw, PlanItems | PlanFile | PlanMarkdown | UnknownPlanContent):
        return raw
    if not isinstance(raw, dict):
        raise ValueError("plan must be an object")
    model = _PLAN_TYPES.get(raw.get("type"))  # type: ignore[arg-type]
    if model is None:
        return UnknownPlanContent(raw=raw)
    return model.model_validate(raw)


PlanUpdateContent = Annotated[
    PlanItems | PlanFile | PlanMarkdown | UnknownPlanContent, parse_with(_parse_plan_content)
]


class PlanUpdate(AcpModel):
    """Unstable `plan_update`: one of possibly several plans, identified by id."""

    session_update: Literal["plan_update"] = "plan_update"
    plan: PlanUpdateContent


class PlanRemoved(_PlanIdModel):
    """Unstable `plan_removed`: the plan with this id is gone."""

    session_update: Literal["plan_removed"] = "plan_removed"


class UnknownUpdate(BaseModel):
    """A session update acp-tui does not understand (or that did not validate), kept raw."""

    model_config = ConfigDict(defer_build=True)  # built at first use, as AcpModel's

    raw: Any
    error: str | None = None

    @property
    def session_update(self) -> str | None:
        """The update's `sessionUpdate` kind as sent, if it is a string."""
        kind = self.raw.get("sessionUpdate") if isinstance(self.raw, dict) else None
        return kind if isinstance(kind, str) else None

    @property
    def named_session(self) -> str | None:
        """The session id a `subagent_update` names (the child it is about), if it is a string."""
        if self.session_update != "subagent_update":
            return None
        named = self.raw.get("sessionId")
        return named if isinstance(named, str) else None

    @model_serializer
    def _serialize(self) -> Any:
        return self.raw


KnownSessionUpdate = (
    UserMessageChunk
    | AgentMessageChunk
    | AgentThoughtChunk
    | ToolCall
    | ToolCallUpdate
    | Plan
    | AvailableCommandsUpdate
    | CurrentModeUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
    | PlanUpdate
    | PlanRemoved
    | Notice
    | CompactionUpdate
    | CompactionSummaryChunk
    | SubagentUpdate
    | SessionMessage
    | SessionMessageChunk
)

UPDATE_TYPES: dict[str, type[KnownSessionUpdate]] = {
    "user_message_chunk": UserMessageChunk,
    "agent_message_chunk": AgentMessageChunk,
    "agent_thought_chunk": AgentThoughtChunk,
    "tool_call": ToolCall,
    "tool_call_update": ToolCallUpdate,
    "plan": Plan,
    "available_commands_update": AvailableCommandsUpdate,
    "current_mode_update": CurrentModeUpdate,
    "config_option_update": ConfigOptionUpdate,
    "session_info_update": SessionInfoUpdate,
    "usage_update": UsageUpdate,
    "plan_update": PlanUpdate,
    "plan_removed": PlanRemoved,
    "notice": Notice,
    "compaction_update": CompactionUpdate,
    "compaction_summary_chunk": CompactionSummaryChunk,
    "subagent_update": SubagentUpdate,
    "session_message": SessionMessage,
    "session_message_chunk": SessionMessageChunk,
}


def parse_session_update(raw: Any) -> SessionUpdate:
    """The update inside a `session/update` notification; never raises.

    Unknown variants and invalid known ones become `UnknownUpdate(raw=..., error=...)`.
    """
    if isinstance(raw, BaseModel) and isinstance(raw, KnownSessionUpdate | UnknownUpdate):
        return raw
    if not isinstance(raw, dict):
        note_repair("invalid", "session update", "not an object")
        return UnknownUpdate(raw=raw, error="session update is not an object")
    kind = raw.get("sessionUpdate")
    model = UPDATE_TYPES.get(kind) if isinstance(kind, str) else None
    if model is None:
        note_repair("unknown", f"session update {kind!r}")
        return UnknownUpdate(raw=raw)
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        note_repair("invalid", f"{kind} {where}".strip(), first["msg"])
        return UnknownUpdate(raw=raw, error=str(error))


SessionUpdate = Annotated[KnownSessionUpdate | UnknownUpdate, parse_with(parse_session_update)]


class SessionNotification(AcpModel):
    """Params of `session/update`."""

    session_id: str
    update: SessionUpdate


__all__ = [
    "UPDATE_TYPES",
    "AgentMessageChunk",
    "AgentThoughtChunk",
    "AvailableCommandsUpdate",
    "ConfigOptionUpdate",
    "ContentChunk",
    "CurrentModeUpdate",
    "KnownSessionUpdate",
    "Plan",
    "PlanFile",
    "PlanItems",
    "PlanMarkdown",
    "PlanRemoved",
    "PlanUpdate",
    "PlanUpdateContent",
    "SessionInfoUpdate",
    "SessionNotification",
    "SessionUpdate",
    "UnknownPlanContent",
    "UnknownUpdate",
    "UsageUpdate",
    "UserMessageChunk",
    "parse_session_update",
]
