"""The `initialize` exchange: what acp-tui reads from the agent's answer (what it announces is
`protocol/announce.py`, light enough to send before the models are imported)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from acp_tui.protocol.models import (
    AgentCapabilities,
    AuthMethodTerminal,
    Implementation,
    InitializeResponse,
)
from acp_tui.protocol.version import PROTOCOL_VERSION


@dataclass(frozen=True)
class AuthMethodInfo:
    """One way to log in the agent offered, as the auth loop and its screen use it (read from
    the validated `authMethods`, so its texts are already safe to show)."""

    id: str
    name: str
    description: str | None
    type: str  # "agent" (default) or "terminal"
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)


class HandshakeError(Exception):
    """The agent's answer to initialize cannot be worked with (message is for the user)."""


def malformed_answer(error: ValidationError) -> HandshakeError:
    """The error for an initialize answer its model rejected: where, and what was wrong."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "the answer"
    return HandshakeError(f"the agent's initialize answer is malformed ({where}: {first['msg']})")


@dataclass(frozen=True)
class AgentHello:
    """What the agent told us about itself in its initialize answer."""

    info: Implementation | None = None
    capabilities: AgentCapabilities = field(default_factory=AgentCapabilities)
    auth_methods: list[AuthMethodInfo] = field(default_factory=list)
    protocol_version: int = PROTOCOL_VERSION


def read_initialize_result(result: Any, offered: int = PROTOCOL_VERSION) -> AgentHello:
    """Validate the answer with `InitializeResponse` (lenient where the schema says so).

    Having offered v2, an answer of 2 is read as v2 and an answer of 1 as v1 (the fallback).
    """
    if offered >= 2 and isinstance(result, dict) and result.get("protocolVersion") == 2:
        from acp_tui.client.v2_handshake import read_v2_initialize_result

        return read_v2_initialize_result(result)
    try:
        response = InitializeResponse.model_validate(result)
    except ValidationError as error:
        raise malformed_answer(error) from None
    if response.protocol_version != PROTOCOL_VERSION:
        spoken = "1 and 2" if offered >= 2 else str(PROTOCOL_VERSION)
        raise HandshakeError(
            f"the agent speaks ACP protocol version {response.protocol_version!r}; "
            f"acp-tui speaks version {spoken}"
        )
    methods = [
        AuthMethodInfo(
            id=method.id,
            name=method.name,
            description=method.description,
            type="terminal" if isinstance(method, AuthMethodTerminal) else "agent",
            args=tuple(method.args) if isinstance(method, AuthMethodTerminal) else (),
            env=dict(method.env) if isinstance(method, AuthMethodTerminal) else {},
        )
        for method in response.auth_methods
    ]
    return AgentHello(response.agent_info, response.agent_capabilities, methods)
