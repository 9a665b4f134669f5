"""Unstable MCP over ACP (schema.unstable.json, SDK 2.4.0): `mcp/message`, now request-scoped.

The agent sends an MCP request to an MCP server the client provides over ACP (`McpServerAcp`)
with `mcp/message` (`serverId`, `requestId`, `method`, `params`); `mcp/connect` and
`mcp/disconnect` are gone. acp-tui provides no ACP-transported MCP server, so it answers every
`mcp/message` with "method not found" (-32601); the model is what the inspector checks.
"""

from __future__ import annotations

from typing import Any

from ._base import AcpModel


class MessageMcpRequest(AcpModel):
    """Params of `mcp/message` (a request from the agent)."""

    server_id: str
    request_id: str
    method: str
    params: dict[str, Any] | None = None


__all__ = ["MessageMcpRequest"]
