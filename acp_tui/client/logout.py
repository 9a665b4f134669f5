"""Logging out: v1 `logout`, offered only when the agent advertises
`agentCapabilities.auth.logout`; v2 `auth/logout`, which every agent with a non-empty
`authMethods` list must support. Nothing here imports Textual."""

from __future__ import annotations

from typing import Protocol

from acp_tui.client.session.config import error_text
from acp_tui.client.session.core import AgentTraits, Caller
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RpcError


class LogoutSession(AgentTraits, Caller, Protocol):
    """What logging out needs of the session: what the agent offers, and a request."""


def can_logout(session: AgentTraits) -> bool:
    """Whether the agent offers to end its login.

    Args:
        session: the agent's traits (v2 or not, its capabilities and auth methods).
    """
    if session.speaks_v2:
        return bool(session.auth_methods)
    return session.agent_capabilities.auth.logout is not None


async def logout(session: LogoutSession) -> str | None:
    """Ask the agent to end the authenticated session; an error message, or None.

    Args:
        session: the session whose agent is asked (v1 `logout`, v2 `auth/logout`).
    """
    try:
        await session.api.logout()
    except (RpcError, ConnectionClosed) as error:
        return error_text(error)
    return None
