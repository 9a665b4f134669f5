"""Methods the client calls on the agent: initialize, authenticate, session/*, and capabilities."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from acp_tui.protocol.version import PROTOCOL_VERSION

from ._base import (
    AcpModel,
    DefaultOnError,
    DisplayStr,
    LenientBool,
    OptDisplayStr,
    SkipInvalidItems,
    StrList,
    parse_with,
)
from .content import ContentBlock
from .session import ConfigOptionList, SessionConfigOption, SessionModeState

STOP_REASONS = ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled")
"""Stop reasons the pinned schema knows; `PromptResponse.stop_reason` accepts any string."""

# ---- capabilities ------------------------------------------------------------------------------


class FileSystemCapabilities(AcpModel):
    """Which `fs/*` methods the client serves."""

    read_text_file: LenientBool = False
    write_text_file: LenientBool = False


class AuthCapabilities(AcpModel):
    """Authentication kinds the client can run itself (`terminal`: the agent's login command in a
    terminal)."""

    terminal: LenientBool = False


class SessionConfigOptionsCapabilities(AcpModel):
    """Config option kinds the client shows beyond selects (an object present: supported)."""

    boolean: Annotated[dict[str, Any] | None, DefaultOnError] = None


class ClientSessionCapabilities(AcpModel):
    """What the client supports inside a session (config option kinds; `notice` updates and
    compaction updates, an object present: supported, the agent sends them only then)."""

    config_options: Annotated[SessionConfigOptionsCapabilities | None, DefaultOnError] = None
    compaction: Annotated[dict[str, Any] | None, DefaultOnError] = None
    notices: Annotated[dict[str, Any] | None, DefaultOnError] = None


class ElicitationCapabilities(AcpModel):
    """Elicitation modes the client answers: `form` (a form from a schema) and `url`."""

    form: Annotated[dict[str, Any] | None, DefaultOnError] = None
    url: Annotated[dict[str, Any] | None, DefaultOnError] = None


class ClientCapabilities(AcpModel):
    """What the client announces in `initialize`: file system, terminals, auth, session and
    elicitation support."""

    fs: Annotated[FileSystemCapabilities, DefaultOnError] = Field(
        default_factory=FileSystemCapabilities
    )
    terminal: LenientBool = False
    auth: Annotated[AuthCapabilities, DefaultOnError] = Field(default_factory=AuthCapabilities)
    session: Annotated[ClientSessionCapabilities | None, DefaultOnError] = None
    elicitation: Annotated[ElicitationCapabilities | None, DefaultOnError] = None
    subagents: Annotated[dict[str, Any] | None, DefaultOnError] = None
    """Unstable: subagent sessions understood (an object present)."""
    plan: Annotated[dict[str, Any] | None, DefaultOnError] = None
    """Unstable: `plan_update` / `plan_removed` understood (an object present)."""


class PromptCapabilities(AcpModel):
    """Content the agent accepts in a prompt beyond text and resource links."""

    image: LenientBool = False
    audio: LenientBool = False
    embedded_context: LenientBool = False


class McpCapabilities(AcpModel):
    """MCP transports the agent can connect to beyond stdio."""

    http: LenientBool = False
    sse: LenientBool = False


OptCapability = Annotated[dict[str, Any] | None, DefaultOnError]


class SessionCapabilities(AcpModel):
    """Optional session methods the agent supports (an object present means supported)."""

    list: OptCapability = None
    delete: OptCapability = None
    additional_directories: OptCapability = None
    resume: OptCapability = None
    close: OptCapability = None
    title: OptCapability = None
    """Unstable `session/set_title`."""
    archive: OptCapability = None
    """Unstable `session/archive` / `session/unarchive` and the list's `archived` filter."""
    status: OptCapability = None
    """Unstable `session/status`."""
    system_prompt: OptCapability = None
    """Unstable `systemPrompt` on session/new, load, resume, fork (`{"mode": {...}}`)."""


