"""What the client sends the agent, as models: `initialize` with the client's capabilities,
`authenticate`, `session/new`, `session/load` (and the MCP servers offered), `session/prompt`,
`session/set_mode`, `session/set_config_option`, `session/cancel`.

acp-tui writes these as plain dicts (`protocol/agent_api.py`, `protocol/announce.py`): the models
say what the schema allows (the tests, the SDK checks) and are built only when one is first asked
for (`models.LATER`), never on the way to the first screen.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from acp_tui.protocol.version import PROTOCOL_VERSION

from ._base import AcpModel, DefaultOnError, LenientBool, SkipInvalidItems
from .agent_methods import EnvVariable, Implementation
from .content import ContentBlock

# ---- the client's capabilities -----------------------------------------------------------------


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


# ---- requests ----------------------------------------------------------------------------------


class InitializeRequest(AcpModel):
    """Params of `initialize`: the protocol version offered, the client's capabilities and name."""

    protocol_version: int = PROTOCOL_VERSION
    client_capabilities: Annotated[ClientCapabilities, DefaultOnError] = Field(
        default_factory=ClientCapabilities
    )
    client_info: Annotated[Implementation | None, DefaultOnError] = None


class AuthenticateRequest(AcpModel):
    """Params of `authenticate`: the auth method the user chose."""

    method_id: str


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


McpServer = McpServerHttp | McpServerSse | McpServerStdio
McpServerList = Annotated[list[McpServer], SkipInvalidItems, DefaultOnError]


class NewSessionRequest(AcpModel):
    """Params of `session/new`: the working directory and the MCP servers to connect."""

    cwd: str
    mcp_servers: McpServerList = Field(default_factory=list)
    additional_directories: Annotated[list[str] | None, SkipInvalidItems, DefaultOnError] = None


class LoadSessionRequest(AcpModel):
    """Params of `session/load`: which session to replay, in which directory, with which MCP
    servers."""

    session_id: str
    cwd: str
    mcp_servers: McpServerList = Field(default_factory=list)
    additional_directories: Annotated[list[str] | None, SkipInvalidItems, DefaultOnError] = None


class PromptRequest(AcpModel):
    """Params of `session/prompt`: the user's prompt as content blocks."""

    session_id: str
    prompt: list[ContentBlock]


class SetSessionModeRequest(AcpModel):
    """Params of `session/set_mode`: the mode to switch to."""

    session_id: str
    mode_id: str


class SetSessionConfigOptionRequest(AcpModel):
    """Set a config option: a value id for selects, or `type="boolean"` with a bool value."""

    session_id: str
    config_id: str
    value: bool | str
    type: Literal["boolean"] | None = None


class CancelNotification(AcpModel):
    """Params of the `session/cancel` notification."""

    session_id: str


__all__ = [
    "AuthCapabilities",
    "AuthenticateRequest",
    "CancelNotification",
    "ClientCapabilities",
    "ClientSessionCapabilities",
    "ElicitationCapabilities",
    "FileSystemCapabilities",
    "HttpHeader",
    "InitializeRequest",
    "LoadSessionRequest",
    "McpServer",
    "McpServerHttp",
    "McpServerList",
    "McpServerSse",
    "McpServerStdio",
    "NewSessionRequest",
    "PromptRequest",
    "SessionConfigOptionsCapabilities",
    "SetSessionConfigOptionRequest",
    "SetSessionModeRequest",
]
