"""The Textual application: agent sessions, one tab each (`ui/workspace/`), each on its own
main screen."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from textual import on
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from acp_tui.client.events import SessionState
from acp_tui.client.session import history as session_history
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.history import OpenRequest
from acp_tui.host import error_log
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.presets import Preset
from acp_tui.signal import FailureReporter, ListenerFailure, set_failure_reporter
from acp_tui.ui import runtime
from acp_tui.ui.commands import SessionCommands
from acp_tui.ui.early_prompt import EarlyPrompt
from acp_tui.ui.help_keys import HELP_BINDING
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.keymap import checked_keymap
from acp_tui.ui.local_commands import LOCAL_COMMANDS
from acp_tui.ui.markdown import warm_up
from acp_tui.ui.plain import notify
from acp_tui.ui.screen_ui import ScreenUi
from acp_tui.ui.session_actions import continue_in, fork_whole
from acp_tui.ui.textual_internals import register_screen
from acp_tui.ui.themes import load_themes
from acp_tui.ui.widgets.prompt_input import PromptInput, take_early_prompt
from acp_tui.ui.workspace.messages import ContinueFrom, ForkWhole, NewSessionHere, ShowSessions
from acp_tui.ui.workspace.spec import SessionSpec, SpawnSession
from acp_tui.ui.workspace.tab import SessionTab
from acp_tui.ui.workspace.tabs_app import (
    WORKSPACE_BINDINGS,
    WorkspaceApp,
    inspector_name,
    spec_for,
)

if TYPE_CHECKING:
    from acp_tui.ui.screens.session_picker import PickedSession
    from acp_tui.ui.workspace.registry_agents import RegistryAgents
    from acp_tui.ui.workspace.restore import Restore

SessionFactory = Callable[[ScreenUi], AgentSession]
SIGNAL_EXIT_GRACE = 2.0
INSPECTOR_PREPARE_DELAY = 1.0
"""Seconds after the first session's start is over (ready, or failed) before the inspector's
screen is built in the background: counted from the app's mount, it was built before "ready"
on a loaded machine (or with a slow agent), on the way of the frame that says it."""


def _die_by(sig: int) -> None:
    os._exit(128 + sig)  # from a timer thread: no handler, no cleanup left to wait for


class AcpApp(WorkspaceApp):
    """The Textual app: agent sessions in tabs (the first made by `session_factory` from its
    tab's `ScreenUi`, the others by `spawn`), the inspector on f12 (the shown session's), every
    child process of every session ended on exit."""

    TITLE = "acp-tui"
    BINDINGS = [
        HELP_BINDING,
        Binding("ctrl+q", "quit", "quit", priority=True, id="app.quit"),
        Binding(
            "f12",
            "inspector",
            "traffic",
            show=False,
            id="app.inspector",
            tooltip="the traffic inspector: every JSON-RPC frame of this session",
        ),
        *WORKSPACE_BINDINGS,
    ]
    COMMANDS = App.COMMANDS | {SessionCommands}

    def __init__(
        self,
        session_factory: SessionFactory,
        *,
        start_agent: bool = True,
        startup_messages: list[str] | None = None,
        guard: ProcessGuard | None = None,
        inspect: bool = False,
        open_request: OpenRequest | None = None,
        preset: Preset | None = None,
        key_guard: KeyGuard | None = None,
        spawn: SpawnSession | None = None,
        presets: tuple[Preset, ...] | Callable[[], tuple[Preset, ...]] = (),
        registry: RegistryAgents | None = None,
        more: tuple[SessionSpec, ...] = (),
        workspace_dir: Path | None = None,
        restore: Restore | None = None,
        early_prompt: EarlyPrompt | None = None,
    ) -> None:
        super().__init__()
        self.restore = restore
        """`--continue`: the other sessions of the saved workspace, reopened in tabs."""
        self.key_guard = key_guard or KeyGuard()
        """When a key may answer a question (`key_guard.py`; tests give it a clock)."""
        self.preset = preset
        self.guard = guard
        self.open_request = open_request or OpenRequest()
        self.startup_messages = list(startup_messages or [])
        self.init_workspace(
            session_factory,
            lambda session: spec_for(session, preset),
            spawn=spawn,
            presets=presets,
            registry=registry,
            more=more,
            workspace_dir=workspace_dir,
        )
        self.start_agent = start_agent
        self.exit_message: str | None = None
        self.inspect_at_start = inspect
        self._previous_reporter: FailureReporter | None = None
        self.early_prompt = early_prompt or EarlyPrompt()
        """What the user typed before the UI took the terminal (`early_prompt.py`): the prompts
        sent then are sent from the prompt once it is mounted, as if typed there (queued until
        the session is open); the prompt starts with the rest."""

    async def on_mount(self) -> None:
        # a listener that raises (any layer) is logged by acp_tui.signal and shown here once
        self._previous_reporter = set_failure_reporter(self._report_listener_failure)
        if self.guard is not None:
            # a plain handler, not the loop's: after a hangup the loop may be blocked on the
            # dead terminal, while a Python handler still runs between two bytecodes
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGHUP):  # SIGHUP: the terminal window closed
                signal.signal(sig, lambda sig, _frame: self._exit_on_signal(sig, loop))
        self._apply_theme()
        if self.session.settings.keymap:
            # binding id -> keys, e.g. {"main.changes": "f5", "app.quit": "ctrl+q,ctrl+x"}
            keymap, problems = checked_keymap(self.session.settings.keymap)
            self.startup_messages.extend(problems)
            self.set_keymap(keymap)
        first = self.current_tab
        self.add_tab(first)
        # mounted before the agent starts; no frame until this returns (Textual's batch)
        await self.switch_in_mount(first.mode)
        main = first.screen
        assert main is not None
        take_early_prompt(main.query_one(PromptInput), self.early_prompt)
        if self.inspect_at_start:
            self.action_inspector()
        elif not self.start_agent:
            self.set_timer(INSPECTOR_PREPARE_DELAY, self.prepare_inspector)
        # (else once the session's start is over: not while "ready" is yet to be drawn)
        if self.startup_messages:
            notify(self, "\n".join(self.startup_messages), title="Settings", severity="warning")
        # `launch.py` turned automatic collections off while the app started: what was built
        # lives as long as the app, frozen (no collection walks it), and collections resume
        runtime.keep_what_was_built()
        if self.start_agent:
            # Once the main screen is mounted (a failure cannot race its mounting), and not
            # "after a refresh": a callback that waits for a refresh that does not come would
            # leave the agent unstarted and the screen blank.
            self.run_worker(self._start(), group="start", exclusive=True)
            for spec in self.more_at_start:  # `-a A -a B`: one tab each, the first one shown
                self.run_worker(self.open_tab(spec, show=False), group="open-tab")
            self._reopen_workspace()

    def _reopen_workspace(self) -> None:
        """`--continue`: every other session of the saved workspace in its own tab; the ones
        that cannot come back named in one notice."""
        restore = self.restore
        if restore is None:
            return
        self._reopen(restore.others)
        if restore.notice:
            notify(self, restore.notice, title="Workspace", severity="warning", timeout=12)
        if restore.to_confirm:
            self._confirm_reopen(restore.to_confirm)

    def _reopen(self, specs: Sequence[tuple[SessionSpec, str]]) -> None:
        for spec, session_id in specs:
            work = self.open_tab(spec, show=False, request=OpenRequest(resume_id=session_id))
            self.run_worker(work, group="open-tab")

    def _confirm_reopen(self, specs: Sequence[tuple[SessionSpec, str]]) -> None:
        """Saved sessions not of this directory's own presets: their commands and directories
        shown first, started only on "Start them" (Esc: none of them)."""
        from acp_tui.ui.screens.question import QuestionScreen
        from acp_tui.ui.workspace.restore import START, confirm_question

        question = confirm_question([spec for spec, _ in specs])

        def answered(answer: str | None) -> None:
            if answer == START:
                self._reopen(specs)
            else:
                notify(self, f"{len(specs)} saved session(s) not started.", title="Workspace")

        self.push_screen(QuestionScreen(question), answered)

    def _apply_theme(self) -> None:
        themes, problems = load_themes()
        for theme in themes:
            self.register_theme(theme)
        wanted = self.session.settings.theme
        if wanted in self.available_themes:
            self.theme = wanted
        else:
            problems.append(f"unknown theme {wanted!r}; known: {', '.join(self.available_themes)}")
        self.startup_messages.extend(problems)

    async def _start(self) -> None:
        # Everything built so far lives as long as the app: keep the garbage collector from
        # walking it again and again while text streams (long GC pauses showed as lag).
        runtime.freeze()
        tab = self.current_tab
        # the change monitor (git, the baseline's thread) starts once "ready" is drawn
        tab.session.changes.start_after = self._next_frame
        ok = await session_history.start(tab.session, self.open_request)
        if ok and self.open_request.pick:
            ok = await self._open_picked_at_start(tab)
        self.show_current_thread(tab)
        if ok:
            await self.apply_preset(tab)
            tab.session.send_queued()  # (at the session picked: none was open before)
            # (a file read and written with an fsync: after the frame that says "ready")
            self.call_after_refresh(session_history.remember, tab.session)
            # the Markdown renderer's one-time costs, paid while the user types
            self.set_timer(warm_up.AFTER, self._warm_up_when_quiet)
        if not ok and tab.session.state is SessionState.FAILED and len(self.tabs) == 1:
            # Nothing to continue: say why and leave cleanly.
            self.exit_message = tab.session.error
            await tab.session.close()
            self.exit(1)
            return
        if not self.inspect_at_start:
            self.set_timer(INSPECTOR_PREPARE_DELAY, self.prepare_inspector)

    async def _next_frame(self) -> None:
        """Return once the screen shown has been refreshed (its idle callbacks run)."""
        drawn = asyncio.Event()
        self.call_after_refresh(drawn.set)
        await drawn.wait()

    def _warm_up_when_quiet(self) -> None:
        """Start the renderer's warm-up unless text streams in a tab; look again `AFTER`
        seconds later until it is done (see `warm_up`)."""
        if warm_up.finished():
            return
        warm_up.start_if_quiet(self._text_streaming)
        self.set_timer(warm_up.AFTER, self._warm_up_when_quiet)

    def _text_streaming(self) -> bool:
        """Whether the agent's text streams into any tab now (read by the warm-up's thread too:
        attributes only)."""
        return any(tab.screen is not None and tab.screen.streaming for tab in list(self.tabs))

    async def _open_picked_at_start(self, tab: SessionTab) -> bool:
        """`--resume` alone, the agent connected: the session picker, then the session picked
        is opened (a new one when it is closed). What the user sent meanwhile waits for it."""
        from acp_tui.ui.screens.session_picker import SessionPicker

        session = tab.session
        choice: PickedSession | None = None
        if session_history.offers_picker(session):
            loop = asyncio.get_running_loop()
            picked: asyncio.Future[PickedSession | None] = loop.create_future()

            def done(result: PickedSession | None) -> None:
                if not picked.done():
                    picked.set_result(result)

            tab.ui.show(SessionPicker(session, at_start=True), done, asks=False)  # (asked for)
            choice = await picked
        if choice is None:
            return await session_history.open_picked(session, None)
        fork = choice.action == "fork"
        return await session_history.open_picked(session, choice.session_id, fork=fork)

    async def start_tab(self, tab: SessionTab, request: OpenRequest) -> None:
        """Start a new tab's agent and open the session `request` asks for (a failure shows in
        its tab)."""
        ok = await session_history.start(tab.session, request)
        self.show_current_thread(tab)
        if ok:
            session_history.remember(tab.session)
            await self.apply_preset(tab)
            tab.session.send_queued()
        self.refresh_tabs()

    async def apply_preset(self, tab: SessionTab | None = None) -> None:
        """The preset's model, mode and options on the session just opened; failures shown."""
        tab = tab or self.current_tab
        preset = tab.spec.preset
        if preset is None or not preset.has_defaults:
            return
        from acp_tui.client.session_settings import apply_defaults

        problems = await apply_defaults(tab.session, preset)
        if problems:
            notify(self, "\n".join(problems), title="Preset", severity="warning")

    def _exit_on_signal(self, sig: int, loop: asyncio.AbstractEventLoop) -> None:
        """Kill every process acp-tui started (at once, without the UI), then leave.

        After a hangup the terminal may be gone and restoring it can block the main thread: if
        the app has not ended after `SIGNAL_EXIT_GRACE` seconds, a timer thread makes acp-tui
        exit at once with 128 + the signal (the watchdog then sweeps once more).
        """
        if self.guard is not None:
            self.guard.kill_everything()
        timer = threading.Timer(SIGNAL_EXIT_GRACE, _die_by, (sig,))
        timer.daemon = True
        timer.start()
        loop.call_soon_threadsafe(self.exit, 128 + sig)

    def action_inspector(self) -> None:
        """Open the traffic inspector of the session shown (or close it when it is on top)."""
        from acp_tui.ui.inspector.screen import InspectorScreen  # not needed for the first frame

        if isinstance(self.screen, InspectorScreen):
            self.screen.dismiss(None)
            return
        self._install_inspector(self.current_tab)
        self.push_screen(inspector_name(self.current_tab))

    def _install_inspector(self, tab: SessionTab) -> bool:
        """Install a tab's inspector screen once; True if this call did. Kept after closing:
        reopening costs a screen switch, and filters stay as they were left."""
        name = inspector_name(tab)
        if self.is_screen_installed(name):
            return False
        from acp_tui.ui.inspector.screen import InspectorScreen  # not needed for the first frame

        self.install_screen(InspectorScreen(tab.session.traffic_store), name)
        return True

    def prepare_inspector(self) -> None:
        """Build the first session's inspector screen in the background, so that opening it is
        a screen switch (composing and mounting it takes longer than the 50 ms an open may take).

        The screen is installed and registered with the app as `push_screen` does for a screen
        not running yet (`register_screen`, which `install_screen` itself did in earlier
        Textual versions): composed and mounted, on no stack, never drawn; the screens on the
        stack get no event. Its module is imported here too, after the first frame. Nothing to
        do once it is installed, or while shutting down."""
        exiting = self.return_code is not None or not self.screen_stack
        tab = self.tabs[0] if self.tabs else None
        if exiting or not self.is_running or tab is None or not self._install_inspector(tab):
            return
        register_screen(self, self.get_screen(inspector_name(tab)))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands (its screenshot replaced by ours, its "Keys" panel by the
        help screen) plus the traffic inspector."""
        for command in super().get_system_commands(screen):
            if command.title == "Screenshot":
                command = SystemCommand(
                    "Screenshot",
                    "Save an SVG of the screen under acp-tui's state directory",
                    lambda: self.set_timer(0.1, self.action_screenshot),  # the palette gone
                )
            elif command.title == "Keys":
                command = SystemCommand(
                    "Keys", "acp-tui's keys, its //commands and where the settings live (f1)",
                    self.action_help,
                )  # fmt: skip
            yield command
        yield SystemCommand(
            "Traffic inspector",
            "Every JSON-RPC frame, paired, filtered, with conformance marks (f12)",
            self.action_inspector,
        )
        if self.current_tab.spec.worktree is not None:
            yield SystemCommand(
                "Apply this worktree",
                "Review this session's worktree changes into the main checkout, file by file",
                lambda: self.overview.apply_tab(self.current_tab),
            )

    def action_screenshot(self, filename: str | None = None, path: str | None = None) -> None:
        """Save a screenshot under `$XDG_STATE_HOME/acp-tui/screenshots/` through the shown
        session's file host, and say where (`screenshot.py`); `filename` and `path` (Textual's
        arguments) are not used: acp-tui names the file and its place."""
        from acp_tui.ui.screenshot import save_screenshot

        self.run_worker(save_screenshot(self, self.current_tab.session), group="screenshot")

    def action_help(self) -> None:
        """The help screen: keys by context, the //commands, where the settings are (f1)."""
        from acp_tui.config import config_path
        from acp_tui.ui.screens.help_screen import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        commands = [(c.name, c.description) for c in LOCAL_COMMANDS]
        self.push_screen(HelpScreen(str(config_path()), commands))

    def show_current_thread(self, tab: SessionTab | None = None) -> None:
        """A new main screen for a tab whose session's thread was replaced (another session
        opened in it): in its own mode, shown or not."""
        tab = tab or self.current_tab
        screen = tab.screen
        if screen is None or screen.generation == tab.session.thread.generation:
            return  # (a tab never shown builds its screen from the thread when first shown)
        self.rebuild_tab(tab)

    def rebuild_tab(self, tab: SessionTab) -> None:
        """A new main screen for the tab. A mode's base screen cannot be replaced in place: the
        tab moves to a new mode with a new main screen, and the old mode (its screens) goes."""
        old_mode, tab.mode = tab.mode, self._next_mode()
        tab.ui.mode = tab.mode
        if tab.screen is not None:
            tab.screen.detach()  # (its widgets go first as it is removed: it must hear no more)
        tab.screen = None
        self.add_mode(tab.mode, lambda: self.main_screen(tab))
        if tab is self.current_tab:
            self.switch_mode(tab.mode)
        self.remove_mode(old_mode)
        self.refresh_tabs()

    def show_sessions(self, tab: SessionTab | None = None) -> None:
        """The session picker of a tab; what is picked is opened (or forked, then opened) in it."""
        from acp_tui.ui.screens.session_picker import SessionPicker

        tab = tab or self.current_tab

        def picked(choice: PickedSession | None) -> None:
            if choice is not None:
                self.run_worker(self.open_picked(choice, tab), group="open-session")

        tab.ui.show(SessionPicker(tab.session), picked, asks=False)  # (the user asked)

    async def open_picked(self, picked: PickedSession, tab: SessionTab | None = None) -> None:
        """Leave a tab's session (remembered, closed) and open, or fork then open, one."""
        tab = tab or self.current_tab
        session = tab.session
        session_id: str | None = picked.session_id
        if picked.action == "fork":
            session_id, error = await session_history.fork_session(session, picked.session_id)
            if session_id is None:
                notify(self, f"Could not fork: {error}", severity="error")
                return
        elif picked.session_id == session.session_id:
            return
        assert session_id is not None
        if session.turn_running:
            await session.cancel()
        session_history.remember(session)
        await session.close_current_session()
        ok = await session_history.open_session(session, session_id)
        self.show_current_thread(tab)
        if not ok and session.error:
            notify(self, session.error, severity="error")
        elif ok:
            session_history.remember(session)
            if picked.action == "fork":
                notify(self, "Forked: you are in the new session.")
            await self.apply_preset(tab)  # resume/load keep the session's settings: preset wins

    async def new_session(self, tab: SessionTab | None = None) -> None:
        """`/clear`: leave a tab's session (remembered, closed) for a new one there."""
        tab = tab or self.current_tab
        session = tab.session
        if session.turn_running:
            await session.cancel()
        session_history.remember(session)
        await session.close_current_session()
        session.thread.reset()
        ok = await session.open_new()
        self.show_current_thread(tab)
        if not ok and session.error:
            notify(self, session.error, severity="error")
        elif ok:
            session_history.remember(session)
            await self.apply_preset(tab)
            notify(self, "New session.")

    # ------------------------------------------------------------ what screens ask

    @on(ShowSessions)
    def _show_sessions(self, message: ShowSessions) -> None:
        tab = self.tab_of(message.session)
        if tab is not None:
            self.show_sessions(tab)

    @on(NewSessionHere)
    def _new_session(self, message: NewSessionHere) -> None:
        tab = self.tab_of(message.session)
        if tab is not None:
            self.run_worker(self.new_session(tab), group=f"open-{tab.mode}", exclusive=True)

    @on(ForkWhole)
    def _fork_whole(self, message: ForkWhole) -> None:
        tab = self.tab_of(message.session)
        if tab is not None:
            work = fork_whole(tab.session, lambda: self.show_current_thread(tab), self)
            self.run_worker(work, group=f"open-{tab.mode}", exclusive=True)

    @on(ContinueFrom)
    def _continue_from(self, message: ContinueFrom) -> None:
        tab = self.tab_of(message.session)
        if tab is not None:
            shown = lambda: self.show_current_thread(tab)  # noqa: E731
            work = continue_in(tab.session, message.entry_id, shown, self)
            self.run_worker(work, group=f"open-{tab.mode}", exclusive=True)

    # ------------------------------------------------------------ lifecycle

    def _report_listener_failure(self, failure: ListenerFailure) -> None:
        # through the app's queue: the emit may run in a task started outside the app (the
        # prestarted agent's connection), where a toast's timer would not find the app
        self.call_later(self._show_listener_failure, failure)

    def _show_listener_failure(self, failure: ListenerFailure) -> None:
        title = f"Internal error ({error_log.where()})"
        notify(self, failure.describe(), title=title, severity="error", timeout=15)

    async def close_session(self, tab: SessionTab) -> None:
        """Remember and close a tab's session (agent, terminals, change monitor)."""
        session_history.remember(tab.session)
        await tab.session.close()

    async def close_every_session(self) -> None:
        await asyncio.gather(*(tab.session.close() for tab in self.tabs))

    async def on_unmount(self) -> None:
        """However the app ends (quit, a signal, `exit()` from anywhere), every session closes:
        the agents, their terminals and change monitors stop with the app."""
        set_failure_reporter(self._previous_reporter)
        self.saving.stop_saving()  # (quit saved the tabs as they were)
        if self.registry is not None:
            self.registry.abandon_downloads()  # (no half-downloaded agent left behind)
        await self.close_every_session()

    async def action_quit(self) -> None:
        await self.saving.save()  # every tab as it is now, for `--continue`
        for tab in self.tabs:
            session_history.remember(tab.session)
        # no layout or repaint while the sessions close: each await of a close would
        # otherwise wait behind a frame of whatever floods the screen (seconds per step)
        with self.batch_update():
            await self.close_every_session()
            self.exit(0)
