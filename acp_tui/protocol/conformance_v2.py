"""What the inspector's checker judges differently when the agent answered ACP v2 (the current
draft, ../shared/acp-schema/current/v2): the v2 methods and answers, the v2 session updates and
the values the v2 models keep as plain strings. The rest (JSON-RPC bookkeeping, session ids,
repairs recorded by the models) is `conformance.py`'s, for both versions.

A connection is v2 from the `initialize` answer that says `protocolVersion: 2` on; until then
(and for an agent that answers 1 to the v2 offer) the v1 rules hold.
"""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel

from acp_tui.protocol import methods
from acp_tui.protocol.absolute_paths import is_absolute_path
from acp_tui.protocol.models import (
    TOOL_CALL_STATUSES,
    TOOL_KINDS,
    AuthStatusUpdateNotification,
    MessageMcpRequest,
    SetSessionConfigOptionResponse,
    UnknownUpdate,
)
from acp_tui.protocol.models._base import note_repair
from acp_tui.protocol.models.v2 import (
    BACKGROUND_KINDS,
    RequestPermissionRequestV2,
    V2ForkSessionResponse,
    V2InitializeResponse,
    V2NewSessionResponse,
    V2PromptResponse,
    V2ResumeSessionResponse,
    parse_v2_update,
    v1_config_options,
)
from acp_tui.protocol.models.work_state import WORK_STATES

V2_AGENT_REQUESTS: Final[dict[str, type[BaseModel] | None]] = {
    methods.SESSION_REQUEST_PERMISSION: RequestPermissionRequestV2,
    methods.ELICITATION_CREATE: None,
    methods.MCP_MESSAGE: MessageMcpRequest,  # unstable: answered "method not found"
}
"""The requests a v2 agent may send (v2 dropped fs/* and terminal/*)."""

V2_AGENT_NOTIFICATIONS: Final[dict[str, type[BaseModel] | None]] = {
    methods.SESSION_UPDATE: None,  # checked by hand: `read_update`
    methods.ELICITATION_COMPLETE: None,
    methods.CANCEL_REQUEST: None,
    methods.AUTH_STATUS_UPDATE: AuthStatusUpdateNotification,  # unstable
}

V2_RESULTS: Final[dict[str, type[BaseModel]]] = {
    methods.INITIALIZE: V2InitializeResponse,
    methods.SESSION_NEW: V2NewSessionResponse,
    methods.SESSION_RESUME: V2ResumeSessionResponse,
    methods.SESSION_FORK: V2ForkSessionResponse,
    methods.SESSION_PROMPT: V2PromptResponse,
    methods.SESSION_SET_CONFIG_OPTION: SetSessionConfigOptionResponse,
}
"""The models of the v2 answers the checker validates (config options read as v1's)."""

V2_STOP_REASONS: Final = ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled",
                          "error")  # fmt: skip
V2_TOOL_CALL_STATUSES: Final = (*TOOL_CALL_STATUSES, "paused")


def v1_shaped(result: Any) -> Any:
    """A v2 answer with its config options named as v1 names them (`configId` → `id`), so the
    v1 option models judge them (as the session reads them)."""
    if type(result) is dict and type(result.get("configOptions")) is list:
        return {**result, "configOptions": v1_config_options(result["configOptions"])}
    return result


def read_update(raw: Any) -> None:
    """Read a v2 update the way the session does, recording what the models repair; a kind v2
    does not have (`tool_call`, `plan`, `current_mode_update`, or an unknown one) is noted."""
    update = parse_v2_update(raw)
    if isinstance(update, UnknownUpdate) and type(raw) is dict:
        kind = raw.get("sessionUpdate")
        if kind in ("tool_call", "plan", "current_mode_update"):
            note_repair("unknown", f"session update {kind!r} (not in v2)")


def value_problems(method: str, params: dict[str, Any]) -> list[tuple[str, str]]:
    """What the v2 models keep as plain strings: (kind of problem, detail) for enum values out
    of the draft and paths it wants absolute. Kinds: "unknown", "relative"."""
    found: list[tuple[str, str]] = []
    if method == methods.SESSION_UPDATE:
        update = params.get("update")
        if type(update) is not dict:
            return found
        kind = update.get("sessionUpdate")
        if kind == "tool_call_update":
            _tool_call(update, "tool_call_update", found)
        elif kind == "state_update":
            _state(update, found)
        elif kind == "terminal_update":
            _path(update.get("cwd"), "terminal_update cwd", found)
    elif method == methods.SESSION_REQUEST_PERMISSION:
        subject = params.get("subject")
        tool_call = subject.get("toolCall") if type(subject) is dict else None
        if type(tool_call) is dict:
            _tool_call(tool_call, "permission toolCall", found)
    return found


def _state(update: dict[str, Any], found: list[tuple[str, str]]) -> None:
    state = update.get("state")
    if isinstance(state, str) and state not in WORK_STATES:
        found.append(("unknown", f"state {state!r}"))
    reason = update.get("stopReason")
    if isinstance(reason, str) and reason not in V2_STOP_REASONS:
        found.append(("unknown", f"stopReason {reason!r}"))
    background = update.get("background")
    for item in background if type(background) is list else ():
        kind = item.get("type") if type(item) is dict else None
        if isinstance(kind, str) and kind not in BACKGROUND_KINDS:
            found.append(("unknown", f"background work {kind!r}"))


def _tool_call(call: dict[str, Any], what: str, found: list[tuple[str, str]]) -> None:
    kind = call.get("kind")
    if isinstance(kind, str) and kind not in TOOL_KINDS:
        found.append(("unknown", f"{what} kind {kind!r}"))
    status = call.get("status")
    if isinstance(status, str) and status not in V2_TOOL_CALL_STATUSES:
        found.append(("unknown", f"{what} status {status!r}"))
    locations = call.get("locations")
    for location in locations if type(locations) is list else ():
        if type(location) is dict:
            _path(location.get("path"), f"{what} location", found)
    content = call.get("content")
    for item in content if type(content) is list else ():
        if type(item) is dict and item.get("type") == "diff":
            changes = item.get("changes")
            for change in changes if type(changes) is list else ():
                if type(change) is dict:
                    _path(change.get("path"), f"{what} diff path", found)


def _path(path: Any, what: str, found: list[tuple[str, str]]) -> None:
    if isinstance(path, str) and not is_absolute_path(path):
        found.append(("relative", f"{what} {path!r}"))
