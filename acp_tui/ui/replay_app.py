"""The app in replay mode: a recorded session, with play/pause/step/scrub keys."""

from __future__ import annotations

from textual.binding import Binding

from acp_tui.client.replay import ReplaySession
from acp_tui.ui.app import AcpApp
from acp_tui.ui.inspector.screen import InspectorScreen
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.workspace.tabs_app import inspector_name

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 0.0)
"""Replay speeds in order; 0 is as fast as possible."""


class ReplayApp(AcpApp):
    """The app over a `ReplaySession`: keys to pause, step back and forth and jump through the
    recording, its position in the status line."""

    BINDINGS = [
        *AcpApp.BINDINGS,
        Binding("f6", "replay_pause", "play/pause", priority=True, id="replay.pause"),
        Binding("f7", "replay_step(-1)", "back", priority=True, id="replay.back"),
        Binding("f8", "replay_step(1)", "step", priority=True, id="replay.step"),
        Binding("f9", "replay_jump(-1)", "-10%", priority=True, id="replay.rewind"),
        Binding("f10", "replay_jump(1)", "+10%", priority=True, id="replay.forward"),
        Binding("f11", "replay_speed", "speed", priority=True, id="replay.speed"),
    ]

    @property
    def replay(self) -> ReplaySession:
        """The replay session this app shows."""
        session = self.session
        assert isinstance(session, ReplaySession)
        return session

    async def on_mount(self) -> None:
        # Textual calls AcpApp.on_mount too (handlers run for every class in the MRO)
        self.replay.progress.subscribe(lambda _: self._show_progress())
        self.replay.rebuilt.subscribe(lambda _: self._rebind())
        self._show_progress()
        self.call_after_refresh(self._show_progress)  # (the main screen mounted by then)

    def _show_progress(self) -> None:
        replay = self.replay
        speed = "max" if replay.speed == 0 else f"x{replay.speed:g}"
        state = "paused" if replay.paused else "playing"
        if replay.position >= len(replay.frames):
            state = "at the end"
        position = f"{replay.position}/{len(replay.frames)} {speed} {state}"
        self.sub_title = f"replay {position} (f6 play/pause, f7/f8 step, f9/f10 ∓10%, f11 speed)"
        screen = self.current_tab.screen
        if isinstance(screen, MainScreen):  # (its status bar: Textual draws no sub-title here)
            screen.parts.status.replay = position

    def _rebind(self) -> None:
        """Going back built a new thread and store: new screens over them."""
        inspecting = isinstance(self.screen, InspectorScreen)
        tab = self.current_tab
        while len(self.screen_stack) > 1:
            self.pop_screen()
        if self.is_screen_installed(inspector_name(tab)):
            self.uninstall_screen(inspector_name(tab))
        self.rebuild_tab(tab)
        self._show_progress()
        if inspecting:
            self.action_inspector()

    def action_replay_pause(self) -> None:
        self.replay.toggle_pause()

    def action_replay_step(self, count: int) -> None:
        replay = self.replay
        if not replay.paused:
            replay.toggle_pause()
        replay.seek(replay.position + count)

    def action_replay_jump(self, direction: int) -> None:
        replay = self.replay
        replay.seek(replay.position + direction * max(1, len(replay.frames) // 10))

    def action_replay_speed(self) -> None:
        replay = self.replay
        index = SPEEDS.index(replay.speed) if replay.speed in SPEEDS else 1
        replay.speed = SPEEDS[(index + 1) % len(SPEEDS)]
        replay.seek(replay.position)  # wakes the feeder with the new pace
