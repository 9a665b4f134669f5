"""Connecting an `AgentSession` to its agent and losing it: spawn and `initialize` (through the
`Connector`; the answer read into the session), tear the agent down, and
what a failure means (a crash: questions cancelled, unfinished tool calls ended, what the agent
ran killed; a refusal: the session failed)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

from acp_tui.client import agent_quirks
from acp_tui.client.connector import Connector
from acp_tui.client.elicitation import ElicitationBroker
from acp_tui.client.events import AgentCrash, SessionState
from acp_tui.client.hello import AuthMethodInfo, HandshakeError
from acp_tui.client.session.core import StateMachine
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.host.permissions import PermissionBroker
from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.models import AgentCapabilities, Implementation
from acp_tui.protocol.process import AgentProcess, AgentSpawnError
from acp_tui.protocol.traffic_store import TrafficStore
from acp_tui.tasks import Supervisor
from acp_tui.thread.thread import Thread


class ConnectingSession(StateMachine, Protocol):
    """What connecting and losing the agent needs of the session: the connector, what the
    `initialize` answer is read into, what a crash sets, what a teardown stops."""

    phase: str
    agent_info: Implementation | None
    agent_capabilities: AgentCapabilities
    auth_methods: list[AuthMethodInfo]
    protocol_version: int
    crash: AgentCrash | None
    cleanup: asyncio.Future[None] | None

    @property
    def connector(self) -> Connector:
        """What starts the agent process (or takes the prestarted one)."""

    @property
    def thread(self) -> Thread:
        """The thread the agent's updates are applied to."""

    @property
    def tasks(self) -> Supervisor:
        """The supervisor of the session's background tasks."""

    @property
    def fs(self) -> FileSystemHost:
        """The file host that answers fs/* requests."""

    @property
    def terminals(self) -> TerminalHost:
        """The terminal host that answers terminal/* requests."""

    @property
    def permissions(self) -> PermissionBroker:
        """The broker that asks the user for permissions."""

    @property
    def elicitations(self) -> ElicitationBroker:
        """The broker that asks the user the agent's elicitations."""

    @property
    def traffic_store(self) -> TrafficStore:
        """Where every frame is recorded for the inspector."""


async def connect(session: ConnectingSession) -> Connection | None:
    """Spawn and initialize the agent without opening a session; the connection, or None (the
    session failed or crashed). The caller installs v2's driver when the answer says 2.

    Args:
        session: the session the `initialize` answer is read into.
    """
    session.set_state(SessionState.STARTING)
    session.phase = "start"
    try:
        connection = await session.connector.connect()
    except AgentSpawnError as error:
        session.fail(str(error))
        return None
    session.phase = "initialize"
    try:
        hello = await session.connector.initialize()
    except (RpcError, ConnectionClosed) as error:
        await failed_request(session, "initialize", error)
        return None
    except HandshakeError as error:
        session.fail(str(error))
        await teardown(session)
        return None
    session.agent_info = hello.info
    session.fs.missing_reads_empty = agent_quirks.missing_reads_empty(hello.info)
    session.agent_capabilities = hello.capabilities
    session.auth_methods = hello.auth_methods
    session.protocol_version = hello.protocol_version
    return connection


async def teardown(session: ConnectingSession) -> None:
    """Stop the agent (its questions cancelled, terminals closed); the session stays."""
    session.permissions.cancel_all()
    session.elicitations.cancel_all()
    session.connector.stop_watching()
    with contextlib.suppress(Exception):
        await session.terminals.close_all()
    had_connection = session.connector.connection is not None
    await session.connector.teardown()
    if had_connection:
        session.traffic_store.connection_closed()


async def failed_request(session: ConnectingSession, what: str, error: Exception) -> None:
    """A request failed: the agent is gone (crashed), or it said no (failed)."""
    if isinstance(error, ConnectionClosed):
        process = session.connector.process
        if process is not None:
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(process.wait(), 3.0)
        # the watcher reports the crash; make sure state reflects it
        if session.state is not SessionState.CRASHED and process is not None:
            crashed(session, process, what)
        return
    assert isinstance(error, RpcError)
    session.fail(f"{what} failed: {error.describe()}")


def crashed(session: ConnectingSession, process: AgentProcess, during: str) -> None:
    """The agent is gone: nothing it asked can be answered, nothing it ran still runs."""
    exit_info = process.exit
    session.permissions.cancel_all()
    session.elicitations.cancel_all()
    session.crash = AgentCrash(
        description=(
            exit_info.describe() if exit_info else "closed its output but is still running"
        ),
        stderr_tail=process.stderr_tail(12),
        during=during,
        returncode=exit_info.returncode if exit_info else None,
    )
    session.thread.cancel_unfinished_tool_calls()
    session.set_state(SessionState.CRASHED)
    # nothing the agent started may outlive it: its terminals and its own children
    session.cleanup = session.tasks.spawn("end leftovers", _end_leftovers(session, process))


async def _end_leftovers(session: ConnectingSession, process: AgentProcess) -> None:
    with contextlib.suppress(Exception):
        await session.terminals.close_all()
    with contextlib.suppress(Exception):
        await process.kill_tree()
