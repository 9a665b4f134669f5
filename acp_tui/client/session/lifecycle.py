"""Connecting, starting, restarting and closing an `AgentSession`: the first connect's notices,
the login state asked for and v2's driver made once the agent answered; the start under way (a
restart cancels it; past its bound, a stall the user may wait on), the start watch armed, the
session opened or reopened (loaded when it can be), and closing every part in order.

A part `AgentSession` owns (`AgentSession.lifecycle`); it sees the session through
`LifecycleSession` (connecting is `connect.py`, opening a session `open.py`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from acp_tui.client.change_tracking import ChangeTracking
from acp_tui.client.events import AgentCrash, Notice, SessionState
from acp_tui.client.prompt_turn import PromptTurns
from acp_tui.client.session import connect as session_connect
from acp_tui.client.session.account import Account
from acp_tui.client.session.connect import ConnectingSession
from acp_tui.client.session.core import DrivenSession
from acp_tui.client.session.open import OpeningSession, close_current_session, open_session
from acp_tui.client.session.routes import RoutedSession, v1_routes
from acp_tui.client.session.start_notices import StartNotices
from acp_tui.client.session.traffic_tap import TrafficTap
from acp_tui.client.start_watch import StartWatch
from acp_tui.config import Settings
from acp_tui.signal import Signal
from acp_tui.tasks import Supervisor

if TYPE_CHECKING:
    from acp_tui.client.v2.session import V2Driver


class LifecycleSession(ConnectingSession, OpeningSession, RoutedSession, DrivenSession, Protocol):
    """What starting, restarting and closing need of the session besides opening, connecting
    and answering it: what its start watch follows, what is said once, its login state, turns,
    change monitor, traffic and v2 driver (made when the agent answers v2)."""

    v2: V2Driver | None

    error: str | None
    crash: AgentCrash | None
    cleanup: asyncio.Future[None] | None
    closing: bool
    announce_log: bool

    @property
    def stalled(self) -> Signal[AgentCrash | None]:
        """Told when the start passes its bound, or is waited on again (None)."""

    @property
    def log_path(self) -> Path | None:
        """Where the session's frames are logged (`--log`), if anywhere."""

    @property
    def tasks(self) -> Supervisor:
        """The supervisor of the session's background tasks (closed last but one)."""

    @property
    def settings(self) -> Settings:
        """The user's settings (`start_timeout`: the bound on a start)."""

    @property
    def state_changed(self) -> Signal[SessionState]:
        """Told each new state (the start watch follows it)."""

    def stderr_tail(self, lines: int) -> list[str]:
        """The last lines the agent wrote to stderr (a stall quotes them)."""
        ...

    @property
    def turns(self) -> PromptTurns:
        """The v1 prompt turns."""

    @property
    def changes(self) -> ChangeTracking:
        """The change monitor (started once a session is open)."""

    @property
    def traffic_tap(self) -> TrafficTap:
        """Where the frames go (its log closed last)."""

    @property
    def start_notices(self) -> StartNotices:
        """What is said once, at the first connect."""

    @property
    def account(self) -> Account:
        """The login state, asked for once connected."""


