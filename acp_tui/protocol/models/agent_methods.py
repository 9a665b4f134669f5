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
    read_text_file: LenientBool = False
    write_text_file: LenientBool = False


class AuthCapabilities(AcpModel):
    terminal: LenientBool = False


class SessionConfigOptionsCapabilities(AcpModel):
    boolean: Annotated[dict[str, Any] | None, DefaultOnError] = None


class ClientSessionCapabilities(AcpModel):
    config_options: Annotated[SessionConfigOptionsCapabilities | None, DefaultOnError] = None


class ElicitationCapabilities(AcpModel):
    form: Annotated[dict[str, Any] | None, DefaultOnError] = None
    url: Annotated[dict[str, Any] | None, DefaultOnError] = None


class ClientCapabilities(AcpModel):
    fs: Annotated[FileSystemCapabilities, DefaultOnError] = Field(
        default_factory=FileSystemCapabilities
    )
    terminal: LenientBool = False
    auth: Annotated[AuthCapabilities, DefaultOnError] = Field(default_factory=AuthCapabilities)
    session: Annotated[ClientSessionCapabilities | None, DefaultOnError] = None
    elicitation: Annotated[ElicitationCapabilities | None, DefaultOnError] = None


class PromptCapabilities(AcpModel):
    image: LenientBool = False
    audio: LenientBool = False
    embedded_context: LenientBool = False


class McpCapabilities(AcpModel):
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


class AgentAuthCapabilities(AcpModel):
    logout: OptCapability = None


class AgentCapabilities(AcpModel):
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
    protocol_version: int = PROTOCOL_VERSION
    client_capabilities: Annotated[ClientCapabilities, DefaultOnError] = Field(
        default_factory=ClientCapabilities
    )
    client_info: Annotated[Implementation | None, DefaultOnError] = None


class InitializeResponse(AcpModel):
    protocol_version: int
    agent_capabilities: Annotated[AgentCapabilities, DefaultOnError] = Field(
        default_factory=AgentCapabilities
    )
    auth_methods: Annotated[list[AuthMethod], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )
    agent_info: Annotated[Implementation | None, DefaultOnError] = None


class AuthenticateRequest(AcpModel):
    method_id: str


class AuthenticateResponse(AcpModel):
    pass


# ---- sessions ----------------------------------------------------------------------------------


class EnvVariable(AcpModel):
    name: str
    value: str


class HttpHeader(AcpModel):
    name: str
    value: str


class McpServerStdio(AcpModel):
    name: str
    command: str
    args: list[str] = Field(default_factory=list)
    env: list[EnvVariable] = Field(default_factory=list)


class McpServerHttp(AcpModel):
    type: Literal["http"] = "http"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


class McpServerSse(AcpModel):
    type: Literal["sse"] = "sse"
    name: str
    url: str
    headers: list[HttpHeader] = Field(default_factory=list)


OptConfigOptionList = Annotated[list[SessionConfigOption] | None, SkipInvalidItems, DefaultOnError]

McpServer = McpServerHttp | McpServerSse | McpServerStdio
McpServerList = Annotated[list[McpServer], SkipInvalidItems, DefaultOnError]


class NewSessionRequest(AcpModel):
    cwd: str
    mcp_servers: McpServerList = Field(default_factory=list)
    additional_directories: Annotated[list[str] | None, SkipInvalidItems, DefaultOnError] = None


class NewSessionResponse(AcpModel):
    session_id: str
    modes: Annotated[SessionModeState | None, DefaultOnError] = None
    config_options: OptConfigOptionList = None


class LoadSessionRequest(AcpModel):
    session_id: str
    cwd: str
    mcp_servers: McpServerList = Field(default_factory=list)
    additional_directories: Annotated[list[str] | None, SkipInvalidItems, DefaultOnError] = None


class LoadSessionResponse(AcpModel):
    modes: Annotated[SessionModeState | None, DefaultOnError] = None
    config_options: OptConfigOptionList = None


class PromptRequest(AcpModel):
    session_id: str
    prompt: list[ContentBlock]


class PromptResponse(AcpModel):
    stop_reason: DisplayStr
    """One of `STOP_REASONS`, or a newer value kept as is."""


class SetSessionModeRequest(AcpModel):
    session_id: str
    mode_id: str


class SetSessionModeResponse(AcpModel):
    pass


class SetSessionConfigOptionRequest(AcpModel):
    """Set a config option: a value id for selects, or `type="boolean"` with a bool value."""

    session_id: str
    config_id: str
    value: bool | str
    type: Literal["boolean"] | None = None


class SetSessionConfigOptionResponse(AcpModel):
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
