"""The agent's account and login state (unstable `auth/status`, `auth/status_update`), read into
one value the sidebar shows: one module.

Two shapes reach it: the schema's (`{state, accounts: [{label, name, email, organization,
active}]}`, the answer of `auth/status` and the params of `auth/status_update`) and
claude-agent-acp's extension `_auth/status_update` (`{authStatus: {kind, label, detail}}`, its
capability in `agentCapabilities._meta.authStatus`). Every string is agent text, made safe here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError

from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.models import AgentCapabilities
from acp_tui.safe_text import safe_line
from acp_tui.signal import Signal

STATE_WORDS = {
    "authenticated": "logged in",
    "unauthenticated": "not logged in",
    "not_required": "no login needed",
    "unknown": "login state unknown",
}
MAX_ACCOUNTS = 16
"""Accounts shown (an agent could list any number)."""


@dataclass(frozen=True)
class AuthStatus:
    """The login state and the accounts, as lines to show."""

    state: str
    accounts: tuple[str, ...] = ()

    @property
    def state_text(self) -> str:
        """The state in words."""
        return STATE_WORDS.get(self.state, self.state)

    @property
    def logged_in(self) -> bool:
        """The agent says a login is in place."""
        return self.state == "authenticated"


def read_status(params: Any) -> AuthStatus | None:
    """An auth status from either shape (None: neither)."""
    if not isinstance(params, dict):
        return None
    extension = params.get("authStatus")
    if isinstance(extension, dict):  # claude-agent-acp's `_auth/status_update`
        label, detail = extension.get("label"), extension.get("detail")
        line = safe_line(str(label)) if isinstance(label, str) else "an account"
        if isinstance(detail, str) and detail:
            line += f" ({safe_line(detail)})"
        kind = extension.get("kind")
        return AuthStatus("authenticated" if kind else "unauthenticated", (line,) if kind else ())
    from acp_tui.protocol.models import AuthStatusUpdateNotification  # (built when first read)

    try:
        status = AuthStatusUpdateNotification.model_validate(params)
    except ValidationError:
        return None
    lines = []
    for account in status.accounts[:MAX_ACCOUNTS]:
        who = " · ".join(x for x in (account.name, account.email, account.organization) if x)
        line = account.label + (f" — {who}" if who else "")
        lines.append(("● " if account.active else "") + safe_line(line))
    return AuthStatus(safe_line(status.state), tuple(lines))


def offers_status(capabilities: AgentCapabilities) -> bool:
    """Whether the agent answers `auth/status` (the schema's `auth.status`)."""
    return capabilities.auth.status is not None


class AuthStatusSession(Protocol):
    """What following the agent's login state needs of the session."""

    auth_status: AuthStatus | None

    @property
    def agent_capabilities(self) -> AgentCapabilities:
        """What the agent said it can do (`auth.status`)."""

    @property
    def auth_status_changed(self) -> Signal[AuthStatus]:
        """Told each new status."""

    @property
    def api(self) -> Any:
        """What acp-tui sends (`protocol/agent_api.py`)."""


def status_received(session: AuthStatusSession, params: Any) -> None:
    """`auth/status_update` (or the claude extension): keep and tell the new status."""
    status = read_status(params)
    if status is not None and status != session.auth_status:
        session.auth_status = status
        session.auth_status_changed.emit(status)


async def fetch_status(session: AuthStatusSession) -> None:
    """Ask `auth/status` where the agent offers it (after `initialize`); errors leave it as is,
    and so does an answer that comes after an `auth/status_update` sent meanwhile (newer)."""
    if not offers_status(session.agent_capabilities):
        return
    before = session.auth_status
    try:
        result = await session.api.auth_status()
    except (RpcError, ConnectionClosed):
        return
    if session.auth_status is before:
        status_received(session, result)
