"""A session tab: one `AgentSession` with its own `ScreenUi` and Textual mode, and its state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING

from acp_tui.client.events import SessionState
from acp_tui.ui.workspace.spec import SessionSpec

if TYPE_CHECKING:
    from textual.worker import Worker

    from acp_tui.client.session.agent_session import AgentSession
    from acp_tui.ui.screen_ui import ScreenUi
    from acp_tui.ui.screens.main import MainScreen


class TabState(Enum):
    """What a tab shows next to its name."""

    IDLE = "idle"
    WORKING = "working"
    NEEDS_YOU = "needs you"
    UNREAD = "finished unread"
    CRASHED = "crashed"


@dataclass(eq=False)
class SessionTab:
    """One session of the workspace. `mode` names its Textual mode (its own screen stack: a
    question screen stays with its session when the user switches away); `screen` is its main
    screen once built; `unread`: a turn ended while the tab was in the background."""

    session: AgentSession
    ui: ScreenUi
    spec: SessionSpec
    mode: str
    screen: MainScreen | None = None
    unread: bool = False
    subagents: tuple[int, int] = (0, 0)
    """Its subagent sessions (running, waiting for the user), as the tab bar last showed them."""
    key: str = ""
    """Stable for the tab's life (the mode changes when its main screen is rebuilt)."""
    unsubscribe: list[Callable[[], None]] = field(default_factory=list)
    reopens: str | None = None
    """The session id it was opened to reopen (`--continue`, an old branch)."""
    starting: Worker[None] | None = None
    """The start of its agent and session (None: the first tab, started by the app)."""

    @property
    def state(self) -> TabState:
        """Crashed, needs you (a permission, an elicitation, a held write, a login question),
        working, finished unread, idle: the first that holds."""
        session = self.session
        if session.state in (SessionState.CRASHED, SessionState.FAILED):
            return TabState.CRASHED
        thread = session.thread
        if self.ui.pending or thread.waiting_permission() or thread.needs_user():
            return TabState.NEEDS_YOU
        if thread.works():  # (state snapshots: a subagent session's work too)
            return TabState.WORKING
        if self.unread:
            return TabState.UNREAD
        return TabState.IDLE

    @property
    def title(self) -> str:
        """The session's title as the agent gave it (raw agent text: made safe where shown)."""
        return self.session.thread.title or ""

    @property
    def agent(self) -> str:
        """The agent's name (its own once it said it, else the preset's or the command's)."""
        info = self.session.agent_info
        named = (info.title or info.name) if info is not None else None
        return named or self.spec.name
