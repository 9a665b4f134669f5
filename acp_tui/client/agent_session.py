"""One agent process and one ACP session: connect, authenticate, prompt, cancel, restart.

This is the client core the UI drives. It owns the agent process, the JSON-RPC connection,
the session `Thread` and the host services that answer the agent's requests. It never imports
Textual: the UI observes its signals and the thread, and answers questions through `ClientUi`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from acp_tui.client import agent_quirks
from acp_tui.client.change_tracking import ChangeTracking
from acp_tui.client.connector import Connector, GaveUp, Lost
from acp_tui.client.events import AgentCrash, Notice, QueuedPrompt, SessionState
from acp_tui.client.handshake import AuthMethodInfo, HandshakeError
from acp_tui.client.mcp_offer import servers_for
from acp_tui.client.permission_state import show_permissions_in
from acp_tui.client.prestart import Prestarted
from acp_tui.client.prompt_queue import PromptQueue
from acp_tui.client.turn_changes import TurnChanges
from acp_tui.client.ui_port import ClientUi
from acp_tui.client.v2_session import V2Driver, v2_mcp_servers
from acp_tui.client.write_review import WriteReport, WriteReviewGate
from acp_tui.composer.elicitation import ElicitationBroker, PendingElicitation
from acp_tui.composer.prompt_content import PromptCapabilities, build_prompt
from acp_tui.config import Settings
from acp_tui.host.change_log import ChangeLog
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.host.permission_rules import RulesStore
from acp_tui.host.permission_subject import named_paths
from acp_tui.host.permissions import PendingPermission, PermissionBroker
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.host.terminals import Terminal, TerminalHost
from acp_tui.mcp_servers import normalize_servers
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.errors import AUTH_REQUIRED, RpcError
from acp_tui.protocol.models import (
    AgentCapabilities,
    CreateTerminalRequest,
    Implementation,
    KillTerminalRequest,
    ReadTextFileRequest,
    ReleaseTerminalRequest,
    RequestPermissionRequest,
    TerminalOutputRequest,
    WaitForTerminalExitRequest,
    WriteTextFileRequest,
)
from acp_tui.protocol.models.v2 import v1_config_options
from acp_tui.protocol.process import AgentProcess, AgentSpawnError
from acp_tui.protocol.router import Router
from acp_tui.protocol.traffic import JsonlTrafficLog, TrafficEvent
from acp_tui.protocol.traffic_store import TrafficStore
from acp_tui.safe_text import safe_text
from acp_tui.session.config_options import parse_models
from acp_tui.session.thread import Thread
from acp_tui.signal import Signal
from acp_tui.tasks import Supervisor, TaskFailure

log = logging.getLogger(__name__)

# Updates an agent replays on session/load that we already show after a restart.
_REPLAYED_KINDS = frozenset(
    {
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
    }
)


class AgentSession:
    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        ui: ClientUi,
        *,
        log_path: Path | None = None,
        mcp_servers: Sequence[dict[str, Any]] = (),
        env_extra: dict[str, str] | None = None,
        settings: Settings | None = None,
        rules: RulesStore | None = None,
        guard: ProcessGuard | None = None,
        prestarted: Prestarted | None = None,
    ) -> None:
        settings = settings if settings is not None else Settings()
        self.tasks = Supervisor("session")
        """Every background task of the session (turns, the process watch, clean-ups)."""
        self.guard = guard if guard is not None else ProcessGuard()
        self.settings = settings
        self.argv = list(argv)
        self.cwd = cwd.resolve()
        self.ui = ui
        self.mcp_servers = list(mcp_servers) or normalize_servers(settings.mcp_servers)[0]
        self.mcp_sent: list[dict[str, Any]] = []  # what the last session open passed
        self.preferred_auth: str | None = None  # a preset's auth method, tried without asking
        self.env_extra = {**settings.agent_env, **(env_extra or {})}
        self.thread = Thread()
        self.permissions = PermissionBroker(
            rules,
            policy=settings.permission_policy,
            tool_call_lookup=lambda tool_call_id: self.thread.tool_calls.get(tool_call_id),
            root=self.cwd,
        )
        show_permissions_in(self.thread, self.permissions)
        self.write_gate = WriteReviewGate(
            ui.review_write,
            hold_writes=settings.hold_writes,
            cwd=self.cwd,
            known_tool_call_paths=lambda tool_call_id: named_paths(
                self.thread.tool_calls.get(tool_call_id)
            ),
        )
        self.fs = FileSystemHost(
            self.cwd,
            ui.asker,
            extra_roots=settings.extra_allowed_roots,
            max_read_bytes=settings.max_read_bytes,
            write_gate=self.write_gate,
        )
        self.write_gate.track(self.permissions)
        self.write_gate.attach(self.fs.changes)
        self.terminals = TerminalHost(
            self.cwd, cwd_check=self._check_terminal_cwd, guard=self.guard, tasks=self.tasks
        )
        self.changes = ChangeTracking(
            self.thread, self.cwd, self.fs.changes, watch=settings.watch_changes, tasks=self.tasks
        )
        self.elicitations = ElicitationBroker()
        self.prompts = PromptQueue()
        self.state = SessionState.STARTING
        self.session_id: str | None = None
        self.agent_info: Implementation | None = None
        self.agent_capabilities = AgentCapabilities()
        self.auth_methods: list[AuthMethodInfo] = []
        self.crash: AgentCrash | None = None
        self.error: str | None = None
        self.state_changed: Signal[SessionState] = Signal("session state")
        self.queue_changed: Signal[list[QueuedPrompt]] = self.prompts.changed
        self.notices: Signal[Notice] = Signal("session notice")
        self.traffic: Signal[TrafficEvent] = Signal("traffic")
        self.traffic_store = TrafficStore()
        """Every frame of every connection, paired and checked (the inspector, `check`)."""
        self._log = JsonlTrafficLog(log_path) if log_path else None
        self.connector = Connector(
            self.argv,
            self.cwd,
            env_extra=self.env_extra,
            settings=settings,
            guard=self.guard,
            tasks=self.tasks,
            install=self._register_handlers,
            tap=self._tap,
            on_oversized_frame=self._on_oversized_frame,
            on_lost=lambda process: self._crashed(process, self._phase),
            prestarted=prestarted,
        )
        self.stalled = self.connector.stalled
        """The stall set (initialize unanswered for too long), or cleared (None)."""
        self._phase = "start"
        self._turn_task: asyncio.Task[None] | None = None
        self._cleanup: asyncio.Future[None] | None = None
        self._opening: asyncio.Task[Any] | None = None  # the start/restart in progress
        self._replaying = False
        self._carried: list[dict[str, Any]] = []  # content the next prompt starts with
        self._closing = False
        self.protocol_version = 1
        """The ACP version the agent answered `initialize` with (2 only if offered)."""
        self.v2: V2Driver | None = None
        """The v2 prompt lifecycle, once the agent speaks v2."""
        self.tasks.failed.subscribe(self._on_task_failure)

    # ----------------------------------------------------------------- lifecycle

    @property
    def agent_name(self) -> str:
        info = self.agent_info
        name = info.title or info.name if info is not None else None
        return name if name else command_name(self.argv)

    @property
    def stall(self) -> AgentCrash | None:
        """Set while the agent has not answered initialize for too long."""
        return self.connector.stall

    @property
    def _process(self) -> AgentProcess | None:
        return self.connector.process

    @property
    def _connection(self) -> Connection | None:
        return self.connector.connection

    @property
    def queue(self) -> list[QueuedPrompt]:
        """The prompts waiting for their turn."""
        return self.prompts.items

    @property
    def turn_running(self) -> bool:
        if self.v2 is not None:
            return self.thread.turn_running
        return self._turn_task is not None and not self._turn_task.done()

    @property
    def can_load_session(self) -> bool:
        """Whether a restart can continue the session (v1 session/load, v2 session/resume)."""
        return self.agent_capabilities.load_session or self.v2 is not None

    def terminal_lookup(self, terminal_id: str) -> Any:
        """The terminal a tool call shows: an agent-owned one (v2), else one of our PTYs."""
        if self.v2 is not None:
            terminal = self.v2.reducer.terminal(terminal_id)
            if terminal is not None:
                return terminal
        return self.terminals.get(terminal_id)

    # ------------------------------------------------ what the UI reads (instead of reaching in)

    @property
    def written(self) -> Signal[WriteReport]:
        """Each write the agent made, with how it was reviewed."""
        return self.write_gate.written

    @property
    def turn_changes(self) -> TurnChanges:
        """What each turn changed on disk (summaries, reverting a turn)."""
        return self.changes.turns

    @property
    def change_log(self) -> ChangeLog:
        """Every write of the session, revertible."""
        return self.fs.changes

    @property
    def rules(self) -> RulesStore | None:
        """The project's remembered permission rules (None: nothing is remembered)."""
        return self.permissions.rules

    @property
    def permission_asked(self) -> Signal[PendingPermission]:
        """Each permission request the user must answer."""
        return self.permissions.presented

    @property
    def elicitation_asked(self) -> Signal[PendingElicitation]:
        """Each elicitation the user must answer."""
        return self.elicitations.presented

    def terminal(self, terminal_id: str) -> Terminal | None:
        """The agent's terminal with this id (released ones too), for its view."""
        return self.terminals.get(terminal_id)

    # ----------------------------------------------------------------- lifecycle (continued)

    async def start(self) -> bool:
        """Spawn the agent, initialize, open a session. False (with `error`/`crash`) on failure."""
        self.changes.start_soon()
        self._opening = asyncio.current_task()
        if not await self._connect():
            return False
        return await self._open_session(load=False)

    async def restart(self) -> bool:
        """Start the agent again and continue: `session/load` when it can, else a new session."""
        await self._stop_opening()
        self._opening = asyncio.current_task()
        await self._teardown()
        self.crash = None
        self.error = None
        if not await self._connect():
            return False
        load = self.session_id is not None and self.can_load_session
        ok = await self._open_session(load=load)
        if ok:
            how = "session reloaded" if load else "new session started"
            self.notices.emit(Notice(f"Agent restarted; {how}."))
            if self.v2 is not None:
                self.v2.send_waiting()
            else:
                self._maybe_send_next()
        return ok

    async def close(self) -> None:
        """Stop everything of this session; closing again does nothing."""
        if self.state is SessionState.CLOSED:
            return
        self._closing = self.connector.closing = True
        await self.connector.discard_prestarted()  # closed before it was ever started
        if self._turn_task is not None:
            self._turn_task.cancel()
        await self.close_current_session()
        if self.v2 is not None:
            self.v2.close()
        await self._teardown()
        cleanup = self._cleanup
        if cleanup is not None:  # the crash clean-up kills what the agent left: let it finish
            await asyncio.wait({cleanup})
        await self.changes.stop()
        await self.tasks.close()
        if self._log is not None:
            self._log.flush()  # it is buffered
        self._set_state(SessionState.CLOSED)

    async def _stop_opening(self) -> None:
        """Cancel a start still waiting for the agent (a restart while initialize hangs)."""
        opening, self._opening = self._opening, None
        if opening is not None and opening is not asyncio.current_task() and not opening.done():
            opening.cancel()
            await asyncio.wait({opening})

    async def close_current_session(self) -> None:
        """`session/close` when the agent supports it (best effort, bounded)."""
        if self.agent_capabilities.session_capabilities.close is None:
            return
        if self._connection is None or self.session_id is None or self.state is SessionState.CLOSED:
            return
        with contextlib.suppress(RpcError, ConnectionClosed, TimeoutError):
            await asyncio.wait_for(
                self._connection.request("session/close", {"sessionId": self.session_id}), 2.0
            )

    async def _teardown(self) -> None:
        self.permissions.cancel_all()
        self.elicitations.cancel_all()
        self.connector.stop_watching()
        with contextlib.suppress(Exception):
            await self.terminals.close_all()
        had_connection = self.connector.connection is not None
        await self.connector.teardown()
        if had_connection:
            self.traffic_store.connection_closed()

    async def _connect(self) -> bool:
        self._set_state(SessionState.STARTING)
        self._phase = "start"
        try:
            connection = await self.connector.connect()
        except AgentSpawnError as error:
            self._fail(str(error))
            return False
        self._phase = "initialize"
        try:
            hello = await self.connector.initialize()
        except (RpcError, ConnectionClosed) as error:
            await self._failed_request("initialize", error)
            return False
        except HandshakeError as error:
            self._fail(str(error))
            await self._teardown()
            return False
        self.agent_info = hello.info
        self.fs.missing_reads_empty = agent_quirks.missing_reads_empty(hello.info)
        self.agent_capabilities = hello.capabilities
        self.auth_methods = hello.auth_methods
        self.protocol_version = hello.protocol_version
        if hello.protocol_version >= 2:
            if self.v2 is None:
                self.v2 = V2Driver(self)
            self.v2.install_routes(connection, self._routes_v1().methods)
        return True

    async def open_new(self) -> bool:
        """`session/new` on the connected agent (after `connect`)."""
        self._carried = []
        return await self._open_session(load=False)

    async def open_existing(self, session_id: str, *, resume: bool) -> bool:
        """Open another session in a fresh thread: `session/resume` (no replay) or
        `session/load` (the agent replays the conversation into the new thread)."""
        if self.session_id is not None or self.thread.entries:
            self.thread.reset()  # (the UI shows the reset thread on a new screen)
        self._carried = []
        self.session_id = session_id
        return await self._open_session(load=True, resume=resume)

    async def connect(self) -> bool:
        """Spawn and initialize the agent without opening a session."""
        return await self._connect()

    async def _open_session(self, *, load: bool, resume: bool = False) -> bool:
        connection = self._connection
        assert connection is not None
        tried: AuthMethodInfo | None = None
        v2 = self.v2 is not None
        offered = servers_for(self)  # what the agent's mcpCapabilities allow
        servers = v2_mcp_servers(offered) if v2 else offered
        while True:
            self._phase = (
                ("session/resume" if resume or v2 else "session/load") if load else "session/new"
            )
            try:
                if load:
                    self._replaying = bool(self.thread.entries)
                    params: dict[str, Any] = {
                        "sessionId": self.session_id,
                        "cwd": str(self.cwd),
                        "mcpServers": servers,
                    }
                    if v2 and not resume and not self.thread.entries:
                        params["replayFrom"] = {"type": "start"}  # v2: load = resume + replay
                    try:
                        result = await connection.request(self._phase, params)
                    finally:
                        self._replaying = False
                else:
                    result = await connection.request(
                        "session/new", {"cwd": str(self.cwd), "mcpServers": servers}
                    )
            except RpcError as error:
                if error.code == AUTH_REQUIRED and self.auth_methods:
                    message = error.describe()
                    if tried is not None:  # authenticated, yet the agent still says no
                        message = f"{tried.name} did not work: {error.describe()}"
                    tried = await self._authenticate(message)
                    if tried is None:
                        return False
                    connection = self._connection
                    assert connection is not None
                    continue
                await self._failed_request(self._phase, error)
                return False
            except ConnectionClosed as error:
                await self._failed_request(self._phase, error)
                return False
            break
        if isinstance(result, dict):
            if not load:
                session_id = result.get("sessionId")
                if not isinstance(session_id, str):
                    self._fail("the agent's session/new answer has no sessionId")
                    return False
                self.session_id = session_id
            self._apply_session_setup(result)
        self._phase = "idle"  # a crash from now on is not "during session/new"
        self._set_state(SessionState.READY)
        return True

    def adopt_fork(self, session_id: str, result: dict[str, Any]) -> None:
        """Go on in the session `session/fork` made (its answer is `result`); the thread stays:
        it is the fork's history. What the answer leaves out stays as it was."""
        self.session_id = session_id
        self._apply_session_setup(result, keep_missing=True)

    def _apply_session_setup(self, result: dict[str, Any], *, keep_missing: bool = False) -> None:
        from acp_tui.protocol.models import SessionModeState

        modes = result.get("modes")
        if isinstance(modes, dict):
            try:
                self.thread.set_modes(SessionModeState.model_validate(modes))
            except ValueError as error:
                log.warning("ignoring malformed modes: %s", error)
        options = result.get("configOptions")
        if isinstance(options, list):
            if self.v2 is not None:
                options = v1_config_options(options)
            self.thread.set_config_options(options)
        if not keep_missing or "models" in result:
            self.thread.set_models(parse_models(result.get("models")))

    async def _authenticate(self, error: str | None) -> AuthMethodInfo | None:
        """Ask the user how to log in until a method works (returned) or they give up (None)."""
        self._set_state(SessionState.AUTHENTICATING)
        preferred = next((m for m in self.auth_methods if m.id == self.preferred_auth), None)
        login = "auth/login" if self.v2 is not None else "authenticate"
        outcome = await self.connector.log_in(
            self.ui, self.auth_methods, error, request=login, preferred=preferred
        )
        if isinstance(outcome, GaveUp):
            self._fail("authentication is required and was not completed")
            await self._teardown()
            return None
        if isinstance(outcome, Lost):
            await self._failed_request("authenticate", outcome.error)
            return None
        if outcome.reconnect:
            await self._teardown()
            if not await self._connect():
                return None
            self._set_state(SessionState.AUTHENTICATING)
        return outcome.method

    # ----------------------------------------------------------------- handlers

    def _tap(self, event: TrafficEvent) -> None:
        self.traffic.emit(event)
        self.traffic_store.record(event)
        if self._log is not None:
            self._log(event)

    async def _check_terminal_cwd(self, path: Path) -> Path:
        """A terminal's cwd outside the session directory asks, like a file access would."""
        return await self.fs.policy.check(path, "run")

    def _routes(self) -> Router:
        """The agent's requests, each to its handler with params validated by its model.

        v2 has no fs/* or terminal/* requests: a v2 agent is asked only for permissions.
        """
        if self.v2 is not None:
            return self.v2.routes()
        return self._routes_v1()

    def _routes_v1(self) -> Router:
        router = Router()
        router.route(
            "session/request_permission", RequestPermissionRequest, self._on_request_permission
        )
        router.route("fs/read_text_file", ReadTextFileRequest, self.fs.read_text_file)
        router.route("fs/write_text_file", WriteTextFileRequest, self.fs.write_text_file)
        router.route("terminal/create", CreateTerminalRequest, self.terminals.create)
        router.route("terminal/output", TerminalOutputRequest, self.terminals.output)
        router.route(
            "terminal/wait_for_exit", WaitForTerminalExitRequest, self.terminals.wait_for_exit
        )
        router.route("terminal/kill", KillTerminalRequest, self.terminals.kill)
        router.route("terminal/release", ReleaseTerminalRequest, self.terminals.release)
        return router

    def _register_handlers(self, connection: Connection) -> None:
        connection.on_notification("session/update", self._on_session_update)
        self._routes().install(connection)
        # elicitation params are checked by the broker (acp_tui/composer/elicitation.py)
        connection.on_request("elicitation/create", self.elicitations.request)
        connection.on_notification("elicitation/complete", self.elicitations.complete)

    def _on_oversized_frame(self, length: int, cap: int) -> None:
        self.notices.emit(
            Notice(
                f"Discarded a message of {length:,} bytes from the agent "
                f"(over the {cap:,}-byte limit, setting max_frame_bytes).",
                "warning",
            )
        )

    def _on_session_update(self, params: Any) -> None:
        if self.v2 is not None:
            self.v2.reducer.apply_notification(params)
            return
        if self._replaying and isinstance(params, dict):
            update = params.get("update")
            if isinstance(update, dict) and update.get("sessionUpdate") in _REPLAYED_KINDS:
                return
        self.thread.apply_notification(params)

    async def _on_request_permission(self, params: RequestPermissionRequest) -> dict[str, Any]:
        self.thread.upsert_tool_call(params.tool_call)
        return await self.permissions.request(params)

    # ----------------------------------------------------------------- the turn

    def submit(self, text: str) -> QueuedPrompt | None:
        """Send a prompt now, or queue it while a turn runs. Returns the queued item, if queued.

        v2: sent at once either way; queued (shown waiting) until the agent places it.
        """
        if self.v2 is not None and self.v2.submit(text) is not None:
            return self.queue[-1]
        if self.v2 is not None and self.state in (SessionState.READY, SessionState.RUNNING):
            return None
        if self.turn_running or self.state is not SessionState.READY:
            return self.prompts.add(text)
        self._start_turn(text)
        return None

    def remove_queued(self, item_id: int) -> bool:
        """Drop a queued prompt; False if it cannot be taken back (v2: the agent accepted it)."""
        if self.v2 is not None and not self.v2.withdraw(item_id):
            return False
        self.prompts.remove(item_id)
        return True

    def _start_turn(self, text: str) -> None:
        self._turn_task = self.tasks.spawn("turn", self._run_turn(text))

    async def _run_turn(self, text: str) -> None:
        connection = self._connection
        if connection is None or self.session_id is None:
            return
        blocks = await self._prompt_blocks(text)
        from acp_tui.protocol.models import parse_content_block

        self.thread.add_user_prompt([parse_content_block(block) for block in blocks])
        self.thread.begin_turn()
        self._set_state(SessionState.RUNNING)
        self._phase = "prompt"
        stop_reason: str | None = None
        try:
            await self.changes.wait_ready()
            result = await connection.request(
                "session/prompt", {"sessionId": self.session_id, "prompt": blocks}
            )
            if isinstance(result, dict) and isinstance(result.get("stopReason"), str):
                stop_reason = safe_text(result["stopReason"])
        except RpcError as error:
            self.notices.emit(Notice(f"The agent failed the prompt: {error.describe()}", "error"))
            stop_reason = "error"
            self._phase = "idle"
        except ConnectionClosed:  # the crash watcher reports it "during prompt"
            stop_reason = "error"
        else:
            self._phase = "idle"
        finally:
            self._turn_task = None
            if not self._closing:
                await self.changes.before_turn_end()
            self.thread.end_turn(stop_reason)
            if self.state is SessionState.RUNNING:
                self._set_state(SessionState.READY)
        self._maybe_send_next()

    def carry_into_next_prompt(self, blocks: list[dict[str, Any]]) -> None:
        """Content the next prompt starts with (a conversation continued from a message)."""
        self._carried = blocks

    async def _prompt_blocks(self, text: str) -> list[dict[str, Any]]:
        """The text as typed, plus a block per @-mention (see composer/prompt_content.py),
        after what `carry_into_next_prompt` left for it."""
        carried, self._carried = self._carried, []
        built = await build_prompt(
            text,
            self.cwd,
            PromptCapabilities.from_agent(self.agent_capabilities),
            lambda path: self.fs.policy.check(path, "read"),
        )
        for problem in built.problems:
            self.notices.emit(Notice(problem, "warning"))
        return [*carried, *built.blocks]

    def _maybe_send_next(self) -> None:
        if self.state is SessionState.READY and not self.turn_running:
            item = self.prompts.pop()
            if item is not None:
                self._start_turn(item.text)

    async def cancel(self) -> None:
        """Esc: cancel the running turn. Updates keep arriving until the prompt returns."""
        if self.v2 is not None:
            await self.v2.cancel()
            return
        if not self.turn_running or self._connection is None or self.session_id is None:
            return
        self.thread.cancel_unfinished_tool_calls()
        self.permissions.cancel_all()
        self.elicitations.cancel_all()
        with contextlib.suppress(ConnectionClosed):
            await self._connection.notify("session/cancel", {"sessionId": self.session_id})

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """A request on the live connection; raises `RpcError`, or `ConnectionClosed` if none."""
        if self._connection is None:
            raise ConnectionClosed(f"the agent is not running; cannot send {method}")
        return await self._connection.request(method, params)

    async def set_mode(self, mode_id: str) -> str | None:
        """Ask the agent to switch modes. Returns an error message, or None on success."""
        if self.v2 is not None:
            return await self.v2.set_mode(mode_id)
        if self._connection is None or self.session_id is None:
            return "no session"
        try:
            await self._connection.request(
                "session/set_mode", {"sessionId": self.session_id, "modeId": mode_id}
            )
        except RpcError as error:
            return error.describe()
        except ConnectionClosed:
            return "the agent is not running"
        self.thread.set_current_mode(mode_id)
        return None

    # ----------------------------------------------------------------- failure

    async def _failed_request(self, what: str, error: Exception) -> None:
        if isinstance(error, ConnectionClosed):
            process = self._process
            if process is not None:
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(process.wait(), 3.0)
            # the watcher reports the crash; make sure state reflects it
            if self.state is not SessionState.CRASHED and process is not None:
                self._crashed(process, what)
            return
        assert isinstance(error, RpcError)
        self._fail(f"{what} failed: {error.describe()}")

    def _crashed(self, process: AgentProcess, during: str) -> None:
        """The agent is gone: nothing it asked can be answered, nothing it ran still runs."""
        exit_info = process.exit
        self.permissions.cancel_all()
        self.elicitations.cancel_all()
        self.crash = AgentCrash(
            description=(
                exit_info.describe() if exit_info else "closed its output but is still running"
            ),
            stderr_tail=process.stderr_tail(12),
            during=during,
            returncode=exit_info.returncode if exit_info else None,
        )
        self.thread.cancel_unfinished_tool_calls()
        self._set_state(SessionState.CRASHED)
        # nothing the agent started may outlive it: its terminals and its own children
        self._cleanup = self.tasks.spawn("end leftovers", self._end_leftovers(process))

    async def _end_leftovers(self, process: AgentProcess) -> None:
        with contextlib.suppress(Exception):
            await self.terminals.close_all()
        with contextlib.suppress(Exception):
            await process.kill_tree()

    def _fail(self, message: str) -> None:
        self.error = safe_text(message)  # shown in the banner; it may quote the agent
        self._set_state(SessionState.FAILED)

    def _on_task_failure(self, failure: TaskFailure) -> None:
        self.notices.emit(Notice(f"Internal error (logged): {failure.describe()}", "error"))

    def _set_state(self, state: SessionState) -> None:
        if state is self.state and state is not SessionState.READY:
            return
        self.state = state
        self.state_changed.emit(state)


