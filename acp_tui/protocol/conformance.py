"""What an agent sent outside the ACP v1 schema, frame by frame (the inspector's marks, `check`).

The schema is the current one (SDK 2.4.0) with its unstable part: subagent sessions, session
messages, `mcp/message`, `auth/status_update`, `ToolCall.name` are within it; the 1.21 shapes
still are. Which schema the frames need (1.21, current stable, current unstable) is told by the
`SchemaFit` the checker feeds (`schema_fit.py`).

The checker is separate from the lenient models the session uses: it validates each incoming
frame's params (or result) with the same models while *recording* what they repair
(`recording_repairs`), adds what the models cannot see (enum values the models keep as plain
strings, relative paths, JSON-RPC bookkeeping: ids, answers), and returns marks. What the schema
allows is never marked: ids from 0, a permission `toolCall` with only its id, a null `oldText`,
a repeated `tool_call` for one id, extension methods starting with `_`.

Only the agent's frames are judged; the client's own outgoing frames are tracked for pairing.
A connection whose `initialize` was answered with protocol version 2 is judged by the v2 draft's
rules from then on (`conformance_v2.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ValidationError

from acp_tui.protocol import methods, models
from acp_tui.protocol.absolute_paths import is_absolute_path
from acp_tui.protocol.models import (
    TOOL_CALL_STATUSES,
    TOOL_KINDS,
    AuthenticateResponse,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
    parse_session_update,
)
from acp_tui.protocol.models._base import Repair, note_repair, recording_repairs
from acp_tui.protocol.router import CLIENT_REQUESTS
from acp_tui.protocol.schema_fit import SchemaFit
from acp_tui.protocol.serving import is_valid_id
from acp_tui.protocol.session_links import SessionLinks
from acp_tui.protocol.version import answers_v2


class MarkKind(StrEnum):
    """What was wrong with a frame, as the inspector lists and counts it."""

    UNKNOWN_VARIANT = "unknown variant"
    DEFAULTED = "invalid field defaulted"
    WRONG_TYPE = "wrong type or missing field"
    RELATIVE_PATH = "relative path"
    ID_REUSED = "request id reused"
    UNMATCHED_RESPONSE = "response to no request"
    NOTIFICATION_ANSWERED = "notification answered"
    NEVER_ANSWERED = "request never answered"
    NOT_JSON_RPC = "not a JSON-RPC frame"
    INVALID_ID = "invalid id"
    UNKNOWN_SESSION = "unknown session id"
    SUBAGENT_REFUSED = "subagent session refused"


@dataclass(frozen=True, slots=True)
class Mark:
    """One thing a frame did outside the v1 schema or JSON-RPC, with where or what exactly."""

    kind: MarkKind
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.detail}" if self.detail else str(self.kind)


_REPAIR_KINDS = {
    "unknown": MarkKind.UNKNOWN_VARIANT,
    "defaulted": MarkKind.DEFAULTED,
    "dropped": MarkKind.DEFAULTED,
    "invalid": MarkKind.WRONG_TYPE,
}

Known = Mapping[str, type[BaseModel] | str | None]
"""The params model of each method known (None: checked by hand or not at all; a name: a model
of `models.LATER`, built when a frame of that method first comes)."""

AGENT_REQUESTS: dict[str, type[BaseModel] | str | None] = {
    **CLIENT_REQUESTS,  # the params models the client's router validates with
    methods.ELICITATION_CREATE: None,
    methods.MCP_MESSAGE: "MessageMcpRequest",  # unstable: answered "method not found"
}
AGENT_NOTIFICATIONS: dict[str, type[BaseModel] | str | None] = {
    methods.SESSION_UPDATE: None,  # checked by hand: `_session_notification`
    methods.ELICITATION_COMPLETE: None,
    methods.CANCEL_REQUEST: None,
    methods.AUTH_STATUS_UPDATE: "AuthStatusUpdateNotification",  # unstable
}
RESULTS: dict[str, type[BaseModel]] = {
    methods.INITIALIZE: InitializeResponse,
    methods.AUTHENTICATE: AuthenticateResponse,
    methods.SESSION_NEW: NewSessionResponse,
    methods.SESSION_LOAD: LoadSessionResponse,
    methods.SESSION_PROMPT: PromptResponse,
    methods.SESSION_SET_MODE: SetSessionModeResponse,
    methods.SESSION_SET_CONFIG_OPTION: SetSessionConfigOptionResponse,
}
STOP_REASONS = ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled")
PERMISSION_OPTION_KINDS = ("allow_once", "allow_always", "reject_once", "reject_always")


def _shown_id(request_id: Any) -> str:
    """An id as a mark shows it (bounded: an object id may be large)."""
    if type(request_id) is dict:
        return "{…}" if request_id else "{}"
    if type(request_id) is list:
        return "[…]" if request_id else "[]"
    shown = repr(request_id)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _id_key(request_id: Any) -> tuple[str, Any]:
    return (type(request_id).__name__, request_id)


class ConformanceChecker:
    """Feed it every frame (parsed) in order; it returns the marks of each incoming frame.

    `outgoing_request`/`outgoing_response` keep the bookkeeping of what the client sent;
    `finish()` names the client's requests that were never answered.
    """

    def __init__(self, fit: SchemaFit | None = None) -> None:
        self._ours: dict[tuple[str, Any], tuple[int, str]] = {}  # id → (frame index, method)
        self._theirs: set[tuple[str, Any]] = set()  # agent request ids not yet answered
        self.fit = SchemaFit() if fit is None else fit
        """Which schema the agent's frames need (kept across connections by its owner)."""
        self.sessions = SessionLinks()
        """The sessions the client opened and the subagent sessions announced."""
        self.v2 = False
        """The agent answered `initialize` with ACP v2: the v2 draft's rules apply."""

    # ---- the client's frames ------------------------------------------------------------

    def outgoing(self, index: int, frame: Any) -> None:
        """Note a frame the client sent: its requests' ids (to pair the agent's responses) and its
        answers to the agent's requests."""
        if type(frame) is not dict:
            return
        if "method" in frame:
            params = frame.get("params")
            if type(params) is dict and frame["method"] != methods.SESSION_CANCEL:
                self.sessions.opened_session(params.get("sessionId"))  # (never a child's)
        if "id" not in frame or not is_valid_id(frame["id"]):
            return  # (ours are always valid; a replayed log may say anything)
        if "method" in frame:
            self._ours[_id_key(frame["id"])] = (index, str(frame["method"]))
        else:
            self._theirs.discard(_id_key(frame["id"]))

    def finish(self) -> list[tuple[int, Mark]]:
        """The connection is over: every request of ours still waiting was never answered."""
        unanswered = [
            (index, Mark(MarkKind.NEVER_ANSWERED, f"{method} (id {key[1]!r})"))
            for key, (index, method) in self._ours.items()
        ]
        self._ours.clear()
        self._theirs.clear()
        return unanswered

    # ---- the agent's frames -------------------------------------------------------------

    def incoming(self, frame: Any) -> list[Mark]:
        """The marks of one frame from the agent (empty when it is within the schema)."""
        if type(frame) is not dict:
            return [Mark(MarkKind.NOT_JSON_RPC, "not a JSON object")]
        marks: list[Mark] = []
        if frame.get("jsonrpc") != "2.0":
            marks.append(Mark(MarkKind.WRONG_TYPE, 'jsonrpc is not "2.0"'))
        method = frame.get("method")
        if "id" in frame and not is_valid_id(frame["id"]):
            answered = "ignored" if "result" in frame or "error" in frame else "answered -32600"
            detail = f"id {_shown_id(frame['id'])} ({answered})"
            return [*marks, Mark(MarkKind.INVALID_ID, detail)]
        if "method" in frame:
            if type(method) is not str:
                return [*marks, Mark(MarkKind.WRONG_TYPE, "method is not a string")]
            if "id" in frame:
                self._agent_request(frame, method, marks)
            else:
                self._agent_notification(frame, method, marks)
        elif "result" in frame or "error" in frame:
            self._response(frame, marks)
        else:
            marks.append(Mark(MarkKind.NOT_JSON_RPC, "neither request, response nor notification"))
        return marks

    def _agent_request(self, frame: dict[str, Any], method: str, marks: list[Mark]) -> None:
        request_id = frame["id"]
        if type(request_id) not in (int, str) or type(request_id) is bool:
            marks.append(Mark(MarkKind.WRONG_TYPE, f"request id {request_id!r}"))
        else:
            key = _id_key(request_id)
            if key in self._theirs:
                marks.append(Mark(MarkKind.ID_REUSED, f"id {request_id!r} is still in flight"))
            self._theirs.add(key)
        self.fit.call(method, frame.get("params"))
        if method == methods.SESSION_REQUEST_PERMISSION:
            self._session_known(frame.get("params"), method, marks)
        self._params(method, frame.get("params"), self._agent_requests(), marks)

    def _agent_notification(self, frame: dict[str, Any], method: str, marks: list[Mark]) -> None:
        params = frame.get("params")
        if method == methods.SESSION_UPDATE:
            self._session_known(params, method, marks)
            if _plain_text_chunk(params):
                return  # the streaming hot path: nothing in it can be outside the schema
            on = params if type(params) is dict else {}
            update = on.get("update")
            self.fit.update(update)
            if type(update) is dict and update.get("sessionUpdate") == "subagent_update":
                problem = self.sessions.announce(on.get("sessionId"), update.get("sessionId"))
                if problem is not None:
                    marks.append(Mark(MarkKind.SUBAGENT_REFUSED, problem))
        else:
            self.fit.call(method, params)
        self._params(method, params, self._agent_notifications(), marks)

    def _agent_requests(self) -> Known:
        if not self.v2:
            return AGENT_REQUESTS
        from acp_tui.protocol import conformance_v2 as v2  # (a v1 agent never loads v2's rules)

        return v2.V2_AGENT_REQUESTS

    def _agent_notifications(self) -> Known:
        if not self.v2:
            return AGENT_NOTIFICATIONS
        from acp_tui.protocol import conformance_v2 as v2

        return v2.V2_AGENT_NOTIFICATIONS

    def _session_known(self, params: Any, method: str, marks: list[Mark]) -> None:
        session_id = params.get("sessionId") if type(params) is dict else None
        if type(session_id) is str and not self.sessions.knows(session_id):
            detail = f"{method} for {session_id!r}: neither opened nor announced"
            marks.append(Mark(MarkKind.UNKNOWN_SESSION, detail))

    def _params(
        self,
        method: str,
        params: Any,
        known: Known,
        marks: list[Mark],
    ) -> None:
        if method not in known:
            if not method.startswith("_"):
                marks.append(Mark(MarkKind.UNKNOWN_VARIANT, f"method {method!r}"))
            return
        if method == methods.SESSION_UPDATE:
            _session_notification(params, marks, self._v2_reader())
            if type(params) is dict:
                self._check_values(method, params, marks)
            return
        model = known[method]
        if isinstance(model, str):
            model = getattr(models, model)
        if model is not None:
            _validate(model, params, method, marks)
            if type(params) is dict:
                self._check_values(method, params, marks)

    def _v2_reader(self) -> Callable[[Any], Any] | None:
        if not self.v2:
            return None
        from acp_tui.protocol import conformance_v2 as v2

        return v2.read_update

    def _check_values(self, method: str, params: dict[str, Any], marks: list[Mark]) -> None:
        if not self.v2:
            _check_values(method, params, marks)
            return
        from acp_tui.protocol import conformance_v2 as v2

        for problem, detail in v2.value_problems(method, params):
            kind = MarkKind.RELATIVE_PATH if problem == "relative" else MarkKind.UNKNOWN_VARIANT
            marks.append(Mark(kind, detail))

    def _response(self, frame: dict[str, Any], marks: list[Mark]) -> None:
        request_id = frame.get("id")
        if request_id is None:
            if "error" not in frame:
                marks.append(Mark(MarkKind.NOTIFICATION_ANSWERED, "a result with id null"))
            return
        ours = self._ours.pop(_id_key(request_id), None)
        if ours is None:
            marks.append(Mark(MarkKind.UNMATCHED_RESPONSE, f"id {request_id!r}"))
            return
        if "error" in frame:
            error = frame["error"]
            if type(error) is not dict or type(error.get("code")) is not int:
                marks.append(Mark(MarkKind.WRONG_TYPE, "error object without an integer code"))
            return
        self.fit.result(ours[1], frame["result"])
        result = frame["result"]
        if ours[1] in (methods.SESSION_NEW, methods.SESSION_FORK) and type(result) is dict:
            self.sessions.opened_session(result.get("sessionId"))
        if answers_v2(ours[1], result):
            self.v2 = True
            self.fit.speaks_v2()
        if self.v2:
            from acp_tui.protocol import conformance_v2 as v2

            model = v2.V2_RESULTS.get(ours[1])
            if model is not None:
                _validate(model, v2.v1_shaped(result), f"{ours[1]} result", marks)
            return
        model = RESULTS.get(ours[1])
        if model is not None:
            _validate(model, frame["result"], f"{ours[1]} result", marks)
            result = frame["result"]
            if ours[1] == methods.SESSION_PROMPT and type(result) is dict:
                reason = result.get("stopReason")
                if isinstance(reason, str) and reason not in STOP_REASONS:
                    marks.append(Mark(MarkKind.UNKNOWN_VARIANT, f"stopReason {reason!r}"))


