"""ACP v2 (the current draft: SDK 2.4.0's schema/v2) where it differs from v1: the wire shapes
acp-tui reads.

What v2 changes, as far as a client sees it (schema in tests/data/acp-schema/current/v2; the
August alpha.3 pin in tests/data/acp-schema/v2 is older):

- `initialize` carries `info`/`capabilities` (v1: `clientInfo`/`clientCapabilities`; the answer
  `info`/`capabilities`/`authMethods` with `methodId` and an explicit `type`). The client no
  longer offers `fs` or `terminal`; the agent reads, writes and runs things itself.
- `session/prompt` is answered when the prompt is accepted (an empty result); the turn is
  reported by `state_update` (`running`, `idle` with an optional `stopReason`,
  `requires_action`). Updates may arrive at any time, also while idle.
- Messages carry a required `messageId`; `user_message`/`agent_message`/`agent_thought` are
  upserts with patch semantics beside their `*_chunk`s.
- `tool_call` is gone: `tool_call_update` is an upsert (omitted = unchanged, `null` = clear,
  arrays replace) and `tool_call_content_chunk` appends one content item.
- Agent-owned terminals: `terminal_update` (command, cwd, output snapshot, exit status) and
  `terminal_output_chunk` (base64 bytes); tool call content `{"type":"terminal"}` only refers.
- `authenticate`/`logout` become `auth/login`/`auth/logout`; `session/load` and
  `session/set_mode` are gone (restarts use `session/resume`, modes are config options with
  category `mode`, set with `session/set_config_option` `{"type":"id"}`); `plan` is gone
  (`plan_update`); `session/request_permission` has `title` and a `subject`.
- Since alpha.3: `session/prompt` is answered `{messageId}` (the id of the user message it
  became); `session/new`, `resume` and `fork` answer the slash commands (`availableCommands`,
  each `{"type": "command", ...}`); state snapshots list the background work (`background`:
  terminals, tool calls, subagent sessions still running) and may be `unknown`; a tool call or
  terminal that can be stopped says so (`capabilities.cancel`) and is stopped with
  `tool_call/cancel` / `terminal/cancel`; a tool call may be `paused`; a terminal has a `size`.
"""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from acp_tui.protocol.version import PROTOCOL_V2

from ._base import AcpModel, DefaultOnError, Meta, OptStr, OptUInt, SkipInvalidItems
from .agent_methods import NewSessionResponse
from .client_methods import PermissionOption, RequestPermissionRequest
from .content import ContentBlock
from .history import ForkSessionResponse, ResumeSessionResponse
from .session import AvailableCommand
from .tools import ToolCallContent, ToolCallUpdate
from .updates import UnknownUpdate, parse_session_update
from .work_state import WorkState

ContentBlockList = Annotated[list[ContentBlock] | None, SkipInvalidItems, DefaultOnError]


class MessageUpsert(AcpModel):
    """`user_message` / `agent_message` / `agent_thought`: create or patch the message by id.

    Patch semantics: a field not sent (see `model_fields_set`) is unchanged, `null` clears it,
    an array replaces it.
    """

    session_update: Literal["user_message", "agent_message", "agent_thought"]
    message_id: str
    content: ContentBlockList = None


class MessageChunkV2(AcpModel):
    """`*_message_chunk` / `agent_thought_chunk` in v2: `messageId` is required."""

    session_update: Literal["user_message_chunk", "agent_message_chunk", "agent_thought_chunk"]
    message_id: str
    content: ContentBlock


BACKGROUND_KINDS = ("terminal", "tool_call", "subagent")
"""The kinds of background work the draft names (a newer one is kept as its string)."""


class BackgroundWork(AcpModel):
    """One piece of work running beside the foreground: a terminal, a tool call or a subagent
    session the agent announced before (by its id)."""

    type: str
    terminal_id: OptStr = None
    tool_call_id: OptStr = None
    session_id: OptStr = None


class StateUpdate(WorkState):
    """`state_update`: the agent's foreground work is `running`, `idle` (with its stop reason,
    usage, and the error of an `error` stop), `requires_action` or `unknown` (or a newer state,
    kept as its string): a state snapshot, with the background work as a whole list (None: not
    reported; a malformed list reads as not reported)."""

    session_update: Literal["state_update"] = "state_update"
    background: Annotated[list[BackgroundWork] | None, DefaultOnError] = None


