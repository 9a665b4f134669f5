"""Opening and closing an ACP session on a connected agent: `session/new`, `session/load`,
`session/resume` (v2: `session/resume` with `replayFrom` for a load), the login loop an
`AUTH_REQUIRED` answer starts, what the answer sets up (modes, config options, models),
`session/close`, and another session opened (or a fork adopted) in the same tab. Functions over an
`OpeningSession` (what they need of the session); the session decides what a failure means."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from acp_tui.client.auth_hints import env_hint
from acp_tui.client.connector import Connector, GaveUp, Lost
from acp_tui.client.events import Notice, SessionState
from acp_tui.client.hello import AuthMethodInfo
from acp_tui.client.mcp_offer import McpSession, servers_for
from acp_tui.client.prompt_turn import PromptTurns
from acp_tui.client.session.core import Caller, StateMachine
from acp_tui.client.system_prompt import system_prompt_param
from acp_tui.client.ui_port import ClientUi
from acp_tui.config import config_path
from acp_tui.protocol import methods
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.errors import AUTH_REQUIRED, RpcError
from acp_tui.protocol.models import parse_session_update
from acp_tui.signal import Signal
from acp_tui.thread.config_options import parse_models
from acp_tui.thread.thread import Thread

if TYPE_CHECKING:
    from acp_tui.protocol.models import ForkSessionResponse, SessionSetup


class OpeningSession(McpSession, StateMachine, Caller, Protocol):
    """What opening a session needs of it: the live connection, the id it opens or gets, the
    thread the answer goes to, the login loop's connector and UI, and its lifecycle steps."""

    phase: str
    session_id: str | None

    @property
    def connection(self) -> Connection | None:
        """The connection to the agent, once started."""

    @property
    def connector(self) -> Connector:
        """What starts the agent process."""

    @property
    def ui(self) -> ClientUi:
        """The user interface that answers questions (authentication, ...)."""

    @property
    def cwd(self) -> Path:
        """The session directory."""

    @property
    def thread(self) -> Thread:
        """The thread a loaded session's history is replayed into."""

    @property
    def preferred_auth(self) -> str | None:
        """The authentication method the user chose before, if any."""

    @property
    def preset_name(self) -> str | None:
        """The agent's name in `[agents.NAME]` (the preset it was started from), if any."""

    @property
    def system_prompt(self) -> dict[str, str] | None:
        """The system prompt to send (`{mode, text}`), if the user set one."""

    @property
    def notices(self) -> Signal[Notice]:
        """What the user is told (a system prompt not sent)."""

    async def connect(self) -> bool:
        """Spawn and initialize the agent again (a login that needs a restart)."""
        ...

    async def teardown(self) -> None:
        """Stop the agent, keeping the session."""
        ...

    async def failed_request(self, what: str, error: Exception) -> None:
        """A request failed: crashed or refused, the session says which."""
        ...


class ReopeningSession(OpeningSession, Protocol):
    """What opening another session in the same tab needs besides opening one: the turns whose
    carried blocks it drops, and where it says why it would not."""

    error: str | None

    @property
    def turns(self) -> PromptTurns:
        """The v1 prompt turns (what the next prompt carries)."""


log = logging.getLogger(__name__)


async def open_new(session: ReopeningSession) -> bool:
    """`session/new` on the connected agent: what the last prompt carried is dropped."""
    session.turns.carried = []
    return await open_session(session, load=False)


async def open_existing(session: ReopeningSession, session_id: str, *, resume: bool) -> bool:
    """Open another session in a fresh thread: `session/resume` (no replay) or `session/load`
    (the agent replays the conversation into the new thread). A subagent session is never
    opened on its own.

    Args:
        session: the tab's session, its thread reset when it holds one already.
        session_id: the session to open (from `session/list` or the history).
        resume: `session/resume` rather than `session/load`.
    """
    if session_id in session.thread.sessions.children:
        session.error = "that is a subagent session of this one: it is never opened on its own"
        return False
    if session.session_id is not None or session.thread.entries:
        session.thread.reset()  # (the UI shows the reset thread on a new screen)
    session.turns.carried = []
    session.session_id = session_id
    return await open_session(session, load=True, resume=resume)


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
    servers = servers_for(session)  # what the agent's mcpCapabilities allow
    thread = session.thread
    prompt, not_sent = system_prompt_param(session.system_prompt, session.agent_capabilities)
    if not_sent is not None:
        session.notices.emit(Notice(not_sent, "warning"))
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
                        result = await api.load_session(
                            session_id, cwd, servers, system_prompt=prompt
                        )
                    else:  # v2: load = resume + replay
                        replay = v2 and not resume and not thread.entries
                        result = await api.resume_session(
                            session_id, cwd, servers, replay=replay, system_prompt=prompt
                        )
                finally:
                    thread.skip_replayed = False
            else:
                new = await api.new_session(str(session.cwd), servers, system_prompt=prompt)
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
    apply_session_setup(session.thread, result)
    session.phase = "idle"  # a crash from now on is not "during session/new"
    session.set_state(SessionState.READY)
    return True


def adopt_fork(session: OpeningSession, session_id: str, result: ForkSessionResponse) -> None:
    """Go on in the session `session/fork` made; the thread stays: it is the fork's history.
    What the answer leaves out stays as it was.

    Args:
        session: the tab's session.
        session_id: the fork's id.
        result: the agent's answer to `session/fork` (modes, config options, models).
    """
    session.session_id = session_id
    apply_session_setup(session.thread, result, keep_missing=True)


def apply_session_setup(
    thread: Thread, result: SessionSetup, *, keep_missing: bool = False
) -> None:
    """What a session open answered besides its id: modes, config options, models, and (v2)
    the slash commands (`availableCommands`; v1 sends them as an update).

    Args:
        thread: the session's thread, which takes them.
        result: the agent's answer to `session/new`, `load`, `resume` or `fork`, as its model
            (v2's config options already read as v1's by `AgentApi`).
        keep_missing: models the answer leaves out stay as they were.
    """
    if result.modes is not None:
        thread.set_modes(result.modes)
    if result.config_options is not None:
        thread.set_config_options(result.config_options)
    extra = result.model_extra or {}
    if not keep_missing or "models" in extra:  # unstable: not in the models
        thread.set_models(parse_models(extra.get("models")))
    commands = extra.get("availableCommands")
    if isinstance(commands, list):  # v2 sends the first commands in the answer
        update = {"sessionUpdate": "available_commands_update", "availableCommands": commands}
        thread.apply(parse_session_update(update))


async def authenticate(session: OpeningSession, error: str | None) -> AuthMethodInfo | None:
    """Ask the user how to log in until a method works (returned) or they give up (None)."""
    session.set_state(SessionState.AUTHENTICATING)
    methods = list(session.auth_methods)
    preferred = next((m for m in methods if m.id == session.preferred_auth), None)
    config = str(config_path())
    outcome = await session.connector.log_in(
        session.ui,
        methods,
        error,
        v2=session.speaks_v2,
        preferred=preferred,
        agent=session.agent_name,
        hint=lambda method: env_hint([method], session.preset_name, config),
    )
    if isinstance(outcome, GaveUp):
        hint = env_hint(methods, session.preset_name, config)
        session.fail(
            "authentication is required and was not completed" + (f". {hint}" if hint else "")
        )
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
        await asyncio.wait_for(session.api.close_session(session.session_id), 2.0)
