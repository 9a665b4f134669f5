"""Session state the agent describes: modes, config options, commands, plan entries, cost."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, ValidationError

from ._base import (
    AcpModel,
    DefaultOnError,
    DisplayStr,
    OptDisplayStr,
    SkipInvalidItems,
    parse_with,
)


class SessionMode(AcpModel):
    """A mode the agent can run in (e.g. "ask", "code")."""

    id: str
    name: DisplayStr
    description: OptDisplayStr = None


class SessionModeState(AcpModel):
    """The modes an agent offers and the current one (from session/new or session/load)."""

    current_mode_id: str
    available_modes: Annotated[list[SessionMode], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )


class SessionConfigSelectOption(AcpModel):
    """One value a select config option can take."""

    value: str
    name: DisplayStr
    description: OptDisplayStr = None


class SessionConfigSelectGroup(AcpModel):
    """A named group of select values (e.g. models by provider)."""

    group: str
    name: DisplayStr
    options: Annotated[list[SessionConfigSelectOption], SkipInvalidItems, DefaultOnError] = Field(
        default_factory=list
    )


CONFIG_CATEGORIES = ("mode", "model", "model_config", "thought_level")
"""Known `category` values; any other string is allowed too."""


class _ConfigOptionBase(AcpModel):
    id: str
    name: DisplayStr
    description: OptDisplayStr = None
    category: OptDisplayStr = None


class SessionConfigSelect(_ConfigOptionBase):
    """A config option picked from a list (options may be grouped)."""

    type: Literal["select"] = "select"
    current_value: str
    options: list[SessionConfigSelectOption] | list[SessionConfigSelectGroup]

    def flat_options(self) -> list[SessionConfigSelectOption]:
        """All options, groups flattened in order."""
        flat: list[SessionConfigSelectOption] = []
        for item in self.options:
            if isinstance(item, SessionConfigSelectGroup):
                flat.extend(item.options)
            else:
                flat.append(item)
        return flat


class SessionConfigBoolean(_ConfigOptionBase):
    """An on/off config option."""

    type: Literal["boolean"] = "boolean"
    current_value: bool


_CONFIG_TYPES: dict[str, type[SessionConfigSelect | SessionConfigBoolean]] = {
    "select": SessionConfigSelect,
    "boolean": SessionConfigBoolean,
}


def _parse_config_option(raw: Any) -> SessionConfigSelect | SessionConfigBoolean:
    if isinstance(raw, SessionConfigSelect | SessionConfigBoolean):
        return raw
    if not isinstance(raw, dict) or raw.get("type") not in _CONFIG_TYPES:
        raise ValueError("config option must be an object of type 'select' or 'boolean'")
    try:
        return _CONFIG_TYPES[raw["type"]].model_validate(raw)
    except ValidationError as error:
        raise ValueError(f"invalid config option: {error}") from None


SessionConfigOption = Annotated[
    SessionConfigSelect | SessionConfigBoolean, parse_with(_parse_config_option)
]
ConfigOptionList = Annotated[list[SessionConfigOption], SkipInvalidItems, DefaultOnError]


class UnstructuredCommandInput(AcpModel):
    """A slash command takes free text after its name; `hint` says what to type."""

    hint: DisplayStr


class AvailableCommand(AcpModel):
    """A slash command the agent offers."""

    name: DisplayStr
    description: DisplayStr
    input: Annotated[UnstructuredCommandInput | None, DefaultOnError] = None


PLAN_PRIORITIES = ("high", "medium", "low")
PLAN_STATUSES = ("pending", "in_progress", "completed")


class PlanEntry(AcpModel):
    """One step of an agent's plan (priority and status are plain strings)."""

    content: DisplayStr
    priority: DisplayStr
    status: DisplayStr


PlanEntryList = Annotated[list[PlanEntry], SkipInvalidItems, DefaultOnError]


class Cost(AcpModel):
    """What the session has cost so far, in a currency the agent names."""

    amount: float
    currency: DisplayStr


__all__ = [
    "CONFIG_CATEGORIES",
    "PLAN_PRIORITIES",
    "PLAN_STATUSES",
    "AvailableCommand",
    "ConfigOptionList",
    "Cost",
    "PlanEntry",
    "PlanEntryList",
    "SessionConfigBoolean",
    "SessionConfigOption",
    "SessionConfigSelect",
    "SessionConfigSelectGroup",
    "SessionConfigSelectOption",
    "SessionMode",
    "SessionModeState",
    "UnstructuredCommandInput",
]