_INTERPRETER = re.compile(
    r"(python|pypy|node|nodejs|npx|pnpx|bun|bunx|deno|tsx|ts-node|uv|uvx|pipx|sh|bash|zsh|ruby|perl)"
    r"[\d.]*(\.exe)?"
)
# Words between an interpreter and what it runs: `uv run`, `uv tool run`, `deno run`, `bun x`.
_SUBCOMMANDS = frozenset({"run", "x", "exec", "tool", "dlx"})
# Options of those interpreters that take a value (the value is not the script).
_VALUED_OPTIONS = frozenset({"--from", "--with", "-p", "--package", "--python", "--import"})


def command_name(argv: Sequence[str]) -> str:
    """A short name for an agent command: `gemini`, or the script or package an interpreter
    runs (`tsx agent.ts` → agent, `npx @scope/pkg@1` → pkg, `python -m pkg.main` → pkg.main)."""
    if not argv:
        return "agent"
    name = Path(argv[0]).name
    if not _INTERPRETER.fullmatch(name):
        return name
    args = iter(argv[1:])
    for arg in args:
        if arg == "-m":
            module = next(args, None)
            return module or name
        if arg in _VALUED_OPTIONS:
            next(args, None)
        elif arg.startswith("-") or arg in _SUBCOMMANDS:
            continue
        else:
            return _script_name(arg)
    return name


def _script_name(arg: str) -> str:
    if arg.startswith("@") or ("/" not in arg and ("@" in arg or "." not in arg)):
        package = arg.rsplit("/", 1)[-1]  # @scope/pkg
        return package.split("@", 1)[0] or arg  # pkg@1.2.3
    path = Path(arg)
    return path.stem if path.suffix else path.name


def default_cwd() -> Path:
    return Path(os.getcwd()).resolve()
