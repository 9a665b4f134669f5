"""The agent's process and connection: spawn it (or adopt the prestarted one), `initialize` with a
stall warning, log in, watch for it going away, tear it down. The session decides what a failure
means.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from acp_tui.client.events import AgentCrash
from acp_tui.client.handshake import AgentHello, AuthMethodInfo, read_initialize_result
from acp_tui.client.prestart import Prestarted, spawn_confined
from acp_tui.client.ui_port import ClientUi
from acp_tui.config import Settings
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.protocol.agent_api import AgentApi
from acp_tui.protocol.announce import initialize_params
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.process import AgentProcess, AgentSpawnError
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.sandbox.policy import SandboxPolicy
from acp_tui.signal import Signal
from acp_tui.tasks import Supervisor

EXIT_GRACE = 1.0  # after the agent exits or closes its output, how long the other may take


class Connector:
    """One agent process at a time and its JSON-RPC connection.

    `install(connection)` registers the session's handlers on each new connection, `tap` sees
    every frame, `on_lost(process)` is called when the agent exits or closes its output while
    it is still wanted (not after `teardown`, not for a replaced process).
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        *,
        env_extra: dict[str, str],
        settings: Settings,
        guard: ProcessGuard,
        tasks: Supervisor,
        install: Callable[[Connection], None],
        tap: Callable[[TrafficEvent], None],
        on_oversized_frame: Callable[[int, int], None],
        on_lost: Callable[[AgentProcess], None],
        prestarted: Prestarted | None = None,
        sandbox: SandboxPolicy | None = None,
        sandbox_error: str | None = None,
    ) -> None:
        self.argv = list(argv)
        self.sandbox = sandbox
        """The sandbox every agent process is confined in."""
        self.sandbox_error = sandbox_error
        """Why the sandbox asked for cannot be set up: no agent is started."""
        self.cwd = cwd
        self.env_extra = env_extra
        self.settings = settings
        self.guard = guard
        self.tasks = tasks
        self.process: AgentProcess | None = None
        self.connection: Connection | None = None
        self.stall: AgentCrash | None = None
        """Set while `initialize` is unanswered past `settings.initialize_warning_seconds`."""
        self.stalled: Signal[AgentCrash | None] = Signal("agent stalled")
        """The stall set, or cleared (None)."""
        self.closing = False
        self._install = install
        self._tap = tap
        self._on_oversized_frame = on_oversized_frame
        self._on_lost = on_lost
        self._prestarted = prestarted
        self._watch: asyncio.Task[None] | None = None
        self._early_initialize: asyncio.Future[Any] | None = None

    async def discard_prestarted(self) -> None:
        """Stop the agent process started before the UI, if it was not used."""
        early, self._prestarted = self._prestarted, None
        if early is not None:
            await early.discard()

    async def connect(self) -> Connection:
        """Adopt the prestarted agent if it is the one wanted, else spawn one (raises
        `AgentSpawnError`); the connection is started and watched."""
        early, self._prestarted = self._prestarted, None
        offered = self.settings.protocol_version
        if self.sandbox_error is not None:
            if early is not None:
                await early.discard()
            raise AgentSpawnError(self.sandbox_error)
        if early is not None and (
            not early.matches(self.argv, str(self.cwd), self.env_extra)
            or early.offered != offered
            or early.sandbox != self.sandbox
        ):
            await early.discard()
            early = None
        if early is not None:
            process, connection = early.process, early.connection
            # its tasks were started before the app: handlers run in our context from now on
            connection.run_handlers_in(contextvars.copy_context())
            connection.max_frame_bytes = max(1, self.settings.max_frame_bytes)
            connection.on_oversized_frame = self._on_oversized_frame
            self._install(connection)
            early.relay.attach(self._tap)
            self._early_initialize = early.initialize
        else:
            process = await spawn_confined(
                self.argv,
                self.sandbox,
                cwd=str(self.cwd),
                env_extra={**self.env_extra, **self.guard.child_env()},
            )
            connection = Connection(
                process.reader,
                process.writer,
                max_frame_bytes=self.settings.max_frame_bytes,
                on_oversized_frame=self._on_oversized_frame,
            )
            self._install(connection)
            connection.add_tap(self._tap)
            connection.start()
            self._early_initialize = None
        self.process, self.connection = process, connection
        self._watch = self.tasks.spawn("watch", self._watch_process(process, connection))
        return connection

    async def initialize(self) -> AgentHello:
        """`initialize` (already sent by a prestarted agent); past the warning time the stall
        is reported and the wait goes on. Raises `RpcError`, `ConnectionClosed`,
        `HandshakeError`."""
        connection, process = self.connection, self.process
        assert connection is not None and process is not None
        offered = self.settings.protocol_version
        request = self._early_initialize
        self._early_initialize = None
        if request is None:
            asked = AgentApi(connection).initialize(initialize_params(offered))
            request = self.tasks.spawn("initialize", asked, awaited=True)
        try:
            seconds = self.settings.initialize_warning_seconds
            done, _ = await asyncio.wait({request}, timeout=seconds)
            if not done:
                self.stall = AgentCrash(
                    description=f"has not answered initialize after {seconds:g} s",
                    stderr_tail=process.stderr_tail(12),
                    during="initialize",
                )
                self.stalled.emit(self.stall)
            result = await request
        finally:
            request.cancel()  # only matters when we were cancelled (a restart)
            if self.stall is not None:
                self.stall = None
                self.stalled.emit(None)
        return read_initialize_result(result, offered)

    def stop_watching(self) -> None:
        """The agent is going away on purpose: its end is no loss."""
        watch, self._watch = self._watch, None
        if watch is not None:
            watch.cancel()

    async def teardown(self) -> None:
        """Stop watching, close the connection, shut the process down (its tree with it)."""
        self.stop_watching()
        connection, self.connection = self.connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                await connection.close()
        process, self.process = self.process, None
        if process is not None:
            with contextlib.suppress(Exception):
                await process.shutdown()

    async def _watch_process(self, process: AgentProcess, connection: Connection) -> None:
        """Report the agent lost when it exits, or closes its output while still running
        (nothing it says can reach us any more: as good as dead, and restarted like it)."""
        exited = self.tasks.spawn("agent exit", process.wait(), awaited=True)
        closed = self.tasks.spawn("connection closed", connection.wait_closed(), awaited=True)
        try:
            await asyncio.wait({exited, closed}, return_when=asyncio.FIRST_COMPLETED)
            # The reader drains what the agent wrote before it died; an agent that closed its
            # output may be on its way out: give either a moment to finish.
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(asyncio.wait({exited, closed}), EXIT_GRACE)
        finally:
            exited.cancel()
            closed.cancel()
        if self.closing or process is not self.process:
            return
        self._on_lost(process)

    async def log_in(
        self,
        ui: ClientUi,
        methods: list[AuthMethodInfo],
        error: str | None,
        *,
        v2: bool = False,
        preferred: AuthMethodInfo | None = None,
        agent: str = "the agent",
        hint: Callable[[AuthMethodInfo], str | None] = lambda _method: None,
        by_user: bool = False,
    ) -> LoggedIn | GaveUp | Lost:
        """Ask the user how to log in until a method works or they give up. An agent method is
        `authenticate` on this connection (`v2`: `auth/login`); a terminal method runs
        the agent's login command, after which (ACP v1) the caller reconnects
        (`LoggedIn.reconnect`). A `preferred` method (a preset's) is tried first, once,
        without asking. `agent` names the agent in the question; `hint(method)` is added to
        the error of a method that failed (which variable to set, and where); `by_user`: the
        user asked to log in (the agent did not demand it), which the question says."""
        method: AuthMethodInfo | None
        while True:
            if preferred is not None:
                method, preferred = preferred, None
            else:
                method = await ui.choose_auth_method(agent, methods, error, by_user=by_user)
            if method is None:
                return GaveUp()
            if method.type == "terminal":
                argv = [self.argv[0], *method.args]
                code = await ui.run_login_terminal(
                    argv, dict(method.env), self.cwd, by_user=by_user
                )
                if code != 0:
                    error = f"{method.name}: the login command ended with code {code}"
                    continue
                return LoggedIn(method, reconnect=True)
            connection = self.connection
            assert connection is not None
            try:
                await AgentApi(connection, v2=v2).authenticate(method.id)
            except RpcError as failure:
                error = f"{method.name}: {failure.describe()}"
                told = hint(method)
                if told:
                    error += f"\n{told}"
                continue
            except ConnectionClosed as failure:
                return Lost(failure)
            return LoggedIn(method, reconnect=False)


@dataclass(frozen=True)
class LoggedIn:
    """A login method worked; after a terminal login the agent must be started again."""

    method: AuthMethodInfo
    reconnect: bool


@dataclass(frozen=True)
class GaveUp:
    """The user closed the login question."""


@dataclass(frozen=True)
class Lost:
    """The agent went away while authenticating."""

    error: ConnectionClosed
