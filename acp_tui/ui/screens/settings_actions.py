"""What the main screen does for the session's settings: the mode list and the status bar's
mode, model and thought level; mode, model and option changes asked for in the sidebar or by key.

A mixin so `MainScreen` stays about the conversation; it needs `self.session`, a `ModeList`,
a `SettingsSection` and a `StatusBar` in the screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.screen import Screen

from acp_tui.thread.config_options import (
    MODEL,
    THOUGHT_LEVEL,
    mode_choices,
    option_by_category,
    value_name,
)
from acp_tui.ui.plain import notify
from acp_tui.ui.widgets.mode_list import ModeList, mode_infos
from acp_tui.ui.widgets.settings_section import SettingsSection
from acp_tui.ui.widgets.settings_text import safe_text
from acp_tui.ui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade


class SettingsActions(Screen[None]):
    """The settings' side of the main screen (a mixin of `MainScreen`): modes, model, options."""

    session: SessionFacade

    def _refresh_modes(self) -> None:
        thread = self.session.thread
        modes = self.query_one(ModeList)
        available, current_id = mode_choices(
            thread.modes, thread.current_mode_id, thread.config_options
        )
        modes.set_modes(mode_infos(available), current_id)
        current = next((m for m in modes.modes if m.id == current_id), None)
        self.query_one(StatusBar).mode = safe_text(current.name, limit=40) if current else ""

    def _refresh_model(self) -> None:
        thread = self.session.thread
        status = self.query_one(StatusBar)
        model = option_by_category(thread.config_options, MODEL)
        name = value_name(model) if model else thread.models.current_name() if thread.models else ""
        status.model = safe_text(name, limit=40)
        thought = option_by_category(thread.config_options, THOUGHT_LEVEL)
        status.thought = safe_text(value_name(thought), limit=20) if thought else ""
        status.thought_name = (safe_text(thought.name, limit=24) if thought else "") or "thinking"

    @on(ModeList.ModeChosen)
    def _mode_chosen(self, event: ModeList.ModeChosen) -> None:
        self.run_worker(self._set_mode(event.mode_id), group="mode", exclusive=True)

    async def _set_mode(self, mode_id: str) -> None:
        error = await self.session.choose_mode(mode_id)
        if error is not None:
            notify(self, f"Could not switch mode: {error}", severity="error")
        self._refresh_modes()

    @on(SettingsSection.ChangeRequested)
    def _config_change(self, event: SettingsSection.ChangeRequested) -> None:
        self.run_worker(self._set_config(event.config_id, event.value), group="config")

    async def _set_config(self, config_id: str, value: str | bool) -> None:
        error = await self.session.set_config_option(config_id, value)
        if error is not None:
            notify(self, f"Could not change the setting: {error}", severity="error")

    @on(SettingsSection.ModelRequested)
    def _model_change(self, event: SettingsSection.ModelRequested) -> None:
        self.run_worker(self._set_model(event.model_id), group="config")

    async def _set_model(self, model_id: str) -> None:
        error = await self.session.set_model(model_id)
        if error is not None:
            notify(self, f"Could not change the model: {error}", severity="error")

    def action_pick_model(self) -> None:
        """Open the picker of the agent's models."""
        self.pick_setting(MODEL)

    def pick_setting(self, category: str) -> None:
        """Open the quick picker of the model (or thought level) option."""
        if not self.query_one(SettingsSection).pick_category(category):
            what = "models" if category == MODEL else "thought levels"
            notify(self, f"{self.session.agent_name} offers no choice of {what}.")

    def action_cycle_mode(self) -> None:
        """Switch to the agent's next session mode."""
        mode_id = self.query_one(ModeList).next_mode_id()
        if mode_id is not None:
            self.run_worker(self._set_mode(mode_id), group="mode", exclusive=True)
