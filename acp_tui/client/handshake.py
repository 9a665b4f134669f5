"""The `initialize` exchange: what acp-tui announces, and what it reads from the answer."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from acp_tui import __version__
from acp_tui.client.ui_bridge import AuthMethodInfo
from acp_tui.protocol.version import PROTOCOL_VERSION


def initialize_params() -> dict[str, Any]:
    """Only capabilities acp-tui really implements."""
    return {
        "protocolVersion": PROTOCOL_VERSION,
        "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True},
            "terminal": True,
            "auth": {"terminal": True},
            # unstable: we render plan_update / plan_removed
            "plan": {},
        },
        "clientInfo": {"name": "acp-tui", "title": "acp-tui", "version": __version__},
    }


class HandshakeError(Exception):
    """The agent's answer to initialize cannot be worked with (message is for the user)."""


@dataclass(frozen=True)
class AgentHello:
    """What the agent told us about itself in its initialize answer."""

    info: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, Any] = field(default_factory=dict)
    auth_methods: list[AuthMethodInfo] = field(default_factory=list)


def read_initialize_result(result: Any) -> AgentHello:
    if not isinstance(result, dict):
        raise HandshakeError("the agent answered initialize with something that is not an object")
    version = result.get("protocolVersion")
    if version != PROTOCOL_VERSION:
        raise HandshakeError(
            f"the agent speaks ACP protocol version {version!r}; "
            f"acp-tui speaks version {PROTOCOL_VERSION}"
        )
    info = result.get("agentInfo")
    caps = result.get("agentCapabilities")
    methods = result.get("authMethods")
    auth_methods = (
        [m for m in (AuthMethodInfo.from_wire(r) for r in methods) if m is not None]
        if isinstance(methods, list)
        else []
    )
    return AgentHello(
        info if isinstance(info, dict) else {},
        caps if isinstance(caps, dict) else {},
        auth_methods,
    )
