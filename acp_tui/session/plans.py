"""Turning plan updates (unstable `plan_update`) into `PlanState`."""

from __future__ import annotations

from acp_tui.protocol.models import (
    PlanFile,
    PlanItems,
    PlanMarkdown,
    PlanUpdate,
    UnknownPlanContent,
)

from .entries import PlanState


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
    return PlanState(plan.plan_id, str(plan.raw.get("type")), meta=update.meta, raw=plan.raw)
