"""Opening and closing an ACP session on a connected agent: `session/new`, `session/load`,
`session/resume` (v2: `session/resume` with `replayFrom` for a load), the login loop an
`AUTH_REQUIRED` answer starts, what the answer sets up (modes, config options, models), and
`session/close`. Functions over an `AgentSession`; the session decides what a failure means."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from acp_tui.client.connector import GaveUp, Lost
from acp_tui.client.events import SessionState
from acp_tui.client.handshake import AuthMethodInfo
from acp_tui.client.mcp_offer import servers_for
from acp_tui.protocol import methods
from acp_tui.protocol.connection import ConnectionClosed
from acp_tui.protocol.errors import AUTH_REQUIRED, RpcError
from acp_tui.protocol.models import SessionSetup
from acp_tui.session.config_options import parse_models

if TYPE_CHECKING:
    from acp_tui.client.agent_session import AgentSession

log = logging.getLogger(__name__)


async def open_session(session: AgentSession, *, load: bool, resume: bool = False) -> bool:
    """Open `session.session_id` (load/resume) or a new session; logs in when the agent asks.
    False (with `error`/`crash` set) on failure."""
    connection = session.connection
    assert connection is not None
    tried: AuthMethodInfo | None = None
    v2 = session.v2 is not None
    servers = servers_for(session)  # what the agent's mcpCapabilities allow
    thread = session.thread
    while True:
        session.phase = (
            (methods.SESSION_RESUME if resume or v2 else methods.SESSION_LOAD)
            if load
            else methods.SESSION_NEW
        )
        api = session.api
        result: SessionSetup
        try:
            if load:
                assert session.session_id is not None
                session_id, cwd = session.session_id, str(session.cwd)
                # what a v1 load replays into a thread that already shows it is dropped there
                thread.skip_replayed = not v2 and bool(thread.entries)
                try:
                    if session.phase == methods.SESSION_LOAD:
                        result = await api.load_session(session_id, cwd, servers)
                    else:  # v2: load = resume + replay
                        replay = v2 and not resume and not thread.entries
                        result = await api.resume_session(session_id, cwd, servers, replay=replay)
                finally:
                    thread.skip_replayed = False
            else:
                new = await api.new_session(str(session.cwd), servers)
                session.session_id = new.session_id
                result = new
        except RpcError as error:
            if error.code == AUTH_REQUIRED and session.auth_methods:
                message = error.describe()
                if tried is not None:  # authenticated, yet the agent still says no
                    message = f"{tried.name} did not work: {error.describe()}"
                tried = await authenticate(session, message)
                if tried is None:
                    return False
                continue
            await session.failed_request(session.phase, error)
            return False
        except ConnectionClosed as error:
            await session.failed_request(session.phase, error)
            return False
        break
    apply_session_setup(session, result)
    session.phase = "idle"  # a crash from now on is not "during session/new"
    session.set_state(SessionState.READY)
    return True


def apply_session_setup(
    session: AgentSession, result: SessionSetup, *, keep_missing: bool = False
) -> None:
    """What a session open answered besides its id: modes, config options, models (with
    `keep_missing`, what the answer leaves out stays as it was)."""
    if result.modes is not None:
        session.thread.set_modes(result.modes)
    if result.config_options is not None:
        session.thread.set_config_options(result.config_options)
    extra = result.model_extra or {}
    if not keep_missing or "models" in extra:  # unstable: not in the models
        session.thread.set_models(parse_models(extra.get("models")))


async def authenticate(session: AgentSession, error: str | None) -> AuthMethodInfo | None:
    """Ask the user how to log in until a method works (returned) or they give up (None)."""
    session.set_state(SessionState.AUTHENTICATING)
    methods = session.auth_methods
    preferred = next((m for m in methods if m.id == session.preferred_auth), None)
    outcome = await session.connector.log_in(
        session.ui,
        methods,
        error,
        v2=session.v2 is not None,
        preferred=preferred,
        agent=session.agent_name,
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


async def close_current_session(session: AgentSession) -> None:
    """`session/close` when the agent supports it (best effort, bounded)."""
    if session.agent_capabilities.session_capabilities.close is None:
        return
    connection = session.connection
    if connection is None or session.session_id is None or session.state is SessionState.CLOSED:
        return
    with contextlib.suppress(RpcError, ConnectionClosed, TimeoutError):
        await asyncio.wait_for(session.api.close_session(session.session_id), 2.0)
