"""One agent process and one ACP session: connect, open, prompt, cancel, restart, close.

This is the client core the UI drives. It owns the agent process (through its `Connector`), the
session `Thread` and the host services that answer the agent's requests, and composes its parts:
opening a session `session/open.py`; connecting, starting, restarting and closing it
`session/lifecycle.py`; sending, queueing and cancelling `session/turn_controls.py` (the v1 turn
`prompt_turn.py`, v2's `v2/session.py`); the login `session/account.py`; its frames
`session/traffic_tap.py`; what is said once at the first connect `session/start_notices.py`; the
agent's settings `session/config.py`. It never imports Textual: the UI sees it as a
`SessionFacade` (signals, the thread, a few actions) and answers questions through `ClientUi`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.client import providers
from acp_tui.client.auth_status import AuthStatus
from acp_tui.client.command_name import command_name
from acp_tui.client.connector import Connector
from acp_tui.client.elicitation import PendingElicitation
from acp_tui.client.events import AgentCrash, Notice, QueuedPrompt, SessionState
from acp_tui.client.handshake import AuthMethodInfo
from acp_tui.client.host_services import host_services
from acp_tui.client.prestart import Prestarted
from acp_tui.client.prompt_queue import PromptQueue
from acp_tui.client.prompt_turn import PromptTurns
from acp_tui.client.refusal_notices import RefusalNotices
from acp_tui.client.sandbox_setup import sandbox_request, session_sandbox
from acp_tui.client.session import config as session_config
from acp_tui.client.session import connect as session_connect
from acp_tui.client.session.account import Account
from acp_tui.client.session.lifecycle import SessionLifecycle
from acp_tui.client.session.open import (
    adopt_fork,
    close_current_session,
    open_existing,
    open_new,
)
from acp_tui.client.session.routes import install_handlers
from acp_tui.client.session.start_notices import StartNotices
from acp_tui.client.session.traffic_tap import TrafficTap
from acp_tui.client.session.turn_controls import TurnControls
from acp_tui.client.turn_changes import TurnChanges
from acp_tui.client.ui_port import ClientUi
from acp_tui.client.write_review import WriteReport
from acp_tui.config import Settings
from acp_tui.host import error_log
from acp_tui.host.change_log import ChangeLog
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.permission_rules import RulesStore
from acp_tui.host.permissions import PendingPermission
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.host.reverts import Reverts
from acp_tui.host.screenshots import screenshot_path
from acp_tui.host.terminals import Terminal
from acp_tui.mcp_servers import normalize_servers
from acp_tui.protocol.agent_api import AgentApi
from acp_tui.protocol.connection import Connection
from acp_tui.protocol.models import AgentCapabilities, Implementation
from acp_tui.protocol.process import AgentProcess
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.safe_text import safe_text
from acp_tui.sandbox.policy import SandboxRequest
from acp_tui.signal import Signal
from acp_tui.tasks import Supervisor, TaskFailure
from acp_tui.thread.thread import Thread
from acp_tui.thread.v2.agent_terminals import AgentTerminal

if TYPE_CHECKING:
    from acp_tui.client.v2.session import V2Driver
    from acp_tui.protocol.models import ForkSessionResponse, ProviderInfo

__all__ = ["AgentSession", "command_name"]


class AgentSession:
    """One agent and its current session (implements `SessionFacade` for the UI, whose methods
    document their arguments).

    Args:
        argv: the agent's command (never a shell string).
        cwd: the session directory (resolved here).
        ui: the questions only a person answers (`ClientUi`).
        log_path: the `--log` file every frame is written to (an own file of acp-tui's).
        log_base: the `--log` file the app was given, when `log_path` is a later tab's beside
            it (every tab's file is an own file of every session's).
        mcp_servers: MCP servers to offer (default: the settings').
        env_extra: variables added to the agent's environment (over the settings').
        settings: config.toml's settings (default: the defaults).
        rules: the project's remembered permission rules (None: nothing is remembered).
        guard: the process guard the agent and its terminals run under.
        prestarted: an agent started before the session (adopted when it matches).
        watchers: the directory watchers every session of the app shares (default: its own).
    """

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path,
        ui: ClientUi,
        *,
        log_path: Path | None = None,
        log_base: Path | None = None,
        mcp_servers: Sequence[dict[str, Any]] = (),
        env_extra: dict[str, str] | None = None,
        settings: Settings | None = None,
        rules: RulesStore | None = None,
        guard: ProcessGuard | None = None,
        prestarted: Prestarted | None = None,
        watchers: DirectoryWatchers | None = None,
        sandbox: SandboxRequest | None = None,
        name: str | None = None,
    ) -> None:
        settings = settings if settings is not None else Settings()
        self.launch_name = name
        """What the user started (a preset's title, the demo) until the agent names itself."""
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
        self.preset_name: str | None = None  # its `[agents.NAME]`, named in login hints
        self.system_prompt: dict[str, str] | None = self.settings.system_prompt
        """The system prompt sent where the agent takes its mode (a preset's replaces it)."""
        self.env_extra = {**settings.agent_env, **(env_extra or {})}
        self.thread = Thread()
        self.watchers = watchers if watchers is not None else DirectoryWatchers()
        request = sandbox if sandbox is not None else sandbox_request(settings, None, argv)
        # The sandbox the agent and its terminals run in, else why it cannot be (not started)
        self.sandbox, self.sandbox_error = session_sandbox(
            request, self.cwd, settings, self.argv, environ={**os.environ, **self.env_extra}
        )
        services = host_services(
            self.thread, self.cwd, ui, settings, rules=rules, guard=self.guard, tasks=self.tasks,
            watchers=self.watchers, name=lambda: self.agent_name,
            notice=lambda text: self.notices.emit(Notice(text, "warning")),
            sandbox=self.sandbox,
        )  # fmt: skip
        self.permissions = services.permissions
        self.fs = services.fs
        self.terminals = services.terminals
        self.changes = services.changes
        self.elicitations = services.elicitations
        # what the UI reads of them (instead of reaching in)
        self.written: Signal[WriteReport] = self.fs.written
        """Each write the agent made, with how it was reviewed."""
        self.change_log: ChangeLog = self.fs.changes
        """Every write of the session, revertible."""
        self.reverts: Reverts = self.fs.reverts
        """The user's reverts, written through the file host (lock, walk, boundary)."""
        self.turn_changes: TurnChanges = self.changes.turns
        """What each turn changed on disk (summaries, reverting a turn)."""
        self.permission_asked: Signal[PendingPermission] = self.permissions.presented
        self.elicitation_asked: Signal[PendingElicitation] = self.elicitations.presented
        """Each permission request, each elicitation, the user must answer."""
        self.prompts = PromptQueue()
        self.turns = PromptTurns(self)
        self.state = SessionState.STARTING
        self.phase = "start"
        """What the session is doing, for a crash's "during …" (start, initialize, prompt, …)."""
        self._session_id: str | None = None
        self.agent_info: Implementation | None = None
        self.agent_capabilities = AgentCapabilities()
        self.auth_methods: list[AuthMethodInfo] = []
        self.crash: AgentCrash | None = None
        self.error: str | None = None
        self.state_changed: Signal[SessionState] = Signal("session state")
        self.queue_changed: Signal[list[QueuedPrompt]] = self.prompts.changed
        self.notices: Signal[Notice] = Signal("session notice")
        self.traffic_tap = TrafficTap(log_path, self.notices, self.fs.own_files, log_base)
        """Each frame told, recorded and written to the `--log` file (an own file of acp-tui's)."""
        self.traffic: Signal[TrafficEvent] = self.traffic_tap.traffic
        self.traffic_store = self.traffic_tap.store
        """Every frame of every connection, paired and checked (the inspector, `check`)."""
        self.log_path = log_path
        """Where this session's frames are logged (`--log`; a later tab's file beside it)."""
        self.announce_log = False
        """Say where the frames go when the session starts (a later tab: its own file)."""
        self.start_notices = StartNotices(
            self.notices, cwd=self.cwd, sandbox=self.sandbox, log_path=log_path
        )
        """The sandbox's notice and a `--log` file the agent can read, told at the first connect."""
        self.connector = Connector(
            self.argv,
            self.cwd,
            env_extra=self.env_extra,
            settings=settings,
            guard=self.guard,
            tasks=self.tasks,
            install=lambda connection: install_handlers(self, connection),
            tap=self.traffic_tap.record,
            on_oversized_frame=self.traffic_tap.on_oversized_frame,
            on_lost=lambda process: session_connect.crashed(self, process, self.phase),
            prestarted=prestarted,
            sandbox=self.sandbox,
            sandbox_error=self.sandbox_error,
        )
        self.stalled = self.connector.stalled
        """The stall set (initialize unanswered for too long, or no session past the start's
        bound), or cleared (None)."""
        self.cleanup: asyncio.Future[None] | None = None  # ending what a crashed agent left
        self.closing = False
        self.protocol_version = 1
        """The ACP version the agent answered `initialize` with (2 only if offered)."""
        self.v2: V2Driver | None = None
        """The v2 prompt lifecycle, once the agent speaks v2."""
        self.refusals = RefusalNotices(
            self.sandbox,
            lambda text: self.notices.emit(Notice(text, "warning")),
            self.stderr_tail,
            self._terminal_output,
        )
        """Notices naming a directory the sandbox refused the agent (once each)."""
        self.thread.subscribe(self.refusals.on_change)
        self.tasks.failed.subscribe(self._on_task_failure)
        self.lifecycle = SessionLifecycle(self)
        """Starting (its bound watched), restarting and closing the session."""
        self.controls = TurnControls(self)
        """The work under way as the user steers it (send, queue, cancel)."""
        self.account = Account(self)
        """The agent's login state; logging in again, logging out."""

    # ----------------------------------------------------------------- lifecycle

    @property
    def session_id(self) -> str | None:
        """The session open in this tab (None before one is)."""
        return self._session_id

    @session_id.setter
    def session_id(self, value: str | None) -> None:
        self._session_id = value
        self.thread.sessions.root_id = value  # no subagent may name it as its child

    @property
    def agent_name(self) -> str:
        """The agent's title or name from `initialize`, else the one it was launched by (a
        preset's, the demo's), else the command's name."""
        info = self.agent_info
        name = info.title or info.name if info is not None else None
        return name or self.launch_name or command_name(self.argv)

    @property
    def stall(self) -> AgentCrash | None:
        """Set while the start has passed its bound (`SessionLifecycle.stall`)."""
        return self.lifecycle.stall

    @property
    def starting_since(self) -> float | None:
        """When the start (or restart) under way began (`time.monotonic`); None once it ended."""
        return self.lifecycle.start_watch.started_at

    def keep_waiting(self) -> bool:
        """The user waits on for a start past its bound: the bound starts again."""
        return self.lifecycle.keep_waiting()

    def stderr_tail(self, lines: int) -> list[str]:
        """The last lines the agent wrote to stderr (made safe), none without a process."""
        process = self.connector.process
        return process.stderr_tail(lines) if process is not None else []

    def _terminal_output(self, terminal_id: str) -> str:
        terminal = self.terminals.get(terminal_id)
        return terminal.output_text()[0] if terminal is not None else ""

    @property
    def _process(self) -> AgentProcess | None:
        return self.connector.process

    @property
    def connection(self) -> Connection | None:
        """The live connection to the agent, if any."""
        return self.connector.connection

    @property
    def queue(self) -> list[QueuedPrompt]:
        """The prompts waiting for their turn."""
        return self.prompts.items

    @property
    def turn_running(self) -> bool:
        """Whether a prompt turn is running (v1: the turn task; v2: the thread's state)."""
        return self.controls.turn_running

    @property
    def speaks_v2(self) -> bool:
        """The agent answered `initialize` with ACP v2."""
        return self.v2 is not None

    def terminal_lookup(self, terminal_id: str) -> Terminal | AgentTerminal | None:
        """The terminal a tool call shows: an agent-owned one (v2), else one of our PTYs."""
        if self.v2 is not None:
            terminal = self.v2.reducer.terminal(terminal_id)
            if terminal is not None:
                return terminal
        return self.terminals.get(terminal_id)

    # ------------------------------------------------ what the UI reads (instead of reaching in)

    @property
    def rules(self) -> RulesStore | None:
        """The project's remembered permission rules (None: nothing is remembered)."""
        return self.permissions.rules

    async def write_export(
        self, path: Path, text: str, *, who: str = "The export", typed: bool = False
    ) -> Path:
        """Write an export of the user's through the file host (an own file of acp-tui's)."""
        return await self.fs.own_writes.write(path, text.encode("utf-8"), who=who, typed=typed)

    async def save_screenshot(self, svg: str) -> Path:
        """Save a screenshot (SVG) under acp-tui's state directory through the file host."""
        path = screenshot_path(datetime.now())
        return await self.fs.own_writes.write_app_file(path, svg.encode("utf-8"))

    def terminal(self, terminal_id: str) -> Terminal | None:
        """The agent's terminal with this id (released ones too), for its view."""
        return self.terminals.get(terminal_id)

    # ----------------------------------------------------------------- lifecycle (continued)

    async def start(self) -> bool:
        """Spawn the agent, initialize, open a session. False (with `error`/`crash`) on failure;
        the change monitor starts once the session is open (`SessionLifecycle.start`)."""
        return await self.lifecycle.start()

    async def restart(self) -> bool:
        """Start the agent again and continue: `session/load` when it can, else a new session."""
        return await self.lifecycle.restart()

    async def close(self) -> None:
        """Stop everything of this session; closing again does nothing."""
        await self.lifecycle.close()

    async def open_new(self) -> bool:
        """`session/new` on the connected agent (after `connect`)."""
        return await open_new(self)

    async def open_existing(self, session_id: str, *, resume: bool) -> bool:
        """Open another session in a fresh thread: `session/resume` (no replay) or
        `session/load` (the agent replays it); see `open.open_existing`."""
        return await open_existing(self, session_id, resume=resume)

    def adopt_fork(self, session_id: str, result: ForkSessionResponse) -> None:
        """Go on in the session `session/fork` made (`open.adopt_fork`)."""
        adopt_fork(self, session_id, result)

    def carry_into_next_prompt(self, blocks: list[dict[str, Any]]) -> None:
        """ACP content `blocks` the next prompt starts with (a conversation continued)."""
        self.turns.carried = blocks

    async def close_current_session(self) -> None:
        """`session/close` when the agent supports it (best effort, bounded)."""
        await close_current_session(self)

    async def connect(self) -> bool:
        """Spawn and initialize the agent without opening a session. False (with `error` or
        `crash` set) on failure."""
        return await self.lifecycle.connect()

    async def teardown(self) -> None:
        """Stop the agent (questions cancelled, terminals closed), keeping the session."""
        await session_connect.teardown(self)

    async def failed_request(self, what: str, error: Exception) -> None:
        """A request of the opening failed: the agent is gone (crashed) or said no (failed)."""
        await session_connect.failed_request(self, what, error)

    # ----------------------------------------------------------------- the turn

    def submit(self, text: str) -> QueuedPrompt | None:
        """Send a prompt now, or queue it while a turn runs; the queued item, if queued."""
        return self.controls.submit(text)

    def send_queued(self) -> None:
        """The prompts the user sent while the session was opening go out now that it is open
        (the app calls it once the preset's model and mode are set, so they apply to them)."""
        self.controls.send_queued()

    def remove_queued(self, item_id: int) -> bool:
        """Drop a queued prompt; False if it cannot be taken back (v2: the agent accepted it)."""
        return self.controls.remove_queued(item_id)

    async def cancel(self) -> None:
        """Esc: cancel the running turn. Updates keep arriving until the prompt returns."""
        await self.controls.cancel()

    async def cancel_tool_call(self, tool_call_id: str) -> str | None:
        """v2: ask the agent to stop a tool call that offers it (`tool_call/cancel`)."""
        return await self.controls.cancel_tool_call(tool_call_id)

    async def cancel_subagent(self, session_id: str) -> bool:
        """Cancel a subagent session's work, when it offers that and runs."""
        return await self.controls.cancel_subagent(session_id)

    # ----------------------------------------------------------------- the agent's settings

    @property
    def api(self) -> AgentApi:
        """The typed ACP calls on the live connection (each raises `RpcError`, or
        `ConnectionClosed` when the agent is not running)."""
        return AgentApi(self.connection, v2=self.v2 is not None)

    async def set_mode(self, mode_id: str) -> str | None:
        """Ask the agent to switch modes. Returns an error message, or None on success."""
        return await session_config.set_mode(self, mode_id)

    async def rename(self, title: str) -> str | None:
        """Give the session a new title (`session/set_title` where the agent offers it)."""
        return await session_config.rename(self, title)

    async def choose_mode(self, mode_id: str) -> str | None:
        """`session/set_mode`, or the mode config option; an error message, or None."""
        return await session_config.choose_mode(self, mode_id)

    async def set_config_option(self, config_id: str, value: str | bool) -> str | None:
        """One config option (the agent's answer replaces the list); an error, or None."""
        return await session_config.set_config_option(self, config_id, value)

    async def set_model(self, model_id: str) -> str | None:
        """The unstable `session/set_model`; an error message, or None."""
        return await session_config.set_model(self, model_id)

    async def list_providers(self) -> tuple[list[ProviderInfo], str | None]:
        """Unstable `providers/list`: the providers, or an error message."""
        return await providers.list_providers(self)

    async def set_provider(
        self, provider_id: str, api_type: str, base_url: str, headers: dict[str, str]
    ) -> str | None:
        """Unstable `providers/set`; an error message, or None."""
        return await providers.set_provider(self, provider_id, api_type, base_url, headers)

    async def disable_provider(self, provider_id: str) -> str | None:
        """Unstable `providers/disable`; an error message, or None."""
        return await providers.disable_provider(self, provider_id)

    # ----------------------------------------------------------------- the login

    @property
    def auth_status(self) -> AuthStatus | None:
        """The agent's account and login state, once it told (`client/auth_status.py`)."""
        return self.account.auth_status

    @property
    def auth_status_changed(self) -> Signal[AuthStatus]:
        """Told each new login state."""
        return self.account.auth_status_changed

    async def log_in(self) -> str | None:
        """Log in again from the sidebar; what went wrong, or None."""
        return await self.account.log_in()

    @property
    def can_logout(self) -> bool:
        """The agent offers to end its login (v1 `logout`, v2 `auth/logout`)."""
        return self.account.can_logout

    async def logout(self) -> str | None:
        """Ask the agent to end its login; an error message, or None."""
        return await self.account.logout()

    # ----------------------------------------------------------------- failure

    def fail(self, message: str) -> None:
        """The session cannot go on (state FAILED); `message` is shown in the banner."""
        self.error = safe_text(message)  # shown in the banner; it may quote the agent
        self.set_state(SessionState.FAILED)

    def _on_task_failure(self, failure: TaskFailure) -> None:
        where = error_log.where()
        self.notices.emit(Notice(f"Internal error ({where}): {failure.describe()}", "error"))

    def set_state(self, state: SessionState) -> None:
        """Move to `state` and tell `state_changed` (READY is told even when already ready)."""
        if state is self.state and state is not SessionState.READY:
            return
        self.state = state
        if state is SessionState.CRASHED and self.crash is not None:
            hint = self.refusals.crash_hint(self.crash.stderr_tail)
            if hint is not None:  # (before the state is told: the banner's notices include it)
                self.notices.emit(Notice(hint, "warning"))
        if state not in (SessionState.STARTING, SessionState.AUTHENTICATING):
            self.lifecycle.start_watch.settled()
        self.state_changed.emit(state)
