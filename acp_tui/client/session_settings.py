"""Applying an agent preset's defaults once its session is open (model, mode, config options),
and carrying one session's settings into another.

Each default goes through `session/config.py` (`set_config_option`, `set_model`, `choose_mode`);
a value the session already has is not sent again. A failure is a message for the user (the
session goes on). Nothing here imports Textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from acp_tui.client.session.config import choose_mode, set_config_option, set_model
from acp_tui.presets import Preset
from acp_tui.thread.config_options import MODE, MODEL, option_by_category, option_by_id

if TYPE_CHECKING:
    from acp_tui.client.session.agent_session import AgentSession


@dataclass(frozen=True)
class Settings:
    """Values to set on a session: a model (config option or unstable `models`), a mode (modes
    or the `mode` option) and config option values by id."""

    model: str | None = None
    mode: str | None = None
    config: Mapping[str, str | bool] = field(default_factory=dict)


def current_settings(session: AgentSession) -> Settings:
    """What the session is set to now (to carry into another session): every config option's
    value, the current mode when the agent has modes, the unstable model when it has those."""
    thread = session.thread
    config = {o.id: o.current_value for o in thread.config_options}
    mode = thread.current_mode_id if thread.modes else None
    model = thread.models.current_id if thread.models is not None else None
    return Settings(model=model, mode=mode, config=config)


async def apply_defaults(session: AgentSession, preset: Preset) -> list[str]:
    """Set the preset's model, mode and config values; one message per one that failed."""
    settings = Settings(preset.model, preset.mode, preset.config)
    problems = await apply_settings(session, settings)
    return [f"Preset {preset.name}: {problem}" for problem in problems]


async def apply_settings(session: AgentSession, settings: Settings) -> list[str]:
    """Set `settings` (values the session has already are not sent); one message per failure."""
    problems: list[str] = []
    if settings.model is not None:
        error = await _apply_model(session, settings.model)
        if error is not None:
            problems.append(f"model {settings.model!r}: {error}")
    if settings.mode is not None:
        error = await _apply_mode(session, settings.mode)
        if error is not None:
            problems.append(f"mode {settings.mode!r}: {error}")
    for config_id, value in settings.config.items():
        error = await _apply_option(session, config_id, value)
        if error is not None:
            problems.append(f"option {config_id!r}: {error}")
    return problems


async def _apply_model(session: AgentSession, model_id: str) -> str | None:
    thread = session.thread
    option = option_by_category(thread.config_options, MODEL)
    if option is not None:
        if option.current_value == model_id:
            return None
        values = [choice.value for choice in option.flat_options()]
        if model_id not in values:
            return f"not one of the agent's models ({_choices(values)})"
        return await set_config_option(session, option.id, model_id)
    if thread.models is not None:
        if thread.models.current_id == model_id:
            return None
        ids = [model.id for model in thread.models.available]
        if model_id not in ids:
            return f"not one of the agent's models ({_choices(ids)})"
        return await set_model(session, model_id)
    return "the agent offers no model choice"


async def _apply_mode(session: AgentSession, mode_id: str) -> str | None:
    thread = session.thread
    if thread.modes:
        if thread.current_mode_id == mode_id:
            return None
        if mode_id not in {mode.id for mode in thread.modes}:
            return f"not one of the agent's modes ({_choices([m.id for m in thread.modes])})"
    else:
        option = option_by_category(thread.config_options, MODE)
        if option is None:
            return "the agent offers no modes"
        if option.current_value == mode_id:
            return None
    return await choose_mode(session, mode_id)


async def _apply_option(session: AgentSession, config_id: str, value: str | bool) -> str | None:
    option = option_by_id(session.thread.config_options, config_id)
    if option is None:
        known = _choices([o.id for o in session.thread.config_options])
        return f"the agent has no such option ({known})" if known else "the agent has no options"
    if option.current_value == value:
        return None
    if isinstance(option.current_value, bool) != isinstance(value, bool):
        kind = "true or false" if isinstance(option.current_value, bool) else "a string"
        return f"must be {kind}"
    return await set_config_option(session, config_id, value)


def _choices(items: list[str]) -> str:
    shown = ", ".join(str(i) for i in items[:8])
    return shown + (", …" if len(items) > 8 else "")
