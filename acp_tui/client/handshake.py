"""The `initialize` exchange: what acp-tui reads from the agent's answer (what it announces is
`protocol/announce.py`, light enough to send before the models are imported)."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from acp_tui.client.auth_hints import sent_env_vars
from acp_tui.client.hello import AgentHello, AuthMethodInfo, HandshakeError, malformed_answer
from acp_tui.protocol.models import AuthMethodTerminal, InitializeResponse
from acp_tui.protocol.version import PROTOCOL_VERSION

__all__ = [
    "AgentHello",
    "AuthMethodInfo",
    "HandshakeError",
    "malformed_answer",
    "read_initialize_result",
]


def read_initialize_result(result: Any, offered: int = PROTOCOL_VERSION) -> AgentHello:
    """Validate the answer with `InitializeResponse` (lenient where the schema says so).

    Having offered v2, an answer of 2 is read as v2 and an answer of 1 as v1 (the fallback).
    """
    if offered >= 2 and isinstance(result, dict) and result.get("protocolVersion") == 2:
        from acp_tui.client.v2.handshake import read_v2_initialize_result  # (v2's models: lazy)

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
            env_vars=sent_env_vars([method.model_extra, method.meta], method.description),
        )
        for method in response.auth_methods
    ]
    return AgentHello(response.agent_info, response.agent_capabilities, methods)
