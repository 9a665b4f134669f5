"""Reading the answer to `session/request_permission`: which option it selected (a light module,
stdlib only, so the demo agent can use it too; `RequestPermissionResponse` is the model)."""

from __future__ import annotations

from typing import Any


def selected_option_id(answer: Any) -> str | None:
    """The `optionId` an answer (`{"outcome": {"outcome": "selected", "optionId": ...}}`)
    selected; None when it was cancelled or is malformed."""
    outcome = answer.get("outcome") if isinstance(answer, dict) else None
    if not isinstance(outcome, dict) or outcome.get("outcome") != "selected":
        return None
    option_id = outcome.get("optionId")
    return option_id if isinstance(option_id, str) else None
