"""Opening and closing an ACP session on a connected agent: `session/new`, `session/load`,
`session/resume` (v2: `session/resume` with `replayFrom` for a load), the login loop an
`AUTH_REQUIRED` answer starts, what the answer sets up (modes, config options, models), and
`session/close`. Functions over an `OpeningSession` (what they need of the session); the session
decides what a failure means."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import Any, Protocol

from acp_tui.client.connector import Connector, GaveUp, Lost
from acp_tui.client.events import SessionState
from acp_tui.client.hello import AuthMethodInfo
from acp_tui.client.mcp_offer import McpSession, servers_for
from acp_tui.client.session_core import StateMachine
from acp_tui.client.ui_port import ClientUi
from acp_tui.client.v2_session import v2_mcp_servers
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.errors import AUTH_REQUIRED, RpcError
from acp_tui.protocol.models.v2 import v1_config_options
from acp_tui.session.config_options import parse_models
from acp_tui.session.thread import Thread


class OpeningSession(McpSession, StateMachine, Protocol):
    """What opening a session needs of it: the live connection, the id it opens or gets, the
    thread the answer goes to, the login loop's connector and UI, and its lifecycle steps."""

    phase: str
    session_id: str | None

    @property
    def connection(self) -> Connection | None: ...
    @property
    def connector(self) -> Connector: ...
    @property
    def ui(self) -> ClientUi: ...
    @property
    def cwd(self) -> Path: ...
    @property
    def thread(self) -> Thread: ...
    @property
    def preferred_auth(self) -> str | None: ...

    async def connect(self) -> bool:
        """Spawn and initialize the agent again (a login that needs a restart)."""
        ...

    async def teardown(self) -> None:
        """Stop the agent, keeping the session."""
        ...

    async def failed_request(self, what: str, error: Exception) -> None:
        """A request failed: crashed or refused, the session says which."""
        ...


log = logging.getLogger(__name__)


async def open_session(session: OpeningSession, *, load: bool, resume: bool = False) -> bool:
    """Open `session.session_id` (load/resume) or a new session; logs in when the agent asks.
    False (with `error`/`crash` set) on failure.

    Args:
        session: the session opened (its id set by `session/new`).
        load: continue `session.session_id` (v1 `session/load`, v2 `session/resume` with a
            replay into an empty thread) instead of a new session.
        resume: `session/resume` (no replay) rather than a load.
    """
    connection = session.connection
    assert connection is not None
    tried: AuthMethodInfo | None = None
    v2 = session.speaks_v2
    offered = servers_for(session)  # what the agent's mcpCapabilities allow
    servers = v2_mcp_servers(offered) if v2 else offered
    thread = session.thread
    while True:
        session.phase = (
            ("session/resume" if resume or v2 else "session/load") if load else "session/new"
        )
        try:
            if load:
                params: dict[str, Any] = {
                    "sessionId": session.session_id,
                    "cwd": str(session.cwd),
                    "mcpServers": servers,
                }
                if v2 and not resume and not thread.entries:
                    params["replayFrom"] = {"type": "start"}  # v2: load = resume + replay
                # what a v1 load replays into a thread that already shows it is dropped there
                thread.skip_replayed = not v2 and bool(thread.entries)
                try:
                    result = await connection.request(session.phase, params)
                finally:
                    thread.skip_replayed = False
            else:
                result = await connection.request(
                    "session/new", {"cwd": str(session.cwd), "mcpServers": servers}
                )
        except RpcError as error:
            if error.code == AUTH_REQUIRED and session.auth_methods:
                message = error.describe()
                if tried is not None:  # authenticated, yet the agent still says no
                    message = f"{tried.name} did not work: {error.describe()}"
                tried = await authenticate(session, message)
                if tried is None:
                    return False
                connection = session.connection
                assert connection is not None
                continue
            await session.failed_request(session.phase, error)
            return False
        except ConnectionClosed as error:
            await session.failed_request(session.phase, error)
            return False
        break
    if isinstance(result, dict):
        if not load:
            session_id = result.get("sessionId")
            if not isinstance(session_id, str):
                session.fail("the agent's session/new answer has no sessionId")
                return False
            session.session_id = session_id
        apply_session_setup(session.thread, result, v2=v2)
    session.phase = "idle"  # a crash from now on is not "during session/new"
    session.set_state(SessionState.READY)
    return True


def apply_session_setup(
    thread: Thread, result: dict[str, Any], *, v2: bool, keep_missing: bool = False
) -> None:
    """What a session open answered besides its id: modes, config options, models.

    Args:
        thread: the session's thread, which takes them.
        result: the agent's answer to `session/new`, `load`, `resume` or `fork`.
        v2: the answer is v2's (config options in v2's form).
        keep_missing: models the answer leaves out stay as they were.
    """
    from acp_tui.protocol.models import SessionModeState

    modes = result.get("modes")
    if isinstance(modes, dict):
        try:
            thread.set_modes(SessionModeState.model_validate(modes))
        except ValueError as error:
            log.warning("ignoring malformed modes: %s", error)
    options = result.get("configOptions")
    if isinstance(options, list):
        if v2:
            options = v1_config_options(options)
        thread.set_config_options(options)
    if not keep_missing or "models" in result:
        thread.set_models(parse_models(result.get("models")))


async def authenticate(session: OpeningSession, error: str | None) -> AuthMethodInfo | None:
    """Ask the user how to log in until a method works (returned) or they give up (None)."""
    session.set_state(SessionState.AUTHENTICATING)
    methods = list(session.auth_methods)
    preferred = next((m for m in methods if m.id == session.preferred_auth), None)
    login = "auth/login" if session.speaks_v2 else "authenticate"
    outcome = await session.connector.log_in(
        session.ui, methods, error, request=login, preferred=preferred, agent=session.agent_name
    )
    if isinstance(outcome, GaveUp):
        session.fail("authentication is required and was not completed")
        await session.teardown()
        return None
    if isinstance(outcome, Lost):
        await session.failed_request("authenticate", outcome.error)
        return None
    if outcome.reconnect:
        await session.teardown()
        if not await session.connect():
            return None
        session.set_state(SessionState.AUTHENTICATING)
    return outcome.method


async def close_current_session(session: OpeningSession) -> None:
    """`session/close` when the agent supports it (best effort, bounded)."""
    if session.agent_capabilities.session_capabilities.close is None:
        return
    connection = session.connection
    if connection is None or session.session_id is None or session.state is SessionState.CLOSED:
        return
    with contextlib.suppress(RpcError, ConnectionClosed, TimeoutError):
        await asyncio.wait_for(
            connection.request("session/close", {"sessionId": session.session_id}), 2.0
        )
