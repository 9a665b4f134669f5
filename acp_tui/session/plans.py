"""Turning plan updates (unstable `plan_update`) into `PlanState`, and config option parsing."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from acp_tui.protocol.models import (
    PlanFile,
    PlanItems,
    PlanMarkdown,
    PlanUpdate,
    SessionConfigOption,
    UnknownPlanContent,
)
from acp_tui.safe_text import safe_text

from .entries import PlanState

_CONFIG_OPTION: TypeAdapter[SessionConfigOption] = TypeAdapter(SessionConfigOption)


def plan_state(update: PlanUpdate) -> PlanState | None:
    """The plan an update describes; None for an unknown plan type without an id."""
    plan = update.plan
    if isinstance(plan, PlanItems):
        return PlanState(plan.plan_id, "items", entries=list(plan.entries), meta=plan.meta)
    if isinstance(plan, PlanFile):
        return PlanState(plan.plan_id, "file", uri=plan.uri, meta=plan.meta)
    if isinstance(plan, PlanMarkdown):
        return PlanState(plan.plan_id, "markdown", markdown=plan.content, meta=plan.meta)
    assert isinstance(plan, UnknownPlanContent)
    if plan.plan_id is None:
        return None
    # an unknown plan type is kept raw; its id and type are shown, so made safe here
    plan_id, kind = safe_text(plan.plan_id), safe_text(str(plan.raw.get("type")))
    return PlanState(plan_id, kind, meta=update.meta, raw=plan.raw)


def parse_config_options(options: Sequence[SessionConfigOption | Any]) -> list[SessionConfigOption]:
    """Config options from models or raw dicts; invalid items are skipped."""
    parsed: list[SessionConfigOption] = []
    for option in options:
        try:
            parsed.append(_CONFIG_OPTION.validate_python(option))
        except ValidationError:
            continue
    return parsed
