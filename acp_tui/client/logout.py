"""Logging out: v1 `logout`, offered only when the agent advertises
`agentCapabilities.auth.logout`; v2 `auth/logout`, which every agent with a non-empty
`authMethods` list must support. Nothing here imports Textual."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.client.session_config import error_text
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RpcError

if TYPE_CHECKING:
    from acp_tui.client.agent_session import AgentSession


def can_logout(session: AgentSession) -> bool:
    if session.v2 is not None:
        return bool(session.auth_methods)
    return session.agent_capabilities.auth.logout is not None


async def logout(session: AgentSession) -> str | None:
    """Ask the agent to end the authenticated session; an error message, or None."""
    try:
        await session.api.logout()
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    return None