class AgentAuthCapabilities(AcpModel):
    """Authentication methods the agent offers beyond `authenticate` (`logout`)."""

    logout: OptCapability = None
    status: OptCapability = None
    """Unstable `auth/status` (and `auth/status_update` notifications)."""


class AgentCapabilities(AcpModel):
    """What the agent announces in its `initialize` answer: loading sessions, prompt content, MCP
    transports, optional session methods."""

    load_session: LenientBool = False
    prompt_capabilities: Annotated[PromptCapabilities, DefaultOnError] = Field(
        default_factory=PromptCapabilities
    )
    mcp_capabilities: Annotated[McpCapabilities, DefaultOnError] = Field(
        default_factory=McpCapabilities
    )
    session_capabilities: Annotated[SessionCapabilities, DefaultOnError] = Field(
        default_factory=SessionCapabilities
    )
    auth: Annotated[AgentAuthCapabilities, DefaultOnError] = Field(
        default_factory=AgentAuthCapabilities
    )
    providers: OptCapability = None
    """Unstable `providers/*` (an object present: offered)."""


class Implementation(AcpModel):
    """Name and version of a client or agent."""

    name: DisplayStr
    version: DisplayStr
    title: OptDisplayStr = None


# ---- initialize / authenticate ------------------------------------------------------------------


class AuthMethodAgent(AcpModel):
    """The agent handles authentication itself (the default when `type` is absent)."""

    id: str
    name: DisplayStr
    description: OptDisplayStr = None


class AuthMethodTerminal(AcpModel):
    """The client runs the agent's own command in a terminal for the user to log in."""

    type: Literal["terminal"] = "terminal"
    id: str
    name: DisplayStr
    description: OptDisplayStr = None
    args: StrList = Field(default_factory=list)
    env: Annotated[dict[str, str], DefaultOnError] = Field(default_factory=dict)


def _parse_auth_method(raw: Any) -> AuthMethodAgent | AuthMethodTerminal:
    if isinstance(raw, AuthMethodAgent | AuthMethodTerminal):
        return raw
    if not isinstance(raw, dict):
        raise ValueError("auth method must be an object")
    model = AuthMethodTerminal if raw.get("type") == "terminal" else AuthMethodAgent
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        raise ValueError(f"invalid auth method: {error}") from None


AuthMethod = Annotated[AuthMethodAgent | AuthMethodTerminal, parse_with(_parse_auth_method)]


class InitializeRequest(AcpModel):
    """Params of `initialize`: the protocol version offered, the client's capabilities and name."""

    protocol_version: int = PROTOCOL_VERSION
    client_capabilities: Annotated[ClientCapabilities, DefaultOnError] = Field(
        default_factory=ClientCapabilities
    )
    client_info: Annotated[Implementation | None, DefaultOnError] = None


class InitializeResponse(AcpModel):
    """The agent's `initialize` answer: the version it speaks, its capabilities, how to log in, its
    name."""

    protocol_version: int
    agent_capabilities: Annotated[AgentCapabilities, DefaultOnError] = Field(
        default_factory=AgentCapabilities
    )
    auth_methods: Annotated[list[AuthMethod], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )
    agent_info: Annotated[Implementation | None, DefaultOnError] = None


class AuthenticateRequest(AcpModel):
    """Params of `authenticate`: the auth method the user chose."""

    method_id: str


class AuthenticateResponse(AcpModel):
    """The (empty) answer to `authenticate`."""


# ---- sessions ----------------------------------------------------------------------------------


class EnvVariable(AcpModel):
    """One environment variable for an MCP server or a terminal."""

    name: str
    value: str


class HttpHeader(AcpModel):
    """One HTTP header sent to an HTTP or SSE MCP server."""

    name: str
    value: str


class McpServerStdio(AcpModel):
    """An MCP server the agent starts as a subprocess."""

    name: str
    command: str
    args: list[str] = Field(default_factory=list)
    env: list[EnvVariable] = Field(default_factory=list)


class McpServerHttp(AcpModel):
    """An MCP server the agent reaches over streamable HTTP."""

    type: Literal["http"] = "http"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


