"""Unstable state snapshots (schema.unstable.json, SDK 2.4.0): what a session's foreground work
is doing now, as a whole object: `running`, `idle` (with its `stopReason`, its `usage`, and for
`error` the JSON-RPC error that ended it), `requires_action`, `unknown`, or a newer state kept as
its string. A subagent session's `state` (v1) and v2's `state_update` carry one.
"""

from __future__ import annotations

from typing import Annotated, Any

from ._base import AcpModel, DefaultOnError, DisplayStr, OptDisplayStr, OptUInt

WORK_STATES = ("running", "idle", "requires_action", "unknown")
"""The state snapshots the schema names (a newer one is kept as its string)."""


class Usage(AcpModel):
    """Token usage of finished foreground work."""

    total_tokens: OptUInt = None
    input_tokens: OptUInt = None
    output_tokens: OptUInt = None
    thought_tokens: OptUInt = None
    cached_read_tokens: OptUInt = None
    cached_write_tokens: OptUInt = None


class ErrorDetails(AcpModel):
    """The JSON-RPC error an `error` stop reason carries."""

    code: Annotated[int | None, DefaultOnError] = None
    message: OptDisplayStr = None
    data: Annotated[Any, DefaultOnError] = None


class WorkState(AcpModel):
    """A state snapshot: what the session's foreground work is doing now (a whole object)."""

    state: DisplayStr
    stop_reason: OptDisplayStr = None
    """`idle` only: why the work stopped (`end_turn`, …, `error`); None when not reported."""
    usage: Annotated[Usage | None, DefaultOnError] = None
    error: Annotated[ErrorDetails | None, DefaultOnError] = None
    """`idle` with stop reason `error`: what failed."""

    @property
    def error_text(self) -> str | None:
        """The failure in words, when the work stopped with an error."""
        if self.stop_reason != "error":
            return None
        error = self.error
        if error is None or not error.message:
            return "the agent reported an error"
        return error.message if error.code is None else f"{error.message} ({error.code})"


__all__ = ["WORK_STATES", "ErrorDetails", "Usage", "WorkState"]
