"""The Textual application: one agent session on the main screen."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from acp_tui.client import session_history
from acp_tui.client.agent_session import AgentSession
from acp_tui.client.events import SessionState
from acp_tui.client.session_history import OpenRequest
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.presets import Preset
from acp_tui.signal import FailureReporter, ListenerFailure, set_failure_reporter
from acp_tui.ui import collector
from acp_tui.ui.commands import SessionCommands
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.keymap import checked_keymap
from acp_tui.ui.plain import notify
from acp_tui.ui.screen_ui import ScreenUi
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.textual_internals import register_screen
from acp_tui.ui.themes import load_themes
from acp_tui.ui.widgets.prompt_input import PromptInput

if TYPE_CHECKING:
    from acp_tui.ui.screens.session_picker import PickedSession

SessionFactory = Callable[[ScreenUi], AgentSession]
SIGNAL_EXIT_GRACE = 2.0
INSPECTOR_PREPARE_DELAY = 1.0
"""Seconds after start-up before the inspector's screen is built in the background."""


def _die_by(sig: int) -> None:
    os._exit(128 + sig)  # from a timer thread: no handler, no cleanup left to wait for


class AcpApp(App[int]):
    """The Textual app: one agent session (made by `session_factory` from the app's `ScreenUi`) on
    the main screen, the inspector on f12, every child process ended on exit."""

    TITLE = "acp-tui"
    BINDINGS = [
        Binding("ctrl+q", "quit", "quit", priority=True, id="app.quit"),
        Binding("f12", "inspector", "traffic", show=False, id="app.inspector"),
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
    ) -> None:
        super().__init__()
        self.key_guard = key_guard or KeyGuard()
        """When a key may answer a question (`key_guard.py`; tests give it a clock)."""
        self.preset = preset
        self.guard = guard
        self.open_request = open_request or OpenRequest()
        self.startup_messages = list(startup_messages or [])
        self.bridge = ScreenUi(self)
        self.session = session_factory(self.bridge)
        self.start_agent = start_agent
        self.exit_message: str | None = None
        self.inspect_at_start = inspect
        self._previous_reporter: FailureReporter | None = None
        self.typed_early = ""
        """What the user typed before the UI took the terminal (`early_input.py`): the prompt
        starts with it."""

    async def on_mount(self) -> None:
        # a listener that raises (any layer) is logged by acp_tui.signal and shown here once
        self._previous_reporter = set_failure_reporter(self._report_listener_failure)
        collector.policy.busy = self._turn_running  # the collector's full pass waits for quiet
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
        main = MainScreen(self.session)
        await self.push_screen(main)  # mounted before the agent starts
        if self.typed_early:
            main.query_one(PromptInput).insert_text(self.typed_early)
        if self.inspect_at_start:
            self.action_inspector()
        else:
            self.set_timer(INSPECTOR_PREPARE_DELAY, self.prepare_inspector)
        if self.startup_messages:
            notify(self, "\n".join(self.startup_messages), title="Settings", severity="warning")
        if self.start_agent:
            # Once the main screen is mounted (a failure cannot race its mounting), and not
            # "after a refresh": a callback that waits for a refresh that does not come would
            # leave the agent unstarted and the screen blank.
            self.run_worker(self._start(), group="start", exclusive=True)

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
        gc.freeze()
        ok = await session_history.start(self.session, self.open_request)
        self.show_current_thread()
        if ok:
            session_history.remember(self.session)
            await self.apply_preset()
            if self.open_request.pick:
                self.show_sessions()
        if not ok and self.session.state is SessionState.FAILED:
            # Nothing to continue: say why and leave cleanly.
            self.exit_message = self.session.error
            await self.session.close()
            self.exit(1)

    async def apply_preset(self) -> None:
        """The preset's model, mode and options on the session just opened; failures shown."""
        if self.preset is None or not self.preset.has_defaults:
            return
        from acp_tui.client.presets import apply_defaults

        problems = await apply_defaults(self.session, self.preset)
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
        """Open the traffic inspector (or close it when it is on top)."""
        from acp_tui.ui.inspector.screen import InspectorScreen  # not needed for the first frame

        if isinstance(self.screen, InspectorScreen):
            self.screen.dismiss(None)
            return
        self._install_inspector()
        self.push_screen("inspector")

    def _install_inspector(self) -> bool:
        """Install the inspector's screen once; True if this call did. Kept after closing:
        reopening costs a screen switch, and filters stay as they were left."""
        if self.is_screen_installed("inspector"):
            return False
        from acp_tui.ui.inspector.screen import InspectorScreen  # not needed for the first frame

        self.install_screen(InspectorScreen(self.session.traffic_store), "inspector")
        return True

    def prepare_inspector(self) -> None:
        """Build the inspector's screen in the background, so that opening it is a screen
        switch (composing and mounting it takes longer than the 50 ms an open may take).

        The screen is installed and registered with the app as `push_screen` does for a screen
        not running yet (`register_screen`, which `install_screen` itself did in earlier
        Textual versions): composed and mounted, on no stack, never drawn; the screens on the
        stack get no event. Its module is imported here too, after the first frame. Nothing to
        do once it is installed, or while shutting down."""
        exiting = self.return_code is not None or not self.screen_stack
        if exiting or not self.is_running or not self._install_inspector():
            return
        register_screen(self, self.get_screen("inspector"))

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's palette commands plus the traffic inspector."""
        yield from super().get_system_commands(screen)
        yield SystemCommand(
            "Traffic inspector",
            "Every JSON-RPC frame, paired, filtered, with conformance marks (f12)",
            self.action_inspector,
        )

    def show_current_thread(self) -> None:
        """A new main screen when the session's thread was replaced (another session opened)."""
        screen = next((s for s in self.screen_stack if isinstance(s, MainScreen)), None)
        if screen is not None and screen.generation != self.session.thread.generation:
            while self.screen is not screen:
                self.pop_screen()
            self.switch_screen(MainScreen(self.session))

    def show_sessions(self) -> None:
        """The session picker; what is picked is opened (or forked, then opened)."""
        from acp_tui.ui.screens.session_picker import SessionPicker

        self.push_screen(SessionPicker(self.session), self._picked_session)

    def _picked_session(self, picked: PickedSession | None) -> None:
        if picked is not None:
            self.run_worker(self.open_picked(picked), group="open-session", exclusive=True)

    async def open_picked(self, picked: PickedSession) -> None:
        """Leave the current session (remembered, closed) and open, or fork then open, one."""
        session = self.session
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
        self.show_current_thread()
        if not ok and session.error:
            notify(self, session.error, severity="error")
        elif ok:
            session_history.remember(session)
            if picked.action == "fork":
                notify(self, "Forked: you are in the new session.")
            await self.apply_preset()  # resume/load keep the session's settings: the preset wins

    async def new_session(self) -> None:
        """`/clear`: leave the current session (remembered, closed) for a new one here."""
        session = self.session
        if session.turn_running:
            await session.cancel()
        session_history.remember(session)
        await session.close_current_session()
        session.thread.reset()
        ok = await session.open_new()
        self.show_current_thread()
        if not ok and session.error:
            notify(self, session.error, severity="error")
        elif ok:
            session_history.remember(session)
            await self.apply_preset()
            notify(self, "New session.")

    def _report_listener_failure(self, failure: ListenerFailure) -> None:
        # through the app's queue: the emit may run in a task started outside the app (the
        # prestarted agent's connection), where a toast's timer would not find the app
        self.call_later(self._show_listener_failure, failure)

    def _show_listener_failure(self, failure: ListenerFailure) -> None:
        notify(self, failure.describe(), title="Internal error (logged)", severity="error")

    def _turn_running(self) -> bool:
        return self.session.thread.turn_running  # v1 and v2 (and a replay) alike

    async def on_unmount(self) -> None:
        """However the app ends (quit, a signal, `exit()` from anywhere), the session closes:
        the agent, its terminals and the change monitor stop with the app."""
        set_failure_reporter(self._previous_reporter)
        if collector.policy.busy == self._turn_running:
            collector.policy.busy = collector.never_busy
        await self.session.close()

    async def action_quit(self) -> None:
        session_history.remember(self.session)
        # no layout or repaint while the session closes: each await of the close would
        # otherwise wait behind a frame of whatever floods the screen (seconds per step)
        with self.batch_update():
            await self.session.close()
            self.exit(0)
