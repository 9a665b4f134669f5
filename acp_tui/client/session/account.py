"""The user's login with the agent, as the sidebar's account section shows and drives it: the
login state the agent tells (`client/auth_status.py`), logging in again, logging out
(`client/logout.py`).

A part `AgentSession` owns (`AgentSession.account`). Logging in at the start is the opening's
(`session/open.py`); this is the login the user asks for later.
"""

from __future__ import annotations

from typing import Any, Protocol

from acp_tui.client import logout
from acp_tui.client.auth_status import AuthStatus, fetch_status, offers_status, status_received
from acp_tui.client.connector import Connector, GaveUp, Lost
from acp_tui.client.session.core import AgentTraits, Caller
from acp_tui.client.ui_port import ClientUi
from acp_tui.protocol import methods
from acp_tui.protocol.agent_api import AgentApi
from acp_tui.protocol.models import AgentCapabilities
from acp_tui.signal import Signal
from acp_tui.tasks import Supervisor


class AccountSession(AgentTraits, Caller, Protocol):
    """What the login needs of the session: the agent's methods and traits, its connector (which
    asks the user how to log in), its tasks, and a restart (a terminal login)."""

    @property
    def connector(self) -> Connector:
        """The agent's process and connection (it runs the login)."""

    @property
    def ui(self) -> ClientUi:
        """The questions only a person answers (which login method)."""

    @property
    def tasks(self) -> Supervisor:
        """The session's background tasks (the `auth/status` request)."""

    @property
    def error(self) -> str | None:
        """Why the session failed, when a restart did."""

    async def restart(self) -> bool:
        """Start the agent again and continue the session."""


class Account:
    """The agent's login state and the user's log in and log out."""

    def __init__(self, session: AccountSession) -> None:
        self._session = session
        self.auth_status: AuthStatus | None = None
        """The agent's account and login state, once it told."""
        self.auth_status_changed: Signal[AuthStatus] = Signal("auth status")

    @property
    def agent_capabilities(self) -> AgentCapabilities:
        """What the agent said it can do (`auth.status`: it answers `auth/status`)."""
        return self._session.agent_capabilities

    @property
    def api(self) -> AgentApi:
        """The typed ACP calls on the live connection."""
        return self._session.api

    def ask_status(self) -> None:
        """Ask `auth/status` in the background, where the agent offers it (after `initialize`,
        after a login)."""
        if offers_status(self.agent_capabilities):
            self._session.tasks.spawn(methods.AUTH_STATUS, fetch_status(self))

    def on_status_update(self, params: Any) -> None:
        """`auth/status_update` (or claude-agent-acp's `_auth/status_update`): keep and tell."""
        status_received(self, params)

    async def log_in(self) -> str | None:
        """Log in again: the agent's methods asked as at the start (a terminal login restarts
        the agent, as ACP v1 wants); what went wrong, or None."""
        session = self._session
        if not session.auth_methods:
            return "the agent offers no login"
        outcome = await session.connector.log_in(
            session.ui,
            list(session.auth_methods),
            None,
            v2=session.speaks_v2,
            agent=session.agent_name,
            by_user=True,
        )
        if isinstance(outcome, GaveUp):
            return None
        if isinstance(outcome, Lost):
            return "the agent is not running"
        if outcome.reconnect and not await session.restart():
            return session.error or "the agent did not restart"
        self.ask_status()
        return None

    @property
    def can_logout(self) -> bool:
        """The agent offers to end its login (v1 `logout`, v2 `auth/logout`)."""
        return logout.can_logout(self._session)

    async def logout(self) -> str | None:
        """Ask the agent to end its login; an error message, or None."""
        return await logout.logout(self._session)
