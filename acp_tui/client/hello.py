"""What an agent's `initialize` answer says, v1 or v2 alike (`AgentHello`, `AuthMethodInfo`) and
the error for an answer that cannot be worked with. Read by `handshake.py` (v1) and
`v2/handshake.py` (v2); neither imports the other back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import ValidationError

from acp_tui.protocol.models import AgentCapabilities, Implementation
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
    env_vars: tuple[str, ...] = ()
    """Environment variables the agent says this method reads (`auth_hints.sent_env_vars`)."""


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
