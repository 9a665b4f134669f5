"""`SessionFacade`: all the screens and widgets may use of a session, as a protocol.

`AgentSession` implements it; the UI's screens and widgets are typed against it, so mypy proves
they do not reach into the session's parts (`fs`, `permissions`, `terminals`, `changes`,
`connector`, `v2`, `lifecycle`, `controls`, `account`). The app (the composition root) holds the
concrete session for its lifecycle: opening sessions (`session/history.py`), closing it, the
inspector's store.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from acp_tui.client.auth_status import AuthStatus
    from acp_tui.client.elicitation import PendingElicitation
    from acp_tui.client.events import AgentCrash, Notice, QueuedPrompt, SessionState
    from acp_tui.client.hello import AuthMethodInfo
    from acp_tui.client.turn_changes import TurnChanges
    from acp_tui.client.write_review import WriteReport
    from acp_tui.config import Settings
    from acp_tui.host.change_log import ChangeLog
    from acp_tui.host.dir_watch import DirectoryWatchers
    from acp_tui.host.permission_rules import RulesStore
    from acp_tui.host.permissions import PendingPermission
    from acp_tui.host.reverts import Reverts
    from acp_tui.host.terminals import Terminal
    from acp_tui.protocol.models import AgentCapabilities, ProviderInfo
    from acp_tui.sandbox.policy import SandboxPolicy
    from acp_tui.signal import Signal
    from acp_tui.thread.thread import Thread
    from acp_tui.thread.v2.agent_terminals import AgentTerminal


class SessionFacade(Protocol):
    """What the UI reads of one agent session and what it asks of it."""

    # ---- what it is ----------------------------------------------------------------------------

    @property
    def agent_name(self) -> str:
        """The agent's title or name (or a short name of its command)."""
        ...

    @property
    def cwd(self) -> Path:
        """The session directory."""

    @property
    def settings(self) -> Settings:
        """The user's settings for this session."""

    @property
    def thread(self) -> Thread:
        """The conversation: entries, plans, modes, options, usage; observed through changes."""
        ...

    @property
    def session_id(self) -> str | None:
        """The agent's session id, once the session is open."""

    @property
    def agent_capabilities(self) -> AgentCapabilities:
        """What the agent said it can do in `initialize`."""

    @property
    def speaks_v2(self) -> bool:
        """The agent answered `initialize` with ACP v2."""
        ...

    @property
    def watchers(self) -> DirectoryWatchers:
        """The directory watchers (shared by the app's sessions) its file index listens to."""
        ...

    @property
    def mcp_servers(self) -> list[dict[str, Any]]:
        """The MCP servers configured for this agent."""
        ...

    @property
    def mcp_sent(self) -> list[dict[str, Any]]:
        """The MCP servers the last session open passed to the agent."""
        ...

    @property
    def sandbox(self) -> SandboxPolicy | None:
        """The sandbox its agent and terminals run in (None: the one asked for failed)."""
        ...

    @property
    def sandbox_error(self) -> str | None:
        """Why the sandbox asked for cannot be set up (the agent was not started)."""
        ...

    # ---- how it is -----------------------------------------------------------------------------

    @property
    def state(self) -> SessionState:
        """The session's state (starting, ready, running, crashed, ...)."""

    @property
    def closing(self) -> bool:
        """`close` has begun: what is still open (permission questions, forms) is being
        cancelled, not answered by the user; the screen need not follow it."""
        ...

    @property
    def error(self) -> str | None:
        """Why the session failed (state FAILED), made safe for the screen."""
        ...

    @property
    def crash(self) -> AgentCrash | None:
        """Why the agent stopped, when it crashed."""

    @property
    def stall(self) -> AgentCrash | None:
        """Set while the agent has not answered initialize for too long, or has opened no
        session within the `start_timeout` setting."""
        ...

    @property
    def starting_since(self) -> float | None:
        """When the start (or restart) under way began (`time.monotonic`); None once it ended."""
        ...

    def stderr_tail(self, lines: int) -> list[str]:
        """The last lines the agent wrote to stderr, made safe to show."""
        ...

    @property
    def turn_running(self) -> bool:
        """Whether a prompt turn is running."""

    # ---- signals -------------------------------------------------------------------------------

    @property
    def state_changed(self) -> Signal[SessionState]:
        """Emits each new state."""

    @property
    def queue_changed(self) -> Signal[list[QueuedPrompt]]:
        """Emits the queue of waiting prompts whenever it changes."""

    @property
    def notices(self) -> Signal[Notice]:
        """Emits notices for the user."""

    @property
    def stalled(self) -> Signal[AgentCrash | None]:
        """Emits when the agent stops answering (and None when it answers again)."""

    @property
    def written(self) -> Signal[WriteReport]:
        """Emits a report of each file acp-tui wrote for the agent."""

    @property
    def permission_asked(self) -> Signal[PendingPermission]:
        """Emits each permission request that needs the user."""

    @property
    def elicitation_asked(self) -> Signal[PendingElicitation]:
        """Emits each elicitation that needs the user."""

    # ---- what it keeps -------------------------------------------------------------------------

    @property
    def turn_changes(self) -> TurnChanges:
        """What each turn changed on disk."""

    @property
    def change_log(self) -> ChangeLog:
        """Every change of the session's files, in order."""

    @property
    def reverts(self) -> Reverts:
        """The user's reverts, written through the file host (lock, walk, boundary)."""
        ...

    @property
    def rules(self) -> RulesStore | None:
        """The saved permission rules of this directory, when this session saves them."""

    def terminal(self, terminal_id: str) -> Terminal | None:
        """One of the agent's terminals (released ones too).

        Args:
            terminal_id: the id `terminal/create` answered.
        """
        ...

    def terminal_lookup(self, terminal_id: str) -> Terminal | AgentTerminal | None:
        """The terminal a tool call shows: an agent-owned one (v2), else one of ours.

        Args:
            terminal_id: the id in the tool call's terminal content.
        """
        ...

    # ---- what the user asks --------------------------------------------------------------------

    def submit(self, text: str) -> QueuedPrompt | None:
        """Send a prompt now, or queue it while a turn runs (the queued item is returned).

        Args:
            text: the prompt as typed (@-mentions become content blocks).
        """
        ...

    def send_queued(self) -> None:
        """Send the prompts queued while the session was opening (once it is open)."""
        ...

    async def write_export(
        self, path: Path, text: str, *, who: str = "The export", typed: bool = False
    ) -> Path:
        """Write an export of the user's through the file host (walk, boundary, atomic); the
        real path written. Raises `OwnWriteError` saying why it was not written.

        Args:
            path: where the user asked for it.
            text: the export (written as UTF-8).
            who: what writes it, as the boundary's question names it ("The export wants to…").
            typed: the user typed `path`: outside the session roots as typed, it is their own
                choice and not asked about (special files are still refused).
        """
        ...

    async def save_screenshot(self, svg: str) -> Path:
        """Save a screenshot (SVG text) under acp-tui's state directory
        (`$XDG_STATE_HOME/acp-tui/screenshots/`) through the file host; the path written.
        Raises `OwnWriteError` saying why it was not written."""
        ...

    def remove_queued(self, item_id: int) -> bool:
        """Take a queued prompt back; False if it cannot be (v2: the agent accepted it).

        Args:
            item_id: the `QueuedPrompt.id`.
        """
        ...

    async def cancel(self) -> None:
        """Cancel the running turn (its questions end; updates keep coming until it returns)."""
        ...

    @property
    def auth_status(self) -> AuthStatus | None:
        """The agent's account and login state, once it told."""
        ...

    @property
    def auth_status_changed(self) -> Signal[AuthStatus]:
        """Told each new account and login state."""
        ...

    async def log_in(self) -> str | None:
        """Log in again (the agent's methods, asked); what went wrong, or None."""
        ...

    @property
    def auth_methods(self) -> list[AuthMethodInfo]:
        """The ways the agent offers to log in."""
        ...

    async def rename(self, title: str) -> str | None:
        """Give the session a new title (told to the agent where it offers that); the reason
        it could not be, or None."""
        ...

    async def cancel_tool_call(self, tool_call_id: str) -> str | None:
        """v2: ask the agent to stop a tool call that offers it (`tool_call/cancel`); why it
        could not, or None."""
        ...

    async def cancel_subagent(self, session_id: str) -> bool:
        """Cancel a subagent session's work, when it offers that; False when it cannot be."""
        ...

    async def restart(self) -> bool:
        """Start the agent again and load the session when it can; False on failure."""
        ...

    def keep_waiting(self) -> bool:
        """Wait on for a start past its bound (the stall cleared, the bound started again);
        False when the start was not stalled."""
        ...

    async def choose_mode(self, mode_id: str) -> str | None:
        """Switch modes (or the mode config option); an error message, or None.

        Args:
            mode_id: one of `thread.modes`' ids.
        """
        ...

    async def set_config_option(self, config_id: str, value: str | bool) -> str | None:
        """Set one config option (the agent's answer replaces the list); an error, or None.

        Args:
            config_id: the option's id.
            value: a select's value id, or a boolean option's value.
        """
        ...

    async def set_model(self, model_id: str) -> str | None:
        """The unstable `session/set_model`; an error message, or None.

        Args:
            model_id: one of `thread.models`' ids.
        """
        ...

    async def list_providers(self) -> tuple[list[ProviderInfo], str | None]:
        """Unstable `providers/list` (when `agent_capabilities.providers` is offered)."""
        ...

    async def set_provider(
        self, provider_id: str, api_type: str, base_url: str, headers: dict[str, str]
    ) -> str | None:
        """Unstable `providers/set`; an error message, or None.

        Args:
            provider_id: the provider `providers/list` named.
            api_type: the protocol the endpoint speaks (one of the provider's `supported`).
            base_url: the endpoint.
            headers: extra HTTP headers (sent, never kept).
        """
        ...

    async def disable_provider(self, provider_id: str) -> str | None:
        """Unstable `providers/disable`; an error message, or None.

        Args:
            provider_id: the provider `providers/list` named.
        """
        ...

    @property
    def can_logout(self) -> bool:
        """The agent offers to end its login."""
        ...

    async def logout(self) -> str | None:
        """Ask the agent to end its login; an error message, or None."""
        ...
