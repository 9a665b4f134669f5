"""What the agent answers the client's calls with: its capabilities and name, its auth methods,
the answers to initialize, authenticate and session/* (what the client sends: `requests.py`)."""

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
from .session import ConfigOptionList, SessionConfigOption, SessionModeState

STOP_REASONS = ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled")
"""Stop reasons the pinned schema knows; `PromptResponse.stop_reason` accepts any string."""

# ---- capabilities ------------------------------------------------------------------------------


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


class AuthenticateResponse(AcpModel):
    """The (empty) answer to `authenticate`."""


# ---- sessions ----------------------------------------------------------------------------------


class EnvVariable(AcpModel):
    """One environment variable for an MCP server or a terminal."""

    name: str
    value: str


OptConfigOptionList = Annotated[list[SessionConfigOption] | None, SkipInvalidItems, DefaultOnError]


class NewSessionResponse(AcpModel):
    """The agent's `session/new` answer: the session id, its modes and config options."""

    session_id: str
    modes: Annotated[SessionModeState | None, DefaultOnError] = None
    config_options: OptConfigOptionList = None


class LoadSessionResponse(AcpModel):
    """The agent's `session/load` answer (sent after the replayed updates): modes and config
    options."""

    modes: Annotated[SessionModeState | None, DefaultOnError] = None
    config_options: OptConfigOptionList = None


class PromptResponse(AcpModel):
    """The agent's `session/prompt` answer, sent when the turn ends: why it stopped."""

    stop_reason: DisplayStr
    """One of `STOP_REASONS`, or a newer value kept as is."""


class SetSessionModeResponse(AcpModel):
    """The (empty) answer to `session/set_mode`."""


class SetSessionConfigOptionResponse(AcpModel):
    """The answer to `session/set_config_option`: every config option as it now stands."""

    config_options: ConfigOptionList = Field(default_factory=list)


__all__ = [
    "PROTOCOL_VERSION",
    "STOP_REASONS",
    "AgentAuthCapabilities",
    "AgentCapabilities",
    "AuthMethod",
    "AuthMethodAgent",
    "AuthMethodTerminal",
    "AuthenticateResponse",
    "EnvVariable",
    "Implementation",
    "InitializeResponse",
    "LoadSessionResponse",
    "McpCapabilities",
    "NewSessionResponse",
    "PromptCapabilities",
    "PromptResponse",
    "SessionCapabilities",
    "SetSessionConfigOptionResponse",
    "SetSessionModeResponse",
]