class SessionLifecycle:
    """Start, restart and close one session (see the module docstring)."""

    def __init__(self, session: LifecycleSession) -> None:
        self._session = session
        self._opening: asyncio.Task[Any] | None = None  # the start/restart in progress
        self.start_watch = StartWatch(
            session.tasks,
            seconds=lambda: session.settings.start_timeout,
            state=lambda: session.state,
            state_changed=session.state_changed,
            stalled=session.stalled,
            stderr_tail=session.stderr_tail,
            step=lambda: session.phase,
        )
        """The bound on a start (a stall once it passes), armed at each start and restart."""

    async def start(self) -> bool:
        """Spawn the agent, initialize, open a session. False (with `error`/`crash`) on failure.

        The change monitor starts once the session is open, not while the app starts (its
        baseline walks the directory): a prompt waits for its baseline (`wait_ready`)."""
        session = self._session
        self._opening = asyncio.current_task()
        self.start_watch.arm()
        if session.announce_log and session.log_path is not None:
            text = f"This tab's ACP traffic is logged to {session.log_path}"
            session.notices.emit(Notice(text))
        if not await self.connect():
            return False
        self.start_watch.opening()
        opened = await open_session(session, load=False)
        session.changes.start_soon()
        return opened

    async def restart(self) -> bool:
        """Start the agent again and continue: `session/load` when it can, else a new session."""
        session = self._session
        await self._stop_opening()
        self._opening = asyncio.current_task()
        await session.teardown()
        session.crash = None
        session.error = None
        self.start_watch.arm()
        if not await self.connect():
            return False
        self.start_watch.opening()
        load = session.session_id is not None and self.can_load_session
        ok = await open_session(session, load=load)
        if ok:
            how = "session reloaded" if load else "new session started"
            session.notices.emit(Notice(f"Agent restarted; {how}."))
            if session.v2 is not None:
                session.v2.send_waiting()
            else:
                session.turns.send_next()
        return ok

    async def close(self) -> None:
        """Stop everything of the session; closing again does nothing."""
        session = self._session
        if session.state is SessionState.CLOSED:
            return
        session.closing = session.connector.closing = True
        # What closing does to the conversation (every open permission question cancelled,
        # the turn ended) is nobody's news: the UI that showed it is going. Each change told
        # to the screens cost a redraw of a card: hundreds of queued questions made quitting
        # take seconds.
        session.thread.changed.clear()
        await session.connector.discard_prestarted()  # closed before it was ever started
        session.turns.stop()
        await close_current_session(session)
        if session.v2 is not None:
            session.v2.close()
        await session.teardown()
        cleanup = session.cleanup
        if cleanup is not None:  # the crash clean-up kills what the agent left: let it finish
            await asyncio.wait({cleanup})
        await session.changes.stop()
        await session.tasks.close()
        session.traffic_tap.close()  # what is buffered written, the file closed
        session.set_state(SessionState.CLOSED)

    async def connect(self) -> bool:
        """Spawn and initialize the agent without opening a session (the first time, what is
        said once told first); the login state asked for, v2's driver and routes when the agent
        answered 2. False (with `error` or `crash` set) on failure."""
        session = self._session
        session.start_notices.tell()
        connection = await session_connect.connect(session)
        if connection is None:
            return False
        session.account.ask_status()
        if session.protocol_version >= 2:  # v2 routes replace the v1 ones installed at spawn
            if session.v2 is None:
                from acp_tui.client.v2.session import V2Driver  # (v2 only: not at launch)

                session.v2 = V2Driver(session)
            session.v2.install_routes(connection, v1_routes(session).methods)
        return True

    @property
    def can_load_session(self) -> bool:
        """Whether a restart can continue the session (v1 session/load, v2 session/resume)."""
        session = self._session
        return session.agent_capabilities.load_session or session.v2 is not None

    @property
    def stall(self) -> AgentCrash | None:
        """Set while the agent has not answered `initialize` for too long, or has opened no
        session within `start_timeout`."""
        session = self._session
        return session.connector.stall or self.start_watch.stall

    def keep_waiting(self) -> bool:
        """The user waits on for a start past its bound: the bound starts again (an unanswered
        `initialize`: the warning goes, the answer is still awaited)."""
        session = self._session
        if session.connector.stall is not None:
            session.connector.stall = None
            session.stalled.emit(None)
            return True
        return self.start_watch.keep_waiting()

    async def _stop_opening(self) -> None:
        """Cancel a start still waiting for the agent (a restart while initialize hangs)."""
        opening, self._opening = self._opening, None
        if opening is not None and opening is not asyncio.current_task() and not opening.done():
            opening.cancel()
            await asyncio.wait({opening})
