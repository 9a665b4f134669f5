"""Validate frames acp-tui sends against the pinned ACP v1 schema.

The schema's top-level `anyOf` accepts any params for any method, so on top of that we check
each frame's params/result against the exact definition its method calls for.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

SCHEMA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "acp-schema" / "v1"

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
def _schema() -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / "schema.json").read_text())  # type: ignore[no-any-return]


@cache
def _unstable_schema() -> dict[str, Any]:
    return json.loads((SCHEMA_DIR / "schema.unstable.json").read_text())  # type: ignore[no-any-return]


@cache
def _validator(definition: str | None, unstable: bool = False) -> Draft202012Validator:
    schema = _unstable_schema() if unstable else _schema()
    if definition is None:
        return Draft202012Validator(schema)
    return Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": schema["$defs"]})


def _check(definition: str | None, value: Any, what: str, *, unstable: bool = False) -> None:
    validator = _validator(definition, unstable)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if errors:
        details = "; ".join(f"{list(e.path)}: {e.message[:300]}" for e in errors[:5])
        raise AssertionError(f"{what} does not match {definition or 'the schema'}: {details}")


class FrameValidator:
    """Watches a connection's traffic and validates every frame the client sends.

    Feed it every frame in both directions (`incoming` / `outgoing`); it remembers the method of
    each request the agent sent so it can check the result the client answers with.
    """

    def __init__(self, *, allow_unknown_methods: bool = False) -> None:
        self._pending: dict[Any, str] = {}
        self.checked = 0
        self.allow_unknown_methods = allow_unknown_methods

    def incoming(self, frame: Any) -> None:
        if isinstance(frame, dict) and "method" in frame and "id" in frame:
            self._pending[_key(frame["id"])] = frame["method"]

    def outgoing(self, frame: Any) -> None:
        if isinstance(frame, str | bytes):
            frame = json.loads(frame)
        _check(None, frame, "frame")
        if "method" in frame:
            method = frame["method"]
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
                    raise AssertionError(f"client sent an unknown method {method!r}")
            else:
                _check(definition, frame.get("params"), f"params of {method}")
        else:
            method = self._pending.pop(_key(frame.get("id")), None)
            if "error" in frame:
                _check("Error", frame["error"], "error")
            elif method is None:
                raise AssertionError(f"client answered id {frame.get('id')!r} it was never asked")
            elif method in RESPONSE_RESULTS:
                _check(RESPONSE_RESULTS[method], frame.get("result"), f"result of {method}")
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
