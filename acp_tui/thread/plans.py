"""Turning plan updates (unstable `plan_update`) into `PlanState`."""

from __future__ import annotations

from acp_tui.protocol.models import (
    PlanFile,
    PlanItems,
    PlanMarkdown,
    PlanUpdate,
    UnknownPlanContent,
)
from acp_tui.safe_text import safe_text
from acp_tui.thread.entries import PlanState


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
