"""Pydantic models for ACP v1 as pinned in the shared schema (plus unstable plan_update/removed).

On the wire everything is camelCase; `to_wire(model)` dumps by alias without `None` fields.
Models keep unknown fields (`extra="allow"`) and `_meta` (field `meta`); unknown variants are kept
raw (`UnknownUpdate`, `UnknownContent`, `UnknownToolCallContent`, `UnknownPlanContent`).

The models of rarely used methods (`session/list`, resume and fork, `providers/*`, the unstable
auth status and `mcp/message`), of what the client sends (`requests`: acp-tui writes plain
dicts) and of the agent's requests (`client_methods`: none comes before the session is open)
are `LATER`: built when one of their names is first asked for
(`from acp_tui.protocol.models import ProviderInfo` inside the function that needs it, or
`acp_tui.protocol.models.ProviderInfo`), not by every launch: building a model class costs
about half a millisecond, and the first screen needs none of these.
"""

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._base import AcpModel, DefaultOnError, SkipInvalidItems, to_wire
from .agent_methods import *  # noqa: F403
from .agent_methods import __all__ as _agent_all
from .content import *  # noqa: F403
from .content import __all__ as _content_all
from .live_updates import *  # noqa: F403
from .live_updates import __all__ as _live_all
from .session import *  # noqa: F403
from .session import __all__ as _session_all
from .subagent_sessions import *  # noqa: F403
from .subagent_sessions import __all__ as _subagent_sessions_all
from .tools import *  # noqa: F403
from .tools import __all__ as _tools_all
from .updates import *  # noqa: F403
from .updates import __all__ as _updates_all
from .work_state import *  # noqa: F403
from .work_state import __all__ as _work_state_all

if TYPE_CHECKING:  # (at run time: `__getattr__`, on first use)
    from .auth_status import *  # noqa: F403
    from .client_methods import *  # noqa: F403
    from .history import *  # noqa: F403
    from .mcp_over_acp import *  # noqa: F403
    from .providers import *  # noqa: F403
    from .requests import *  # noqa: F403

LATER: dict[str, tuple[str, ...]] = {
    "auth_status": (
        "AUTH_STATES",
        "AccountList",
        "AuthAccount",
        "AuthStatusResponse",
        "AuthStatusUpdateNotification",
    ),
    "client_methods": (
        "PERMISSION_OPTION_KINDS",
        "CancelledPermissionOutcome",
        "CreateTerminalRequest",
        "CreateTerminalResponse",
        "KillTerminalRequest",
        "KillTerminalResponse",
        "PermissionOption",
        "ReadTextFileRequest",
        "ReadTextFileResponse",
        "ReleaseTerminalRequest",
        "ReleaseTerminalResponse",
        "RequestPermissionOutcome",
        "RequestPermissionRequest",
        "RequestPermissionResponse",
        "SelectedPermissionOutcome",
        "TerminalExitStatus",
        "TerminalOutputRequest",
        "TerminalOutputResponse",
        "TerminalRequest",
        "WaitForTerminalExitRequest",
        "WaitForTerminalExitResponse",
        "WriteTextFileRequest",
        "WriteTextFileResponse",
    ),
    "history": (
        "ForkSessionResponse",
        "ListSessionsResponse",
        "ResumeSessionResponse",
        "SessionInfo",
        "SessionSetup",
    ),
    "mcp_over_acp": ("MessageMcpRequest",),
    "requests": (
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
    ),
    "providers": (
        "DisableProviderRequest",
        "ListProvidersRequest",
        "ListProvidersResponse",
        "ProviderCurrentConfig",
        "ProviderInfo",
        "SetProviderRequest",
    ),
}
"""The submodules imported on first use, and the names each exports (its `__all__`; a test
checks they agree)."""

_HOME = {name: module for module, names in LATER.items() for name in names}


if not TYPE_CHECKING:  # (mypy reads the imports above: a name it does not know stays an error)

    def __getattr__(name: str) -> Any:
        """A model of `LATER`, its submodule imported (and its class built) the first time."""
        module = _HOME.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(import_module(f"{__name__}.{module}"), name)
        globals()[name] = value
        return value


__all__ = [
    "AcpModel",
    "DefaultOnError",
    "SkipInvalidItems",
    "to_wire",
    *_agent_all,
    *_content_all,
    *_session_all,
    *_tools_all,
    *_live_all,
    *_updates_all,
    *_subagent_sessions_all,
    *_work_state_all,
    *_HOME,
]
