"""Applying an agent preset's defaults once its session is open: model, mode, config options.

Each default goes through `session_config` (`set_config_option`, `set_model`, `choose_mode`);
a value the session already has is not sent again. A failure is a message for the user (the
session goes on). Nothing here imports Textual.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.client.session_config import choose_mode, set_config_option, set_model
from acp_tui.presets import Preset
from acp_tui.session.config_options import MODE, MODEL, option_by_category, option_by_id

if TYPE_CHECKING:
    from acp_tui.client.agent_session import AgentSession


async def apply_defaults(session: AgentSession, preset: Preset) -> list[str]:
    """Set the preset's model, mode and config values; one message per one that failed."""
    problems: list[str] = []
    if preset.model is not None:
        error = await _apply_model(session, preset.model)
        if error is not None:
            problems.append(f"model {preset.model!r}: {error}")
    if preset.mode is not None:
        error = await _apply_mode(session, preset.mode)
        if error is not None:
            problems.append(f"mode {preset.mode!r}: {error}")
    for config_id, value in preset.config.items():
        error = await _apply_option(session, config_id, value)
        if error is not None:
            problems.append(f"option {config_id!r}: {error}")
    return [f"Preset {preset.name}: {problem}" for problem in problems]


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
