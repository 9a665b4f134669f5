"""Session configuration as data: config options (stable) and the unstable `models` list.

Config options arrive in `session/new`/`load`/`resume`/`fork` answers, in the answer to
`session/set_config_option` (always the full list) and in `config_option_update`. An agent may
also describe its models with the older, unstable `models` object (`availableModels`,
`currentModelId`) and take `session/set_model`; `ModelState` is that pair.

Helpers here answer the questions the UI asks: which option is the model, the thought level,
the mode; what the current value of an option is called; how a select's choices are grouped.
No I/O, no UI.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import TypeAdapter, ValidationError

from acp_tui.protocol.models import (
    SessionConfigBoolean,
    SessionConfigOption,
    SessionConfigSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
    SessionMode,
)

MODEL = "model"
THOUGHT_LEVEL = "thought_level"
MODE = "mode"


@cache
def _config_option() -> TypeAdapter[SessionConfigOption]:
    """Built at first use, like the models' validators: not on the way to the first frame."""
    return TypeAdapter(SessionConfigOption)


def parse_config_options(options: Sequence[SessionConfigOption | Any]) -> list[SessionConfigOption]:
    """Config options from models or raw dicts; invalid items are skipped (as the schema says)."""
    parsed: list[SessionConfigOption] = []
    for option in options:
        try:
            parsed.append(_config_option().validate_python(option))
        except ValidationError:
            continue
    return parsed


def option_by_category(
    options: Sequence[SessionConfigOption], category: str
) -> SessionConfigSelect | None:
    """The first select option of this category (`model`, `thought_level`, `mode`), if any."""
    for option in options:
        if isinstance(option, SessionConfigSelect) and option.category == category:
            return option
    return None


def option_by_id(
    options: Sequence[SessionConfigOption], config_id: str
) -> SessionConfigOption | None:
    return next((option for option in options if option.id == config_id), None)


def value_name(option: SessionConfigOption) -> str:
    """What the current value is called: the choice's name for a select, on/off for a boolean."""
    if isinstance(option, SessionConfigBoolean):
        return "on" if option.current_value else "off"
    choice = next((c for c in option.flat_options() if c.value == option.current_value), None)
    return choice.name if choice is not None else option.current_value


@dataclass(frozen=True)
class ChoiceGroup:
    """Choices under one heading (`name` None: the ungrouped choices of a flat list)."""

    name: str | None
    choices: list[SessionConfigSelectOption]


def choice_groups(option: SessionConfigSelect) -> list[ChoiceGroup]:
    """A select's choices as groups, in order (a flat list is one group without a name)."""
    groups: list[ChoiceGroup] = []
    loose: list[SessionConfigSelectOption] = []
    for item in option.options:
        if isinstance(item, SessionConfigSelectGroup):
            groups.append(ChoiceGroup(item.name, list(item.options)))
        else:
            loose.append(item)
    if loose:
        groups.insert(0, ChoiceGroup(None, loose))
    return groups


def with_value(option: SessionConfigOption, value: str | bool) -> SessionConfigOption:
    """A copy of `option` with a new current value (the agent's answer may replace it later)."""
    return option.model_copy(update={"current_value": value})


def mode_option_at(
    options: Sequence[SessionConfigOption], mode_id: str
) -> list[SessionConfigOption] | None:
    """`options` with the `mode` option set to `mode_id` (a mode switched through
    `session/set_mode` or `current_mode_update`), or None when it has no such value or
    already shows it."""
    option = option_by_category(options, MODE)
    if option is None or option.current_value == mode_id:
        return None
    if all(choice.value != mode_id for choice in option.flat_options()):
        return None
    return [with_value(o, mode_id) if o is option else o for o in options]


# ---- unstable: models ------------------------------------------------------------------------


@dataclass(frozen=True)
class ModelInfo:
    id: str
    name: str
    description: str | None = None


@dataclass(frozen=True)
class ModelState:
    """The unstable `models` object: the models an agent offers and the current one."""

    current_id: str
    available: list[ModelInfo] = field(default_factory=list)

    @property
    def current(self) -> ModelInfo | None:
        return next((m for m in self.available if m.id == self.current_id), None)

    def current_name(self) -> str:
        current = self.current
        return current.name if current is not None else self.current_id


def parse_models(raw: Any) -> ModelState | None:
    """`{"availableModels": [{modelId, name, description?}], "currentModelId"}`; None if unusable.

    Items that are not models are skipped; a missing or non-string current id drops the whole.
    """
    if not isinstance(raw, dict):
        return None
    current = raw.get("currentModelId")
    if not isinstance(current, str):
        return None
    available: list[ModelInfo] = []
    items = raw.get("availableModels")
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("modelId"), str):
            continue
        name = item.get("name")
        description = item.get("description")
        available.append(
            ModelInfo(
                item["modelId"],
                name if isinstance(name, str) and name else item["modelId"],
                description if isinstance(description, str) else None,
            )
        )
    return ModelState(current, available)


def mode_choices(
    modes: Sequence[SessionMode],
    current_mode_id: str | None,
    options: Sequence[SessionConfigOption],
) -> tuple[list[SessionMode], str | None]:
    """The modes to offer: the agent's `modes`, else the choices of its `mode` config option."""
    if modes:
        return list(modes), current_mode_id
    option = option_by_category(options, MODE)
    if option is None:
        return [], None
    choices = [
        SessionMode(id=c.value, name=c.name, description=c.description)
        for c in option.flat_options()
    ]
    return choices, option.current_value
