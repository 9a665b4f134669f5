"""Which MCP servers go to this agent: stdio always, http/sse only when its
`mcpCapabilities` say so; the rest is reported once per session open, not sent."""

from __future__ import annotations

from typing import Any, Protocol

from acp_tui.client.events import Notice
from acp_tui.client.session.core import AgentTraits
from acp_tui.mcp_servers import offer_for
from acp_tui.signal import Signal


class McpSession(AgentTraits, Protocol):
    """What offering MCP servers needs of the session: the configured servers, where to tell
    what was not passed, and where to keep what was."""

    mcp_sent: list[dict[str, Any]]

    @property
    def mcp_servers(self) -> list[dict[str, Any]]:
        """The MCP servers configured for this session, as sent on the wire."""

    @property
    def notices(self) -> Signal[Notice]:
        """Where notices for the user go (e.g. servers the agent cannot take)."""


def servers_for(session: McpSession) -> list[dict[str, Any]]:
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
