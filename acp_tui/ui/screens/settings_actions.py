"""What the main screen does for the session's settings: the mode list and the status bar's
mode, model and thought level; mode, model and option changes asked for in the sidebar or by key.

An object the `MainScreen` owns (`setting_actions`), so the screen stays about the
conversation; it needs a `ModeList`, a `SettingsSection` and a `StatusBar` in the screen, whose
actions and message handlers for these delegate to it.

shift+tab only moves what is selected on screen (the mode list's highlight, the status bar's
"mode: → NAME"); the agent is asked for the mode once, `MODE_SETTLE` seconds after the last
press, so cycling never runs the agent through the modes on the way (a turn running then would
get each). A mode that lets the agent act without asking (`skips_permissions`) is set only after
the user confirms it, whether reached by shift+tab or picked in the sidebar.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.timer import Timer

from acp_tui.host.asker import Choice, Question
from acp_tui.thread.config_options import (
    MODEL,
    THOUGHT_LEVEL,
    mode_choices,
    option_by_category,
    value_name,
)
from acp_tui.thread.permissive_modes import skips_permissions
from acp_tui.ui.plain import notify
from acp_tui.ui.widgets.mode_list import ModeList, mode_infos
from acp_tui.ui.widgets.settings_section import SettingsSection
from acp_tui.ui.widgets.settings_text import safe_text
from acp_tui.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade
    from acp_tui.ui.screens.session_screen_port import SessionScreenPort


MODE_SETTLE = 0.8
"""Seconds after the last shift+tab before the mode selected is set on the agent."""
PERMISSIVE_MODE = "permissive_mode"
SWITCH = "switch"
STAY = "stay"


class SettingsActions:
    """The settings' side of a main screen (owned by it): modes, model, options."""

    def __init__(self, screen: SessionScreenPort) -> None:
        self.screen = screen
        self._mode_timer: Timer | None = None
        self.pending_mode: str | None = None
        """The mode shift+tab selected, not yet asked of the agent."""

    @property
    def session(self) -> SessionFacade:
        return self.screen.session

    def refresh_modes(self) -> None:
        """The mode list and the status bar's mode, as the session has them."""
        thread = self.session.thread
        screen = self.screen
        modes = screen.query_one(ModeList)
        available, current_id = mode_choices(
            thread.modes, thread.current_mode_id, thread.config_options
        )
        modes.set_modes(mode_infos(available), current_id)
        current = next((m for m in modes.modes if m.id == current_id), None)
        pending = next((m for m in modes.modes if m.id == self.pending_mode), None)
        if pending is not None and pending.id != current_id:
            screen.query_one(StatusBar).mode = "→ " + safe_text(pending.name, limit=40)
            return
        screen.query_one(StatusBar).mode = safe_text(current.name, limit=40) if current else ""

    def refresh_model(self) -> None:
        """The status bar's model and thought level, as the session has them."""
        thread = self.session.thread
        status = self.screen.query_one(StatusBar)
        model = option_by_category(thread.config_options, MODEL)
        name = value_name(model) if model else thread.models.current_name() if thread.models else ""
        status.model = safe_text(name, limit=40)
        thought = option_by_category(thread.config_options, THOUGHT_LEVEL)
        status.thought = safe_text(value_name(thought), limit=20) if thought else ""
        status.thought_name = (safe_text(thought.name, limit=24) if thought else "") or "thinking"

    def mode_chosen(self, event: ModeList.ModeChosen) -> None:
        """A mode picked in the sidebar: set (confirmed first if it asks nothing)."""
        self.screen.run_worker(self._set_mode(event.mode_id), group="mode", exclusive=True)

    async def _set_mode(self, mode_id: str) -> None:
        if not await self._confirmed(mode_id):
            notify(self.screen, "Mode not changed.")
            self.refresh_modes()
            return
        error = await self.session.choose_mode(mode_id)
        if error is not None:
            notify(self.screen, f"Could not switch mode: {error}", severity="error")
        self.refresh_modes()

    async def _confirmed(self, mode_id: str) -> bool:
        """True, unless the mode lets the agent act without asking and the user does not
        confirm it."""
        from acp_tui.ui.screens.question import QuestionScreen  # (only when asked)

        mode = next((m for m in self.screen.query_one(ModeList).modes if m.id == mode_id), None)
        name, description = (mode.name, mode.description) if mode else (mode_id, None)
        if not skips_permissions(mode_id, name, description):
            return True
        agent = self.session.agent_name
        question = Question(
            kind=PERMISSIVE_MODE,
            title=f"Switch {agent} to {name}?",
            detail=(
                f"{name}{f' ({description})' if description else ''} lets {agent} edit files "
                "and run commands without asking you first. Switch to it?"
            ),
            # staying first: the choice Enter takes, and what Esc means
            choices=(Choice(STAY, "Stay", "n"), Choice(SWITCH, f"Switch to {name}", "s")),
            data={"mode": mode_id},
        )
        return await self.screen.app.push_screen_wait(QuestionScreen(question)) == SWITCH

    def config_change(self, event: SettingsSection.ChangeRequested) -> None:
        """An option changed in the sidebar: asked of the agent."""
        self.screen.run_worker(self._set_config(event.config_id, event.value), group="config")

    async def _set_config(self, config_id: str, value: str | bool) -> None:
        error = await self.session.set_config_option(config_id, value)
        if error is not None:
            notify(self.screen, f"Could not change the setting: {error}", severity="error")

    def model_change(self, event: SettingsSection.ModelRequested) -> None:
        """A model picked in the sidebar: asked of the agent."""
        self.screen.run_worker(self._set_model(event.model_id), group="config")

    async def _set_model(self, model_id: str) -> None:
        error = await self.session.set_model(model_id)
        if error is not None:
            notify(self.screen, f"Could not change the model: {error}", severity="error")

    def pick_setting(self, category: str) -> None:
        """Open the quick picker of the model (or thought level) option."""
        if not self.screen.query_one(SettingsSection).pick_category(category):
            what = "models" if category == MODEL else "thought levels"
            notify(self.screen, f"{self.session.agent_name} offers no choice of {what}.")

    def cycle_mode(self) -> None:
        """Select the agent's next session mode; it is set once the presses stop."""
        modes = self.screen.query_one(ModeList)
        mode_id = modes.next_mode_id()
        if mode_id is None:
            return
        self.pending_mode = mode_id
        modes.highlight_mode(mode_id)
        self.refresh_modes()
        if self._mode_timer is not None:
            self._mode_timer.stop()
        self._mode_timer = self.screen.set_timer(MODE_SETTLE, self._settle_mode)

    def _settle_mode(self) -> None:
        """The presses stopped: ask the agent for the mode selected (if it is not in force)."""
        mode_id, self.pending_mode, self._mode_timer = self.pending_mode, None, None
        if mode_id is None or mode_id == self.screen.query_one(ModeList).current:
            self.refresh_modes()
            return
        self.screen.run_worker(self._set_mode(mode_id), group="mode", exclusive=True)