_CHUNKS = frozenset({"agent_message_chunk", "agent_thought_chunk", "user_message_chunk"})


def _plain_text_chunk(params: Any) -> bool:
    """A text chunk with nothing else in it (checked by hand: the models would say the same)."""
    if type(params) is not dict or len(params) != 2 or type(params.get("sessionId")) is not str:
        return False
    update = params.get("update")
    if type(update) is not dict or update.get("sessionUpdate") not in _CHUNKS:
        return False
    content = update.get("content")
    if type(content) is not dict or len(content) != 2 or content.get("type") != "text":
        return False
    if type(content.get("text")) is not str:
        return False
    size = len(update)
    if size == 3 and "messageId" in update:
        return update["messageId"] is None or type(update["messageId"]) is str
    return size == 2


def _session_notification(
    params: Any, marks: list[Mark], read_update: Callable[[Any], Any] | None = None
) -> None:
    """`session/update`'s params checked as `SessionNotification` checks them (its first error
    and what its update's model repairs), without building its validator: that one holds every
    update kind's, the session reads each update with its kind's model alone
    (`parse_session_update`), and agents send updates as the session opens, before the
    prompt is ready. `read_update`: how the update is read (v2's reader; v1's by default)."""
    what = methods.SESSION_UPDATE
    read = parse_session_update if read_update is None else read_update
    with recording_repairs() as repairs:
        if type(params) is not dict:
            error = "params: Input should be a valid dictionary or instance of SessionNotification"
        else:
            meta = params.get("_meta")
            if meta is not None and type(meta) is not dict:
                note_repair("defaulted", "meta", "Input should be a valid dictionary")
            error = ""
            if "sessionId" not in params:
                error = "sessionId: Field required"
            elif type(params["sessionId"]) is not str:
                error = "sessionId: Input should be a valid string"
            if "update" in params:
                read(params["update"])
            elif not error:
                error = "update: Field required"
        if error:
            marks.append(Mark(MarkKind.WRONG_TYPE, f"{what}: {error}"))
    _mark_repairs(repairs, what, marks)


