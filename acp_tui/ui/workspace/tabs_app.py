"""The app's side of the workspace: the session tabs, switching, opening and closing them.

Each tab is one `AgentSession` (its own agent process: a crash stays in its tab) with its own
`ScreenUi` and Textual mode. The mode keeps the tab's screen stack, so a question screen stays
with its session when the user switches away; a question asked while its tab is hidden waits in
the tab's `ScreenUi` until the tab is shown (the tab says "needs you" and a desktop notification
goes out). A tab never shown has no screen at all: its agent streams into its `Thread` only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import on
from textual.binding import Binding
from textual.screen import Screen

from acp_tui.client.events import SessionState
from acp_tui.client.session.history import OpenRequest
from acp_tui.host.asker import Choice, Question
from acp_tui.thread import thread_changes
from acp_tui.thread.subagent_sessions import SubagentLaneEntry
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.plain import notify
from acp_tui.ui.screen_ui import ScreenUi
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.workspace.app_port import WorkspaceAppPort
from acp_tui.ui.workspace.branches import BranchActions
from acp_tui.ui.workspace.close_worktree import WorktreeClosing
from acp_tui.ui.workspace.messages import (
    OpenBranch,
    PromptAll,
    RewindAsk,
    RewindHere,
    SendOnBranch,
)
from acp_tui.ui.workspace.overview import OverviewActions
from acp_tui.ui.workspace.saving import WorkspaceSaving
from acp_tui.ui.workspace.spec import SessionSpec, SpawnSession
from acp_tui.ui.workspace.tab import SessionTab, TabState
from acp_tui.ui.workspace.tab_bar import TabLabel

if TYPE_CHECKING:
    from acp_tui.client.session.agent_session import AgentSession
    from acp_tui.presets import Preset
    from acp_tui.ui.workspace.registry_agents import RegistryAgents

WORKSPACE_BINDINGS = [
    Binding("ctrl+t", "new_tab", "new session", priority=True, id="workspace.new"),
    Binding(
        "ctrl+w", "close_tab", "close session", show=False, priority=True, id="workspace.close"
    ),
    Binding(
        "ctrl+pageup",
        "cycle_tab(-1)",
        "previous session",
        show=False,
        priority=True,
        id="workspace.previous",
    ),
    Binding(
        "ctrl+pagedown",
        "cycle_tab(1)",
        "next session",
        show=False,
        priority=True,
        id="workspace.next",
    ),
    Binding(
        "ctrl+o",
        "overview",
        "sessions overview",
        show=False,
        priority=True,
        id="workspace.overview",
    ),
    *(
        Binding(
            f"alt+{n}",
            f"go_tab({n})",
            f"session {n}",
            show=False,
            priority=True,
            id=f"workspace.tab-{n}",
        )
        for n in range(1, 10)
    ),
]


class WorkspaceApp(WorkspaceAppPort):
    """The tabs of the app (a base of `AcpApp`): `tabs` in order, `current_tab` shown. The
    overview, closing a worktree tab, rewind's branches and saving the workspace are done by
    objects it owns (`overview`, `worktree_closing`, `branches`, `saving`)."""

    key_guard: KeyGuard

    def init_workspace(
        self,
        first: Callable[[ScreenUi], AgentSession],
        spec: Callable[[AgentSession], SessionSpec],
        *,
        spawn: SpawnSession | None,
        presets: tuple[Preset, ...] | Callable[[], tuple[Preset, ...]],
        more: tuple[SessionSpec, ...],
        registry: RegistryAgents | None = None,
        workspace_dir: Path | None = None,
    ) -> None:
        """Build the first tab's session (`first`, around its `ScreenUi`); `spawn` builds the
        sessions of the tabs opened later (None: no new sessions in this app); the tabs are
        saved in `workspace_dir` for `--continue` (None: not saved)."""
        self.tabs: list[SessionTab] = []
        self.spawn = spawn
        self._presets = presets
        """The new-session picker's presets, or what reads them (at its first opening: their
        commands are looked for on PATH, not on the way to the first screen)."""
        self.registry = registry
        """The ACP registry's agents, offered by ctrl+t too (None: not offered)."""
        self.more_at_start = more
        self._serial = 0
        self.overview = OverviewActions(self)
        self.worktree_closing = WorktreeClosing(self)
        self.branches = BranchActions(self)
        self.saving = WorkspaceSaving(self, workspace_dir)
        ui = ScreenUi(self, mode=self._next_mode())
        session = first(ui)
        self.current_tab = SessionTab(session, ui, spec(session), ui.mode or "")
        self.tabs.append(self.current_tab)

    @property
    def presets(self) -> tuple[Preset, ...]:
        """The agent presets the new-session picker offers (read once, when first asked)."""
        if callable(self._presets):
            self._presets = self._presets()
        return self._presets

    def _next_mode(self) -> str:
        self._serial += 1
        return f"tab-{self._serial}"

    @property
    def session(self) -> AgentSession:
        """The session of the tab shown (screens take theirs from `MainScreen.session`)."""
        return self.current_tab.session

    @property
    def bridge(self) -> ScreenUi:
        """The `ScreenUi` of the tab shown."""
        return self.current_tab.ui

    def tab_of(self, session: object) -> SessionTab | None:
        """The tab of a session (None once it was closed)."""
        return next((tab for tab in self.tabs if tab.session is session), None)

    # ------------------------------------------------------------------ building tabs

    def main_screen(self, tab: SessionTab) -> MainScreen:
        """A new main screen for the tab's session (its mode's base screen)."""
        screen = MainScreen(tab.session, tab.ui)
        tab.screen = screen
        return screen

    def add_tab(self, tab: SessionTab) -> None:
        """Register the tab's mode and follow its state (for the tab bar)."""
        tab.key = tab.key or tab.mode
        self.add_mode(tab.mode, lambda: self.main_screen(tab))
        session = tab.session
        self.overview.watch_of(tab)
        tab.unsubscribe += [
            session.state_changed.subscribe(lambda _: self._state_changed()),
            session.thread.subscribe(lambda change: self._on_thread(tab, change)),
            tab.ui.changed.subscribe(lambda _: self.refresh_tabs()),
            tab.ui.asked_hidden.subscribe(lambda screen: self._asked_hidden(tab, screen)),
        ]

    def _state_changed(self) -> None:
        self.refresh_tabs()
        self.saving.schedule_save()  # (a session id comes with a state change)

    def _on_thread(self, tab: SessionTab, change: thread_changes.Change) -> None:
        # called for every change, text chunks too: only a few kinds matter here
        if isinstance(change, thread_changes.TurnStateChanged):
            if not change.running and tab is not self.current_tab:
                tab.unread = True
            self.refresh_tabs()
        elif isinstance(change, thread_changes.PermissionChanged):
            self.refresh_tabs()
        elif isinstance(change, thread_changes.InfoChanged):
            self.refresh_tabs()
            self.saving.schedule_save()  # the title
        elif isinstance(change, thread_changes.EntryChanged | thread_changes.EntryAdded) and (
            isinstance(change.entry, SubagentLaneEntry)
        ):
            sessions = tab.session.thread.sessions
            counts = (sessions.running(), sessions.waiting_for_user())
            if counts != tab.subagents:  # (a child's chunks change nothing here)
                tab.subagents = counts
                self.refresh_tabs()

    def _asked_hidden(self, tab: SessionTab, screen: Screen[Any]) -> None:
        """A question of a tab in the background waits for it: say so (tab bar, notification)."""
        self.refresh_tabs()
        number = self.tabs.index(tab) + 1 if tab in self.tabs else 0
        text = f"Session {number} ({tab.agent}) needs you: alt+{number} goes there"
        notify(self, text, severity="warning", timeout=6)
        shown = self.current_tab.screen
        if shown is not None and tab.session.settings.notify_permission:
            shown.desktop_notify(tab.agent, "A question is waiting for you", bell=True)

    def refresh_tabs(self) -> None:
        """The shown tab's bar names every tab with its state."""
        screen = self.current_tab.screen
        if screen is None or not screen.is_mounted:
            return
        labels = [
            TabLabel(
                name,
                tab.title,
                tab.state.value,
                tab is self.current_tab,
                tab.subagents[0],
            )
            for tab, name in zip(self.tabs, tab_names(self.tabs), strict=True)
        ]
        screen.parts.tab_bar.show_tabs(labels)

    async def show_tab(self, tab: SessionTab) -> None:
        """Show the tab: its mode (screens as it left them), then the questions that waited.
        Keys typed just before count as typing (`KeyGuard`): none of them answers a question
        of the tab switched to."""
        if tab is not self.current_tab:
            self.key_guard.typed()
            self.current_tab = tab
            tab.unread = False
            screen = tab.screen
            if screen is not None and screen.is_mounted and not screen.caught_up_on_show:
                # its tab bar first, while hidden: a bar that appears (a second tab opened
                # since it was shown) is laid out before the first frame, not after it
                self.refresh_tabs()
                await self.switch_to_built(tab.mode)  # (shown at the next frame)
            else:
                await self.switch_mode(tab.mode)
        tab.ui.release()
        self.refresh_tabs()

    # ------------------------------------------------------------------ opening

    def action_new_tab(self) -> None:
        """ctrl+t: the new-session picker (Enter: the same agent in the same directory)."""
        from acp_tui.ui.workspace.new_session import NewSessionScreen

        if self.spawn is None:
            notify(self, "This app cannot open more sessions.", severity="warning")
            return
        tab = self.current_tab
        picker = NewSessionScreen(
            tab.spec, self.presets, self.registry, current_name=tab.session.agent_name
        )
        self.push_screen(picker, self._picked_new)

    def _picked_new(self, spec: SessionSpec | None) -> None:
        if spec is not None:
            self.run_worker(self.open_tab(spec), group="open-tab")

    async def open_tab(
        self, spec: SessionSpec, *, show: bool = True, request: OpenRequest | None = None
    ) -> SessionTab | None:
        """A new tab running `spec` (its own agent process), shown at once if `show`; it opens
        the session `request` asks for (default: a new one). `tab.starting` is its start."""
        if self.spawn is None:
            return None
        ui = ScreenUi(self, mode=self._next_mode())
        try:
            session = self.spawn(ui, spec)
        except (OSError, ValueError) as error:
            notify(self, f"Could not open a session: {error}", severity="error")
            return None
        tab = SessionTab(session, ui, spec, ui.mode or "")
        tab.reopens = request.resume_id if request is not None else None
        self.tabs.append(tab)
        self.add_tab(tab)
        self.saving.schedule_save()
        if show:
            await self.show_tab(tab)
        else:
            self.refresh_tabs()
        work = self.start_tab(tab, request or OpenRequest())
        tab.starting = self.run_worker(work, group=f"start-{tab.mode}")
        return tab

    async def start_tab(self, tab: SessionTab, request: OpenRequest) -> None:
        """Start a tab's agent and open its session (no prestart: it is started here)."""
        raise NotImplementedError  # AcpApp's

    # ------------------------------------------------------------------ switching

    async def action_go_tab(self, number: int) -> None:
        """alt+N: the Nth tab."""
        if 1 <= number <= len(self.tabs):
            await self.show_tab(self.tabs[number - 1])

    async def action_cycle_tab(self, step: int) -> None:
        """ctrl+pageup / ctrl+pagedown: the previous / next tab (round)."""
        if len(self.tabs) > 1:
            index = self.tabs.index(self.current_tab)
            await self.show_tab(self.tabs[(index + step) % len(self.tabs)])

    def action_overview(self) -> None:
        """The workspace overview (key `workspace.overview`, `overview.py`)."""
        self.overview.show()

    # ------------------------------------------------------------------ closing

    def action_close_tab(self) -> None:
        """ctrl+w: close the session shown, asked first while its turn runs, and always when
        it is the last one (closing it quits acp-tui: alt+backspace, a word's deletion in many
        terminals, reaches Textual as ctrl+w, and quit the app without a word)."""
        tab = self.current_tab
        if tab.spec.worktree is not None:
            self.worktree_closing.ask(tab)
            return
        last = len(self.tabs) == 1
        running = tab.session.thread.turn_running
        if not running and not last:
            self.run_worker(self.close_tab(tab), group="close-tab")
            return
        why = "A turn is running: it is cancelled and the agent stops." if running else ""
        if last:
            why = f"{why} It is the last session: acp-tui quits.".strip()
        question = Question(
            "close-session",
            f"Close the session of {tab.agent}?",
            why,
            (Choice("keep", "Keep it", "n"), Choice("close", "Close it", "y")),
        )

        def answered(answer: str | None) -> None:
            if answer == "close":
                self.run_worker(self.close_tab(tab), group="close-tab")

        from acp_tui.ui.screens.question import QuestionScreen  # (asked: not on the first screen)

        self.push_screen(QuestionScreen(question), answered)

    async def close_tab(self, tab: SessionTab) -> None:
        """Close a tab: its session (agent, terminals, monitor) ends; the last tab quits."""
        if tab not in self.tabs:
            return
        if len(self.tabs) == 1:
            await self.action_quit()
            return
        index = self.tabs.index(tab)
        if tab is self.current_tab:
            await self.show_tab(self.tabs[index - 1 if index else 1])
        self.tabs.remove(tab)
        for unsubscribe in tab.unsubscribe:
            unsubscribe()
        self.overview.forget(tab)
        await self.remove_mode(tab.mode)
        self.saving.schedule_save()
        if self.is_screen_installed(inspector_name(tab)):
            self.uninstall_screen(inspector_name(tab))
        self.refresh_tabs()
        await self.close_session(tab)

    async def close_session(self, tab: SessionTab) -> None:
        """Remember and close a tab's session."""
        raise NotImplementedError  # AcpApp's

    # ------------------------------------------------------------------ rewind's branches

    @on(RewindHere)
    def _rewind_here(self, message: RewindHere) -> None:
        self.branches.rewind_here(message)

    @on(RewindAsk)
    def _rewind_ask(self, message: RewindAsk) -> None:
        self.branches.rewind_ask(message)

    @on(SendOnBranch)
    def _send_on_branch(self, message: SendOnBranch) -> None:
        self.branches.send_on_branch_asked(message)

    @on(OpenBranch)
    def _open_branch(self, message: OpenBranch) -> None:
        self.branches.open_branch_asked(message)

    async def action_quit(self) -> None:
        raise NotImplementedError  # AcpApp's

    # ------------------------------------------------------------------ every session

    @on(PromptAll)
    def _prompt_all(self, message: PromptAll) -> None:
        """`//all PROMPT`: the prompt to every open session (queued where a turn runs)."""
        sent = 0
        for tab in self.tabs:
            if tab.session.state not in (SessionState.CRASHED, SessionState.FAILED):
                tab.session.submit(message.text)
                sent += 1
        notify(self, f"Sent to {sent} of {len(self.tabs)} sessions.")

    def any_turn_running(self) -> bool:
        """A turn runs in some session (the collector's full pass waits for quiet)."""
        return any(tab.session.thread.turn_running for tab in self.tabs)

    def needing(self) -> list[SessionTab]:
        """The tabs that wait for the user."""
        return [tab for tab in self.tabs if tab.state is TabState.NEEDS_YOU]


