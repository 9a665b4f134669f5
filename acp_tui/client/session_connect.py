"""Connecting an `AgentSession` to its agent and losing it: spawn and `initialize` (through the
`Connector`; the answer read into the session, v2's driver installed), tear the agent down, and
what a failure means (a crash: questions cancelled, unfinished tool calls ended, what the agent
ran killed; a refusal: the session failed)."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from acp_tui.client import agent_quirks
from acp_tui.client.events import AgentCrash, SessionState
from acp_tui.client.handshake import HandshakeError
from acp_tui.client.session_routes import v1_routes
from acp_tui.client.v2_session import V2Driver
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.process import AgentProcess, AgentSpawnError

if TYPE_CHECKING:
    from acp_tui.client.agent_session import AgentSession


async def connect(session: AgentSession) -> bool:
    """Spawn and initialize the agent without opening a session."""
    session.set_state(SessionState.STARTING)
    session.phase = "start"
    try:
        connection = await session.connector.connect()
    except AgentSpawnError as error:
        session.fail(str(error))
        return False
    session.phase = "initialize"
    try:
        hello = await session.connector.initialize()
    except (RpcError, ConnectionClosed) as error:
        await failed_request(session, "initialize", error)
        return False
    except HandshakeError as error:
        session.fail(str(error))
        await teardown(session)
        return False
    session.agent_info = hello.info
    session.fs.missing_reads_empty = agent_quirks.missing_reads_empty(hello.info)
    session.agent_capabilities = hello.capabilities
    session.auth_methods = hello.auth_methods
    session.protocol_version = hello.protocol_version
    if hello.protocol_version >= 2:
        if session.v2 is None:
            session.v2 = V2Driver(session)
        session.v2.install_routes(connection, v1_routes(session).methods)
    return True


async def teardown(session: AgentSession) -> None:
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


async def failed_request(session: AgentSession, what: str, error: Exception) -> None:
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


def crashed(session: AgentSession, process: AgentProcess, during: str) -> None:
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


async def _end_leftovers(session: AgentSession, process: AgentProcess) -> None:
    with contextlib.suppress(Exception):
        await session.terminals.close_all()
    with contextlib.suppress(Exception):
        await process.kill_tree()