def _validate(model: type[BaseModel], value: Any, what: str, marks: list[Mark]) -> None:
    with recording_repairs() as repairs:
        try:
            model.model_validate(value)
        except ValidationError as error:
            first = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in first["loc"]) or "params"
            marks.append(Mark(MarkKind.WRONG_TYPE, f"{what}: {where}: {first['msg']}"))
    _mark_repairs(repairs, what, marks)


def _mark_repairs(repairs: list[Repair], what: str, marks: list[Mark]) -> None:
    seen: set[Repair] = set()
    for repair in repairs:
        if repair in seen:  # a list retried item by item reports the same field twice
            continue
        seen.add(repair)
        detail = f"{what}: {repair.where}" + (f" ({repair.why})" if repair.why else "")
        marks.append(Mark(_REPAIR_KINDS.get(repair.kind, MarkKind.WRONG_TYPE), detail))


def _check_values(method: str, params: dict[str, Any], marks: list[Mark]) -> None:
    """What the models keep as plain strings: enum values and paths the schema wants absolute."""
    if method == methods.SESSION_UPDATE:
        update = params.get("update")
        if type(update) is dict and update.get("sessionUpdate") in (
            "tool_call",
            "tool_call_update",
        ):
            _check_tool_call(update, str(update.get("sessionUpdate")), marks)
    elif method == methods.SESSION_REQUEST_PERMISSION:
        tool_call = params.get("toolCall")
        if type(tool_call) is dict:
            _check_tool_call(tool_call, "permission toolCall", marks)
        options = params.get("options")
        for option in options if type(options) is list else ():
            kind = option.get("kind") if type(option) is dict else None
            if isinstance(kind, str) and kind not in PERMISSION_OPTION_KINDS:
                marks.append(Mark(MarkKind.UNKNOWN_VARIANT, f"permission option kind {kind!r}"))
    elif method in (methods.FS_READ_TEXT_FILE, methods.FS_WRITE_TEXT_FILE):
        _check_path(params.get("path"), f"{method} path", marks)
    elif method == methods.TERMINAL_CREATE:
        _check_path(params.get("cwd"), "terminal/create cwd", marks)


def _check_tool_call(call: dict[str, Any], what: str, marks: list[Mark]) -> None:
    kind = call.get("kind")
    if isinstance(kind, str) and kind not in TOOL_KINDS:
        marks.append(Mark(MarkKind.UNKNOWN_VARIANT, f"{what} kind {kind!r}"))
    status = call.get("status")
    if isinstance(status, str) and status not in TOOL_CALL_STATUSES:
        marks.append(Mark(MarkKind.UNKNOWN_VARIANT, f"{what} status {status!r}"))
    locations = call.get("locations")
    for location in locations if type(locations) is list else ():
        if type(location) is dict:
            _check_path(location.get("path"), f"{what} location", marks)
    content = call.get("content")
    for item in content if type(content) is list else ():
        if type(item) is dict and item.get("type") == "diff":
            _check_path(item.get("path"), f"{what} diff path", marks)


def _check_path(path: Any, what: str, marks: list[Mark]) -> None:
    if isinstance(path, str) and not is_absolute_path(path):
        marks.append(Mark(MarkKind.RELATIVE_PATH, f"{what} {path!r}"))
