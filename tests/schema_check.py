"""Validate frames acp-tui sends against the ACP schema, v1 or the v2 draft.

The schema followed is `current` (the schemas of @agentclientprotocol/sdk 2.4.0: v1 stable and
unstable, the v2 draft); the August pins (v1 1.21.0, v2 alpha.3) stay readable as the `august`
era, for the tests that show the older shapes still read. `schema_file` is the one place that
knows where the schemas are.

The schema's top-level `anyOf` accepts any params for any method, so on top of that we check
each frame's params/result against the exact definition its method calls for. A
`FrameValidator(version=2)` checks against the v2 draft's tables; the `initialize` offer of v2
(which also carries the v1 fields, for agents that answer v1) is checked against both.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal

from jsonschema import Draft202012Validator

SCHEMA_ROOT = Path(__file__).resolve().parent / "data" / "acp-schema"
"""The vendored schemas (tests/data/README.md says where they come from)."""

Era = Literal["current", "august"]


def schema_file(version: int = 1, *, unstable: bool = False, era: Era = "current") -> Path:
    """The schema file of ACP `version` (1, or 2 for the draft), stable or with its unstable
    part, of the current schema or the August pin."""
    name = "schema.unstable.json" if unstable else "schema.json"
    base = SCHEMA_ROOT / "current" if era == "current" else SCHEMA_ROOT
    return base / f"v{version}" / name


def schema_methods(version: int = 1, *, unstable: bool = False) -> dict[str, set[str]]:
    """The current schema's methods by side ("agent": the agent serves them, "client",
    "protocol", "proxy"), as its definitions name them (`x-method`, `x-side`)."""
    sides: dict[str, set[str]] = {}
    for definition in schema_defs(version, unstable=unstable).values():
        if "x-method" in definition:
            sides.setdefault(definition.get("x-side", "?"), set()).add(definition["x-method"])
    return sides


def schema_defs(version: int = 1, *, unstable: bool = False, era: Era = "current") -> Any:
    """The `$defs` of that schema."""
    return _schema(version, unstable, era)["$defs"]


# client → agent requests and notifications
REQUEST_PARAMS = {
    "initialize": "InitializeRequest",
    "authenticate": "AuthenticateRequest",
    "session/new": "NewSessionRequest",
    "session/load": "LoadSessionRequest",
    "session/set_mode": "SetSessionModeRequest",
    "session/set_config_option": "SetSessionConfigOptionRequest",
    "session/prompt": "PromptRequest",
    "session/list": "ListSessionsRequest",
    "session/delete": "DeleteSessionRequest",
    "session/resume": "ResumeSessionRequest",
    "session/close": "CloseSessionRequest",
    "logout": "LogoutRequest",
}
# unstable methods: checked against the pinned schema.unstable.json
UNSTABLE_REQUEST_PARAMS = {
    "session/fork": "ForkSessionRequest",
    "providers/list": "ListProvidersRequest",
    "providers/set": "SetProviderRequest",
    "providers/disable": "DisableProviderRequest",
    "session/set_title": "SetSessionTitleRequest",
    "auth/status": "AuthStatusRequest",
    "session/status": "SessionStatusRequest",
    "session/archive": "ArchiveSessionRequest",
    "session/unarchive": "UnarchiveSessionRequest",
}
# `session/set_model` (unstable, paired with the `models` object Gemini, claude-code-acp, Qwen and
# Kimi send) is in neither pinned schema; this is its shape as those agents take it.
SET_MODEL_PARAMS = {
    "type": "object",
    "properties": {"sessionId": {"type": "string"}, "modelId": {"type": "string"}},
    "required": ["sessionId", "modelId"],
}
NOTIFICATION_PARAMS = {
    "session/cancel": "CancelNotification",
    "$/cancel_request": "CancelRequestNotification",
}
# v2 draft: what the client may send, and answer
V2_REQUEST_PARAMS = {
    "initialize": "InitializeRequest",
    "auth/login": "LoginAuthRequest",
    "auth/logout": "LogoutAuthRequest",
    "session/new": "NewSessionRequest",
    "session/set_config_option": "SetSessionConfigOptionRequest",
    "session/prompt": "PromptRequest",
    "session/list": "ListSessionsRequest",
    "session/delete": "DeleteSessionRequest",
    "session/resume": "ResumeSessionRequest",
    "session/close": "CloseSessionRequest",
    "tool_call/cancel": "CancelToolCallRequest",
    "terminal/cancel": "CancelTerminalRequest",
}
V2_NOTIFICATION_PARAMS = {
    "session/cancel": "CancelSessionNotification",
    "$/cancel_request": "CancelRequestNotification",
}
V2_RESPONSE_RESULTS = {
    "session/request_permission": "RequestPermissionResponse",
    "elicitation/create": "CreateElicitationResponse",
}
# client's answers to agent → client requests
RESPONSE_RESULTS = {
    "fs/write_text_file": "WriteTextFileResponse",
    "fs/read_text_file": "ReadTextFileResponse",
    "session/request_permission": "RequestPermissionResponse",
    "terminal/create": "CreateTerminalResponse",
    "terminal/output": "TerminalOutputResponse",
    "terminal/release": "ReleaseTerminalResponse",
    "terminal/wait_for_exit": "WaitForTerminalExitResponse",
    "terminal/kill": "KillTerminalResponse",
    "elicitation/create": "CreateElicitationResponse",
}


@cache
def _schema(version: int = 1, unstable: bool = False, era: Era = "current") -> dict[str, Any]:
    text = schema_file(version, unstable=unstable, era=era).read_text()
    return json.loads(text)  # type: ignore[no-any-return]


@cache
def _validator(
    definition: str | None, version: int = 1, unstable: bool = False, era: Era = "current"
) -> Draft202012Validator:
    schema = _schema(version, unstable, era)
    if definition is None:
        return Draft202012Validator(schema)
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


def _check(
    definition: str | None, value: Any, what: str, version: int = 1, *, unstable: bool = False
) -> None:
    validator = _validator(definition, version, unstable)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if errors:
        details = "; ".join(f"{list(e.path)}: {e.message[:300]}" for e in errors[:5])
        raise AssertionError(
            f"{what} does not match v{version} {definition or 'the schema'}: {details}"
        )


def check_v2_update(update: Any) -> None:
    """`update` is a valid v2 `SessionUpdate` (for tests that feed v2 updates by hand)."""
    _check("SessionUpdate", update, "v2 session update", 2)


class FrameValidator:
    """Watches a connection's traffic and validates every frame the client sends.

    Feed it every frame in both directions (`incoming` / `outgoing`); it remembers the method of
    each request the agent sent so it can check the result the client answers with.
    """

    def __init__(self, *, allow_unknown_methods: bool = False, version: int = 1) -> None:
        self._pending: dict[Any, str] = {}
        self.checked = 0
        self.allow_unknown_methods = allow_unknown_methods
        self.version = version
        """The protocol the frames must follow; `initialize` says (an answer of 1 → v1)."""
        self.initialize_id: Any = None

    def incoming(self, frame: Any) -> None:
        if not isinstance(frame, dict):
            return
        if "method" in frame and "id" in frame:
            self._pending[_key(frame["id"])] = frame["method"]
        elif self.initialize_id is not None and frame.get("id") == self.initialize_id:
            result = frame.get("result")
            if isinstance(result, dict) and result.get("protocolVersion") == 1:
                self.version = 1  # the agent answered v1: everything after is v1

    def outgoing(self, frame: Any) -> None:
        if isinstance(frame, str | bytes):
            frame = json.loads(frame)
        params = frame.get("params") if isinstance(frame, dict) else None
        if frame.get("method") == "initialize" and isinstance(params, dict):
            offered = params.get("protocolVersion")
            self.version = 2 if offered == 2 else 1  # the offer decides, the answer may lower it
        version = self.version
        _check(None, frame, "frame", version)
        if "method" in frame:
            method = frame["method"]
            if version == 2:
                table = V2_REQUEST_PARAMS if "id" in frame else V2_NOTIFICATION_PARAMS
            else:
                table = REQUEST_PARAMS if "id" in frame else NOTIFICATION_PARAMS
            definition = table.get(method)
            if "id" in frame and method in UNSTABLE_REQUEST_PARAMS:
                unstable = UNSTABLE_REQUEST_PARAMS[method]
                _check(unstable, frame.get("params"), f"params of {method}", unstable=True)
            elif "id" in frame and method == "session/set_model":
                errors = list(Draft202012Validator(SET_MODEL_PARAMS).iter_errors(frame["params"]))
                if errors:
                    raise AssertionError(f"params of {method}: {errors[0].message}")
            elif definition is None:
                if not self.allow_unknown_methods:
                    raise AssertionError(f"client sent an unknown method {method!r} (v{version})")
            else:
                _check(definition, frame.get("params"), f"params of {method}", version)
                # and the unstable part's stricter shapes of what acp-tui offers from it
                _check(definition, frame.get("params"), f"params of {method}", version,
                       unstable=True)  # fmt: skip
            if method == "initialize":
                self.initialize_id = frame.get("id")
                if version == 2:  # the v2 offer must also be a valid v1 initialize
                    _check("InitializeRequest", frame.get("params"), "v2 offer as v1", 1)
        else:
            method = self._pending.pop(_key(frame.get("id")), None)
            results = V2_RESPONSE_RESULTS if version == 2 else RESPONSE_RESULTS
            if "error" in frame:
                _check("Error", frame["error"], "error", version)
            elif method is None:
                raise AssertionError(f"client answered id {frame.get('id')!r} it was never asked")
            elif method in results:
                _check(results[method], frame.get("result"), f"result of {method}", version)
            elif version == 2:
                raise AssertionError(f"client answered {method!r}, which v2 does not have")
        self.checked += 1


def _key(request_id: Any) -> str:
    return json.dumps(request_id)


def validating_tap(
    validator: FrameValidator,
    failures: list[str],
    sent: list[dict[str, Any]] | None = None,
) -> Callable[[Any], None]:
    """A traffic tap (events with `.direction` and `.raw`) feeding `validator`.

    Violations are collected in `failures` (a tap must not raise into the connection); frames
    the client sends are also appended to `sent` when given.
    """

    def tap(event: Any) -> None:
        try:
            frame = json.loads(event.raw)
        except ValueError:
            if event.direction == "out":
                failures.append(f"sent a line that is not JSON: {event.raw[:200]!r}")
            return
        try:
            if event.direction == "in":
                validator.incoming(frame)
            else:
                if sent is not None and isinstance(frame, dict):
                    sent.append(frame)
                validator.outgoing(frame)
        except AssertionError as exc:
            failures.append(f"{exc} (frame: {event.raw[:300]})")

    return tap
