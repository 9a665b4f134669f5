"""Pydantic models for ACP v1 as pinned in the shared schema (plus unstable plan_update/removed).

On the wire everything is camelCase; `to_wire(model)` dumps by alias without `None` fields.
Models keep unknown fields (`extra="allow"`) and `_meta` (field `meta`); unknown variants are kept
raw (`UnknownUpdate`, `UnknownContent`, `UnknownToolCallContent`, `UnknownPlanContent`).
"""

from ._base import AcpModel, DefaultOnError, SkipInvalidItems, to_wire
from .agent_methods import *  # noqa: F403
from .agent_methods import __all__ as _agent_all
from .auth_status import *  # noqa: F403
from .auth_status import __all__ as _auth_status_all
from .client_methods import *  # noqa: F403
from .client_methods import __all__ as _client_all
from .content import *  # noqa: F403
from .content import __all__ as _content_all
from .history import *  # noqa: F403
from .history import __all__ as _history_all
from .live_updates import *  # noqa: F403
from .live_updates import __all__ as _live_all
from .mcp_over_acp import *  # noqa: F403
from .mcp_over_acp import __all__ as _mcp_over_acp_all
from .providers import *  # noqa: F403
from .providers import __all__ as _providers_all
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

__all__ = [
    "AcpModel",
    "DefaultOnError",
    "SkipInvalidItems",
    "to_wire",
    *_agent_all,
    *_client_all,
    *_content_all,
    *_history_all,
    *_session_all,
    *_tools_all,
    *_live_all,
    *_providers_all,
    *_updates_all,
    *_auth_status_all,
    *_mcp_over_acp_all,
    *_subagent_sessions_all,
    *_work_state_all,
]
