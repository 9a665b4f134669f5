"""MCP servers from the config, as ACP `McpServer` objects, and which ones an agent can take.

Config (global `[[mcp_servers]]`, or per preset `[[agents.NAME.mcp_servers]]`):

    [[mcp_servers]]                      # stdio (every agent takes these)
    name = "fs"
    command = "/usr/bin/mcp-fs"
    args = ["--root", "/srv"]
    env = { TOKEN = "x" }                # a table, or ACP's [{name, value}] list

    [[mcp_servers]]                      # http or sse: only for agents whose
    type = "http"                        # `mcpCapabilities` say so
    name = "docs"
    url = "https://example.com/mcp"
    headers = { Authorization = "Bearer x" }

Stdlib only (the command line uses it before anything heavy is imported).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

REMOTE_TYPES = ("http", "sse")


def _pairs(value: Any) -> list[dict[str, str]] | None:
    """A table or an ACP `[{name, value}]` list as the ACP list; None when neither."""
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return [{"name": str(k), "value": v} for k, v in value.items()]
    if isinstance(value, list) and all(
        isinstance(item, dict)
        and isinstance(item.get("name"), str)
        and isinstance(item.get("value"), str)
        for item in value
    ):
        return [{"name": item["name"], "value": item["value"]} for item in value]
    return None


def normalize_server(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """One config entry as an ACP `McpServer`: (server, None) or (None, the problem)."""
    if not isinstance(raw, dict):
        return None, "an MCP server must be a table"
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        return None, "an MCP server needs a `name`"
    kind = raw.get("type", "stdio")
    if kind in REMOTE_TYPES:
        url = raw.get("url")
        if not isinstance(url, str) or not url:
            return None, f"MCP server {name!r} ({kind}) needs a `url`"
        headers = _pairs(raw.get("headers", []))
        if headers is None:
            return None, f"MCP server {name!r}: `headers` must be a table of strings"
        return {"type": kind, "name": name, "url": url, "headers": headers}, None
    if kind != "stdio":
        return None, f"MCP server {name!r}: unknown type {kind!r} (stdio, http or sse)"
    command = raw.get("command")
    if not isinstance(command, str) or not command:
        return None, f"MCP server {name!r} needs a `command`"
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return None, f"MCP server {name!r}: `args` must be a list of strings"
    env = _pairs(raw.get("env", []))
    if env is None:
        return None, f"MCP server {name!r}: `env` must be a table of strings"
    return {"name": name, "command": command, "args": list(args), "env": env}, None


def normalize_servers(raw: Any) -> tuple[list[dict[str, Any]], list[str]]:
    """Every usable entry of a `mcp_servers` list, and one problem per unusable one."""
    if not isinstance(raw, list):
        return [], ["`mcp_servers` must be a list of tables ([[mcp_servers]])"]
    servers: list[dict[str, Any]] = []
    problems: list[str] = []
    for item in raw:
        server, problem = normalize_server(item)
        if server is not None:
            servers.append(server)
        elif problem is not None:
            problems.append(f"{problem}; ignored")
    return servers, problems


def server_kind(server: dict[str, Any]) -> str:
    """An MCP server's transport: its "type" when it is a remote one (http, sse), else "stdio"."""
    kind = server.get("type")
    return kind if isinstance(kind, str) and kind in REMOTE_TYPES else "stdio"


@dataclass(frozen=True)
class McpOffer:
    """What is sent to this agent and what it cannot take (by name and transport)."""

    sent: list[dict[str, Any]]
    refused: list[tuple[str, str]]


def offer_for(servers: Sequence[dict[str, Any]], *, http: bool, sse: bool) -> McpOffer:
    """Keep the servers the agent's `mcpCapabilities` allow; stdio always."""
    allowed = {"stdio": True, "http": http, "sse": sse}
    sent: list[dict[str, Any]] = []
    refused: list[tuple[str, str]] = []
    for server in servers:
        kind = server_kind(server)
        if allowed[kind]:
            sent.append(server)
        else:
            refused.append((str(server.get("name", "?")), kind))
    return McpOffer(sent, refused)


def merged(*lists: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Several server lists as one; a later server replaces an earlier one of the same name."""
    by_name: dict[str, dict[str, Any]] = {}
    for servers in lists:
        for server in servers:
            by_name.pop(str(server.get("name")), None)
            by_name[str(server.get("name"))] = server
    return list(by_name.values())
