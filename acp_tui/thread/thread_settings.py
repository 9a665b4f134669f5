"""The session's settings as the thread keeps them: modes, config options, models, commands.

A part `Thread` owns (`Thread.settings`): the agent's modes and config options follow each
other (an agent with both may report only one), and every change is emitted on the thread's
signal, which the part is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from acp_tui.protocol.models import (
    AvailableCommand,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    SessionConfigOption,
    SessionMode,
    SessionModeState,
)
from acp_tui.signal import Signal
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.config_options import (
    MODE,
    ModelState,
    mode_option_at,
    option_by_category,
    parse_config_options,
)


class ThreadSettings:
    """Modes, config options, models and commands of a session (see the module docstring)."""

    def __init__(self, changed: Signal[ch.Change]) -> None:
        self.changed = changed
        self.modes: list[SessionMode] = []
        self.current_mode_id: str | None = None
        self.commands: list[AvailableCommand] = []
        self.config_options: list[SessionConfigOption] = []
        self.models: ModelState | None = None

    def reset(self) -> None:
        """Forget the session's settings (another session opens in the thread)."""
        self.modes = []
        self.current_mode_id = None
        self.commands = []
        self.config_options = []
        self.models = None

    def on_commands(self, update: AvailableCommandsUpdate) -> None:
        self.commands = list(update.available_commands)
        self.changed.emit(ch.CommandsChanged())

    def on_current_mode(self, update: CurrentModeUpdate) -> None:
        self.set_current_mode(update.current_mode_id)

    def on_config_options(self, update: ConfigOptionUpdate) -> None:
        self.set_config_options(update.config_options)

    def set_current_mode(self, mode_id: str) -> None:
        """The current mode (after session/set_mode or a current_mode_update); emits if changed."""
        if mode_id != self.current_mode_id:
            self.current_mode_id = mode_id
            self.changed.emit(ch.CurrentModeChanged(mode_id))
        # an agent with both (Vibe) may tell only one of them: its `mode` option follows
        synced = mode_option_at(self.config_options, mode_id)
        if synced is not None:
            self.set_config_options(synced)

    def set_modes(self, state: SessionModeState | None) -> None:
        """The modes from a session/new or session/load response (None: no modes)."""
        self.modes = list(state.available_modes) if state is not None else []
        current = state.current_mode_id if state is not None else None
        moved = current != self.current_mode_id
        self.current_mode_id = current  # in place before either is told: one refresh shows both
        self.changed.emit(ch.ModesChanged())
        if moved:
            self.changed.emit(ch.CurrentModeChanged(current))

    def set_config_options(self, options: Sequence[SessionConfigOption | Any] | None) -> None:
        """The config options from a session response or config_option_update (None: none).

        Raw dicts are accepted too (parsed here; invalid ones are skipped, as the schema says).
        """
        self.config_options = parse_config_options(options or [])
        self.changed.emit(ch.ConfigOptionsChanged())
        # ... and the modes follow the `mode` option the agent answered with
        mode = option_by_category(self.config_options, MODE)
        if mode is not None and any(m.id == mode.current_value for m in self.modes):
            self.set_current_mode(mode.current_value)

    def set_models(self, models: ModelState | None) -> None:
        """The unstable `models` state from a session response (None: the agent has none)."""
        if models != self.models:
            self.models = models
            self.changed.emit(ch.ModelsChanged())

    def set_current_model(self, model_id: str) -> None:
        """The current model after `session/set_model` succeeded."""
        if self.models is not None and model_id != self.models.current_id:
            self.models = ModelState(model_id, self.models.available)
            self.changed.emit(ch.ModelsChanged())