class CancelCapabilities(AcpModel):
    """`capabilities` of a tool call or an agent-owned terminal: `cancel` (an object) when the
    client may stop it (`tool_call/cancel`, `terminal/cancel`); a malformed value: no controls."""

    cancel: Annotated[dict[str, Any] | None, DefaultOnError] = None


class TerminalSize(AcpModel):
    cols: int
    rows: int


class ToolCallContentChunk(AcpModel):
    """`tool_call_content_chunk`: append one content item to a tool call."""

    session_update: Literal["tool_call_content_chunk"] = "tool_call_content_chunk"
    tool_call_id: str
    content: ToolCallContent


class TerminalOutput(AcpModel):
    data: str

    def decoded(self) -> bytes | None:
        return decode_bytes(self.data)


class TerminalExitStatus(AcpModel):
    exit_code: OptUInt = None
    signal: OptStr = None


class TerminalUpdate(AcpModel):
    """`terminal_update`: upsert an agent-owned terminal (patch semantics, like tool calls)."""

    session_update: Literal["terminal_update"] = "terminal_update"
    terminal_id: str
    command: OptStr = None
    cwd: OptStr = None
    output: Annotated[TerminalOutput | None, DefaultOnError] = None
    exit_status: Annotated[TerminalExitStatus | None, DefaultOnError] = None
    size: Annotated[TerminalSize | None, DefaultOnError] = None
    capabilities: Annotated[CancelCapabilities | None, DefaultOnError] = None


class TerminalOutputChunk(AcpModel):
    """`terminal_output_chunk`: raw bytes (base64) appended to an agent-owned terminal."""

    session_update: Literal["terminal_output_chunk"] = "terminal_output_chunk"
    terminal_id: str
    data: str

    def decoded(self) -> bytes | None:
        return decode_bytes(self.data)


