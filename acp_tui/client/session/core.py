"""What the parts of a session need from it, as small Protocols (the session's parts never import
`agent_session.py`: it imports them, and wires them).

`AgentSession` implements each of these structurally; a part's own Protocol (`TurnSession` in
`prompt_turn.py`, `OpeningSession` in `session/open.py`, …) says which of the session's
attributes it reads or writes, so a test can hand it a small fake instead of a whole session.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from acp_tui.client.events import Notice, SessionState
from acp_tui.client.hello import AuthMethodInfo
from acp_tui.client.prompt_queue import PromptQueue
from acp_tui.host.permissions import PermissionBroker
from acp_tui.protocol.agent_api import AgentApi
from acp_tui.protocol.connection import Connection
from acp_tui.protocol.models import AgentCapabilities
from acp_tui.signal import Signal
from acp_tui.tasks import Supervisor
from acp_tui.thread.thread import Thread


class Caller(Protocol):
    """Sends requests on the session's live connection."""

    @property
    def api(self) -> AgentApi:
        """The typed ACP calls on the live connection (each raises `RpcError` (the agent's
        error) or `ConnectionClosed` (no agent running))."""
        ...


class AgentTraits(Protocol):
    """What the agent said about itself in its `initialize` answer."""

    @property
    def speaks_v2(self) -> bool:
        """Whether the agent speaks the v2 draft."""

    @property
    def agent_capabilities(self) -> AgentCapabilities:
        """What the agent said it can do in `initialize`."""

    @property
    def auth_methods(self) -> Sequence[AuthMethodInfo]:
        """The agent's authentication methods."""

    @property
    def agent_name(self) -> str:
        """The agent's name for people."""


class StateMachine(Protocol):
    """The session's state as its parts move it."""

    @property
    def state(self) -> SessionState:
        """The session's state."""

    def set_state(self, state: SessionState) -> None:
        """Move to `state` (and tell the session's `state_changed`).

        Args:
            state: the new state.
        """
        ...

    def fail(self, message: str) -> None:
        """The session cannot go on (state FAILED).

        Args:
            message: what the user reads in the banner (made safe by the session).
        """
        ...


class TurnDriving(StateMachine, Caller, Protocol):
    """What a turn driver (v1 `PromptTurns`, v2 `V2Driver`) needs of its session: the live
    connection and session id, the thread it fills, the queue it takes prompts from, its
    background tasks, the permission broker and where it tells the user."""

    @property
    def connection(self) -> Connection | None:
        """The connection to the agent, None before it starts or after it ended."""

    @property
    def session_id(self) -> str | None:
        """The agent's session id, once the session is open."""

    @property
    def thread(self) -> Thread:
        """The thread turns are applied to."""

    @property
    def prompts(self) -> PromptQueue:
        """The queue of prompts waiting for the turn to end."""

    @property
    def tasks(self) -> Supervisor:
        """The supervisor that runs the turn tasks."""

    @property
    def permissions(self) -> PermissionBroker:
        """The permission broker (its questions end with the turn)."""

    @property
    def notices(self) -> Signal[Notice]:
        """Where notices for the user go."""


class DrivenSession(TurnDriving, Protocol):
    """What the v2 driver (`client/v2/session.py`) needs of its session besides a driver's: the
    state signal its prompts follow."""

    @property
    def state_changed(self) -> Signal[SessionState]:
        """Emits each new state."""