def inspector_name(tab: SessionTab) -> str:
    """The installed name of a tab's inspector screen (one per tab: its own traffic)."""
    return "inspector" if tab.key == "tab-1" else f"inspector-{tab.key}"


def tab_name(tab: SessionTab, tabs: Sequence[SessionTab] = ()) -> str:
    """The tab's name in the bar: its agent, and the branch of its worktree if it has one, or
    its directory's name when a tab of the same agent works in another directory."""
    branch = tab.spec.branch
    if branch is not None:
        return f"{tab.agent} [{branch}]"
    cwd = tab.spec.cwd
    elsewhere = (t for t in tabs if t.spec.branch is None and t.spec.cwd != cwd)
    if any(t.agent == tab.agent for t in elsewhere):
        return f"{tab.agent} [{cwd.name or cwd}]"
    return tab.agent


def tab_names(tabs: Sequence[SessionTab]) -> list[str]:
    """Each tab's name (`tab_name`), the second and later of one name numbered in tab order
    ("demo", "demo 2"): two tabs of one agent in one directory are told apart at a glance."""
    names = [tab_name(tab, tabs) for tab in tabs]
    seen: dict[str, int] = {}
    numbered = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        numbered.append(name if seen[name] == 1 else f"{name} {seen[name]}")
    return numbered


def spec_for(session: AgentSession, preset: Preset | None) -> SessionSpec:
    """The spec a session was started from (the first tab's: made by the launcher)."""
    return SessionSpec(
        tuple(session.argv),
        Path(session.cwd),
        preset,
        env=dict(preset.env) if preset is not None else {},
    )