def decode_bytes(data: str) -> bytes | None:
    """Strict base64 → bytes, None if it is not base64."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


V2Update = (
    MessageUpsert
    | MessageChunkV2
    | StateUpdate
    | ToolCallContentChunk
    | TerminalUpdate
    | TerminalOutputChunk
)

V2_UPDATE_TYPES: dict[str, type[V2Update]] = {
    "user_message": MessageUpsert,
    "agent_message": MessageUpsert,
    "agent_thought": MessageUpsert,
    "user_message_chunk": MessageChunkV2,
    "agent_message_chunk": MessageChunkV2,
    "agent_thought_chunk": MessageChunkV2,
    "state_update": StateUpdate,
    "tool_call_content_chunk": ToolCallContentChunk,
    "terminal_update": TerminalUpdate,
    "terminal_output_chunk": TerminalOutputChunk,
}


def parse_v2_update(raw: Any) -> Any:
    """A v2 session update: a v2 model above, else the v1 model of a kind both share
    (`tool_call_update`, `plan_update`, `usage_update`, ...), else an `UnknownUpdate`.

    (`tool_call`, `plan` and `current_mode_update` do not exist in v2: they stay unknown.)
    """
    if not isinstance(raw, dict):
        return UnknownUpdate(raw=raw, error="session update is not an object")
    kind = raw.get("sessionUpdate")
    model = V2_UPDATE_TYPES.get(kind) if isinstance(kind, str) else None
    if model is not None:
        try:
            return model.model_validate(raw)
        except ValidationError as error:
            return UnknownUpdate(raw=raw, error=str(error))
    if kind in ("tool_call", "plan", "current_mode_update"):
        return UnknownUpdate(raw=raw, error=f"{kind} is not a v2 session update")
    if kind == "config_option_update" and isinstance(raw.get("configOptions"), list):
        raw = {**raw, "configOptions": v1_config_options(raw["configOptions"])}
    return parse_session_update(raw)


def v1_config_options(options: list[Any]) -> list[Any]:
    """v2 config options name their id `configId` (v1: `id`): the v1 models read them then."""
    return [
        {**{k: v for k, v in o.items() if k != "configId"}, "id": o["configId"]}
        if isinstance(o, dict) and "configId" in o and "id" not in o
        else o
        for o in options
    ]


# ---- answers ---------------------------------------------------------------------------------

OptCommandList = Annotated[list[AvailableCommand] | None, SkipInvalidItems, DefaultOnError]


class V2NewSessionResponse(NewSessionResponse):
    """v2 `session/new` answer (config options read as v1's): also the slash commands."""

    available_commands: OptCommandList = None


class V2ResumeSessionResponse(ResumeSessionResponse):
    """v2 `session/resume` answer: also the slash commands."""

    available_commands: OptCommandList = None


class V2ForkSessionResponse(ForkSessionResponse):
    """v2 `session/fork` answer: also the slash commands."""

    available_commands: OptCommandList = None


class V2PromptResponse(AcpModel):
    """v2 `session/prompt` answer, sent when the prompt is accepted: the id of the user message
    it became (the turn itself is `state_update`)."""

    message_id: str


# ---- initialize ------------------------------------------------------------------------------


class V2Implementation(AcpModel):
    name: str
    version: str
    title: OptStr = None


class V2AuthMethod(AcpModel):
    """An auth method of a v2 `initialize` answer (`methodId`; `type` agent / terminal / …)."""

    method_id: str
    name: str
    type: Annotated[str, DefaultOnError] = "agent"
    description: OptStr = None
    args: Annotated[list[str], SkipInvalidItems, DefaultOnError] = Field(default_factory=list)
    env: Annotated[list[dict[str, Any]], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )

    def env_map(self) -> dict[str, str]:
        return {
            str(item["name"]): item["value"]
            for item in self.env
            if isinstance(item.get("name"), str) and isinstance(item.get("value"), str)
        }


OptObject = Annotated[dict[str, Any] | None, DefaultOnError]


class V2SessionCapabilities(AcpModel):
    prompt: OptObject = None
    mcp: OptObject = None
    delete: OptObject = None
    additional_directories: OptObject = None


class V2AgentCapabilities(AcpModel):
    session: Annotated[V2SessionCapabilities | None, DefaultOnError] = None
    auth: OptObject = None
    providers: OptObject = None
    """Unstable: `{}` when the agent offers `providers/*`."""


class V2InitializeResponse(AcpModel):
    protocol_version: int
    info: Annotated[V2Implementation | None, DefaultOnError] = None
    capabilities: Annotated[V2AgentCapabilities, DefaultOnError] = Field(
        default_factory=V2AgentCapabilities
    )
    auth_methods: Annotated[list[V2AuthMethod], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )


# ---- session/request_permission ------------------------------------------------------------------


class RequestPermissionRequestV2(AcpModel):
    """v2 `session/request_permission`: a title, maybe a description, and a `subject` (a tool
    call, or a command in an agent-owned terminal)."""

    session_id: str
    title: str
    description: OptStr = None
    subject: Annotated[dict[str, Any] | None, DefaultOnError] = None
    options: list[PermissionOption]
    meta: Meta = Field(default=None, alias="_meta")

    def as_v1(self) -> RequestPermissionRequest:
        """The same question in the shape the permission broker knows: about a tool call (the
        subject's, the command's own call, or a synthetic one named after the request)."""
        subject = self.subject or {}
        tool_call: dict[str, Any] | None = None
        if subject.get("type") == "tool_call" and isinstance(subject.get("toolCall"), dict):
            tool_call = dict(subject["toolCall"])
        elif subject.get("type") == "command":
            call_id = subject.get("toolCallId")
            tool_call = {
                "toolCallId": call_id if isinstance(call_id, str) else f"permission:{self.title}",
                "kind": "execute",
                "rawInput": {"command": subject.get("command"), "cwd": subject.get("cwd")},
            }
        if tool_call is None or not isinstance(tool_call.get("toolCallId"), str):
            tool_call = {"toolCallId": f"permission:{self.title}"}
        tool_call.setdefault("title", self.title)
        return RequestPermissionRequest(
            session_id=self.session_id,
            tool_call=ToolCallUpdate.model_validate(tool_call),
            options=self.options,
        )


__all__ = [
    "BACKGROUND_KINDS",
    "PROTOCOL_V2",
    "V2_UPDATE_TYPES",
    "BackgroundWork",
    "CancelCapabilities",
    "MessageChunkV2",
    "MessageUpsert",
    "RequestPermissionRequestV2",
    "StateUpdate",
    "TerminalExitStatus",
    "TerminalOutput",
    "TerminalOutputChunk",
    "TerminalSize",
    "TerminalUpdate",
    "ToolCallContentChunk",
    "V2AgentCapabilities",
    "V2AuthMethod",
    "V2ForkSessionResponse",
    "V2InitializeResponse",
    "V2NewSessionResponse",
    "V2PromptResponse",
    "V2ResumeSessionResponse",
    "V2Update",
    "decode_bytes",
    "parse_v2_update",
    "v1_config_options",
]