class McpServerSse(AcpModel):
    """An MCP server the agent reaches over server-sent events."""

    type: Literal["sse"] = "sse"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


OptConfigOptionList = Annotated[list[SessionConfigOption] | None, SkipInvalidItems, DefaultOnError]

McpServer = McpServerHttp | McpServerSse | McpServerStdio
McpServerList = Annotated[list[McpServer], SkipInvalidItems, DefaultOnError]


class NewSessionRequest(AcpModel):
    """Params of `session/new`: the working directory and the MCP servers to connect."""

    cwd: str
    mcp_servers: McpServerList = Field(default_factory=list)
    additional_directories: Annotated[list[str] | None, SkipInvalidItems, DefaultOnError] = None


class NewSessionResponse(AcpModel):
    """The agent's `session/new` answer: the session id, its modes and config options."""

    session_id: str
    modes: Annotated[SessionModeState | None, DefaultOnError] = None
    config_options: OptConfigOptionList = None


class LoadSessionRequest(AcpModel):
    """Params of `session/load`: which session to replay, in which directory, with which MCP
    servers."""

    session_id: str
    cwd: str
    mcp_servers: McpServerList = Field(default_factory=list)
    additional_directories: Annotated[list[str] | None, SkipInvalidItems, DefaultOnError] = None


class LoadSessionResponse(AcpModel):
    """The agent's `session/load` answer (sent after the replayed updates): modes and config
    options."""

    modes: Annotated[SessionModeState | None, DefaultOnError] = None
    config_options: OptConfigOptionList = None


class PromptRequest(AcpModel):
    """Params of `session/prompt`: the user's prompt as content blocks."""

    session_id: str
    prompt: list[ContentBlock]


class PromptResponse(AcpModel):
    """The agent's `session/prompt` answer, sent when the turn ends: why it stopped."""

    stop_reason: DisplayStr
    """One of `STOP_REASONS`, or a newer value kept as is."""


class SetSessionModeRequest(AcpModel):
    """Params of `session/set_mode`: the mode to switch to."""

    session_id: str
    mode_id: str


class SetSessionModeResponse(AcpModel):
    """The (empty) answer to `session/set_mode`."""


class SetSessionConfigOptionRequest(AcpModel):
    """Set a config option: a value id for selects, or `type="boolean"` with a bool value."""

    session_id: str
    config_id: str
    value: bool | str
    type: Literal["boolean"] | None = None


class SetSessionConfigOptionResponse(AcpModel):
    """The answer to `session/set_config_option`: every config option as it now stands."""

    config_options: ConfigOptionList = Field(default_factory=list)


class CancelNotification(AcpModel):
    """Params of the `session/cancel` notification."""

    session_id: str


__all__ = [
    "PROTOCOL_VERSION",
    "STOP_REASONS",
    "AgentAuthCapabilities",
    "AgentCapabilities",
    "AuthCapabilities",
    "AuthMethod",
    "AuthMethodAgent",
    "AuthMethodTerminal",
    "AuthenticateRequest",
    "AuthenticateResponse",
    "CancelNotification",
    "ClientCapabilities",
    "ClientSessionCapabilities",
    "ElicitationCapabilities",
    "EnvVariable",
    "FileSystemCapabilities",
    "HttpHeader",
    "Implementation",
    "InitializeRequest",
    "InitializeResponse",
    "LoadSessionRequest",
    "LoadSessionResponse",
    "McpCapabilities",
    "McpServer",
    "McpServerHttp",
    "McpServerSse",
    "McpServerStdio",
    "NewSessionRequest",
    "NewSessionResponse",
    "PromptCapabilities",
    "PromptRequest",
    "PromptResponse",
    "SessionCapabilities",
    "SessionConfigOptionsCapabilities",
    "SetSessionConfigOptionRequest",
    "SetSessionConfigOptionResponse",
    "SetSessionModeRequest",
    "SetSessionModeResponse",
]
