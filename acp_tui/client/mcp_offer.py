"""Which MCP servers go to this agent: stdio always, http/sse only when its
`mcpCapabilities` say so; the rest is reported once per session open, not sent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from acp_tui.client.events import Notice
from acp_tui.mcp_servers import offer_for

if TYPE_CHECKING:
    from acp_tui.client.agent_session import AgentSession


def servers_for(session: AgentSession) -> list[dict[str, Any]]:
    """The servers to put in session/new, load, resume or fork (kept in `session.mcp_sent`)."""
    caps = session.agent_capabilities.mcp_capabilities
    offer = offer_for(session.mcp_servers, http=caps.http, sse=caps.sse)
    if offer.refused:
        names = ", ".join(f"{name} ({kind})" for name, kind in offer.refused)
        session.notices.emit(
            Notice(f"MCP servers not passed ({session.agent_name} cannot take them): {names}",
                   "warning")
        )  # fmt: skip
    session.mcp_sent = offer.sent
    return offer.sent
