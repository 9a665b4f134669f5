"""Conformance marks: what is outside the v1 schema is marked with why; what it allows is not.

Every frame marked as a schema violation here is also checked against the pinned schema with
jsonschema, so the checker cannot drift into marking what the schema allows.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from acp_tui.protocol.absolute_paths import is_absolute_path
from acp_tui.protocol.conformance import MarkKind
from acp_tui.protocol.models import MAX_CHILDREN
from acp_tui.protocol.schema_fit import SchemaLevel
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.protocol.traffic_store import TrafficStore
from tests.schema_check import _validator, check_v2_update

AGENT_PARAMS = {
    "session/update": "SessionNotification",
    "session/request_permission": "RequestPermissionRequest",
    "fs/read_text_file": "ReadTextFileRequest",
    "fs/write_text_file": "WriteTextFileRequest",
    "terminal/create": "CreateTerminalRequest",
    "mcp/message": "MessageMcpRequest",
    "auth/status_update": "AuthStatusUpdateNotification",
}


def schema_errors(frame: dict[str, Any]) -> list[str]:
    """What the current schema (its unstable part included, which holds the stable one) says is
    wrong with the frame's params."""
    validator = _validator(AGENT_PARAMS[frame["method"]], unstable=True)
    return [e.message for e in validator.iter_errors(frame.get("params"))]


def feed(store: TrafficStore, direction: str, frame: Any, t: float = 0.0) -> None:
    raw = frame if isinstance(frame, str) else json.dumps(frame)
    store.record(TrafficEvent(direction, t, raw))  # type: ignore[arg-type]


def update(body: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": body},
    }


TOOL_CALL = {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit", "kind": "edit"}

ALLOWED = [
    # ids from 0, a permission toolCall with only its id
    {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "session/request_permission",
        "params": {
            "sessionId": "s",
            "toolCall": {"toolCallId": "t1"},
            "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}],
        },
    },
    # a null oldText in a diff, absolute paths
    update(
        {
            **TOOL_CALL,
            "content": [{"type": "diff", "path": "/w/a.txt", "oldText": None, "newText": "x"}],
            "locations": [{"path": "/w/a.txt", "line": 0}],
        }
    ),
    # the same tool_call again for one id
    update(TOOL_CALL),
    update({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}),
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "fs/read_text_file",
        "params": {"sessionId": "s", "path": "/w/a.txt", "line": None},
    },
    {"jsonrpc": "2.0", "method": "_vendor/hello", "params": {"x": 1}},
]

SUBAGENT = {"sessionUpdate": "subagent_update", "sessionId": "child-1"}
CURRENT = [
    # the current schema's stable additions: ToolCall.name, notices and compaction
    update({**TOOL_CALL, "toolCallId": "t9", "name": "Edit"}),
    update({"sessionUpdate": "tool_call_update", "toolCallId": "t9", "name": None}),
    update({"sessionUpdate": "notice", "severity": "warning", "title": "Rate limited"}),
    update({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "running"}),
    # its unstable part: subagent sessions and session messages
    update({
        **SUBAGENT, "title": "Explore", "description": "looks around",
        "capabilities": {"cancel": {}}, "state": {"state": "running"}, "cwd": "/w",
    }),
    update({**SUBAGENT, "title": None, "state": {
        "state": "idle", "stopReason": "error", "error": {"code": -32603, "message": "boom"},
        "usage": {"totalTokens": 3, "inputTokens": 2, "outputTokens": 1},
    }}),
    update({**SUBAGENT, "state": {"state": "requires_action"}, "capabilities": None}),
    update({**SUBAGENT, "state": None}),
    update({
        "sessionUpdate": "session_message", "messageId": "m1", "senderSessionId": "s",
        "recipientSessionId": "child-1", "content": [{"type": "text", "text": "go"}],
    }),
    update({
        "sessionUpdate": "session_message_chunk", "messageId": "m1",
        "content": {"type": "text", "text": " on"},
    }),
    {
        "jsonrpc": "2.0", "id": 5, "method": "mcp/message",
        "params": {"serverId": "srv", "requestId": "r1", "method": "tools/list", "params": {}},
    },
    {
        "jsonrpc": "2.0", "method": "auth/status_update",
        "params": {"state": "authenticated", "accounts": [{"label": "me@x", "active": True}]},
    },
]  # fmt: skip


def test_the_current_schemas_updates_and_methods_are_not_marked() -> None:
    store = TrafficStore()
    for frame in CURRENT:
        assert schema_errors(frame) == [], frame
        feed(store, "in", frame)
    feed(store, "out", {"jsonrpc": "2.0", "id": 5, "error": {"code": -32601, "message": "no"}})
    store.connection_closed()
    assert [f.marks for f in store.frames if f.marks] == []
    assert store.schema_fit.level is SchemaLevel.V1_CURRENT_UNSTABLE
    assert store.schema_fit.describe() == (
        "ACP v1, current with its unstable part (SDK 2.4.0) (for auth/status_update, "
        "mcp/message, session_message, session_message_chunk, subagent_update)"
    )


def test_which_schema_the_frames_fit() -> None:
    """1.21 frames fit 1.21; a tool call's name needs the current stable schema; a subagent
    session its unstable part, and an older level never comes back."""
    store = TrafficStore()
    for frame in ALLOWED:
        feed(store, "in", frame)
    levels = [store.schema_fit.level]
    assert store.schema_fit.describe() == "ACP v1 1.21 (August 2026)"
    feed(store, "in", CURRENT[0])
    assert store.schema_fit.describe() == (
        "ACP v1, current stable (SDK 2.4.0) (for name of tool_call)"
    )
    feed(store, "in", CURRENT[4])
    feed(store, "in", ALLOWED[3])
    levels.append(store.schema_fit.level)
    store.connection_closed()  # a restart keeps what the session's agent has shown
    levels.append(store.schema_fit.level)
    assert levels == [SchemaLevel.V1_AUGUST, *[SchemaLevel.V1_CURRENT_UNSTABLE] * 2]


@pytest.mark.parametrize(
    ("body", "mentions"),
    [
        ({**SUBAGENT, "sessionId": 7}, "subagent_update sessionId"),
        ({"sessionUpdate": "session_message", "content": []}, "session_message messageId"),
        ({**SUBAGENT, "cwd": 3}, "subagent_update cwd"),
    ],
)
def test_a_malformed_subagent_update_is_marked(body: dict[str, Any], mentions: str) -> None:
    frame = update(body)
    assert schema_errors(frame)
    store = TrafficStore()
    feed(store, "in", frame)
    marks = store.frames[0].marks
    assert [m.kind for m in marks] == [MarkKind.WRONG_TYPE], marks
    assert mentions in marks[0].detail


def test_what_the_schema_allows_is_not_marked() -> None:
    store = TrafficStore()
    for frame in ALLOWED:
        if frame["method"] in AGENT_PARAMS:
            assert schema_errors(frame) == [], frame
        feed(store, "in", frame)
    # both requests answered by the client
    feed(store, "out", {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}})
    feed(store, "out", {"jsonrpc": "2.0", "id": 1, "result": {"content": "x"}})
    store.connection_closed()
    assert [f.marks for f in store.frames if f.marks] == []
    assert store.mark_counts.total() == 0


VIOLATIONS = [
    (update({"sessionUpdate": "mystery_update", "x": 1}), MarkKind.UNKNOWN_VARIANT, "mystery"),
    (
        update({"sessionUpdate": "agent_message_chunk", "content": {"type": "hologram"}}),
        MarkKind.UNKNOWN_VARIANT,
        "hologram",
    ),
    (update({**TOOL_CALL, "kind": "teleport"}), MarkKind.UNKNOWN_VARIANT, "teleport"),
    (
        update({**TOOL_CALL, "locations": [{"path": "/w/a", "line": "seven"}]}),
        MarkKind.DEFAULTED,
        "line",
    ),
    (update({**TOOL_CALL, "title": 42}), MarkKind.WRONG_TYPE, "title"),
    (
        {"jsonrpc": "2.0", "method": "session/update", "params": {"update": TOOL_CALL}},
        MarkKind.WRONG_TYPE,
        "sessionId: Field required",
    ),
    (
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": 7, "update": TOOL_CALL},
        },
        MarkKind.WRONG_TYPE,
        "sessionId",
    ),
    (
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s"}},
        MarkKind.WRONG_TYPE,
        "update: Field required",
    ),
    (
        update({**TOOL_CALL, "locations": [{"path": "src/a.py"}]}),
        MarkKind.RELATIVE_PATH,
        "src/a.py",
    ),
    (
        update({**TOOL_CALL, "content": [{"type": "diff", "path": "a.txt", "newText": "x"}]}),
        MarkKind.RELATIVE_PATH,
        "a.txt",
    ),
]


@pytest.mark.parametrize(("frame", "kind", "mentions"), VIOLATIONS)
def test_a_violation_is_marked_with_why(
    frame: dict[str, Any], kind: MarkKind, mentions: str
) -> None:
    store = TrafficStore()
    feed(store, "in", frame)
    marks = store.frames[0].marks
    assert [m.kind for m in marks] == [kind], marks
    assert mentions in marks[0].detail
    if kind is not MarkKind.RELATIVE_PATH:  # the schema states "absolute" in prose only
        assert schema_errors(frame), "the pinned schema must reject what is marked"
    assert store.mark_counts == {kind: 1}


def test_relative_fs_path_and_terminal_cwd() -> None:
    store = TrafficStore()
    feed(
        store,
        "in",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "fs/write_text_file",
            "params": {"sessionId": "s", "path": "notes.txt", "content": ""},
        },
    )
    feed(
        store,
        "in",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "terminal/create",
            "params": {"sessionId": "s", "command": "ls", "cwd": "sub"},
        },
    )
    assert [m.kind for f in store.frames for m in f.marks] == [MarkKind.RELATIVE_PATH] * 2


def test_rpc_bookkeeping_marks() -> None:
    store = TrafficStore()
    feed(store, "out", {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})
    feed(store, "out", {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}})
    feed(store, "out", {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}})
    feed(store, "in", {"jsonrpc": "2.0", "id": None, "result": {}})  # answers the notification
    feed(store, "in", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}})
    feed(store, "in", {"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}})  # again
    read = {"sessionId": "s", "path": "/a"}
    feed(store, "in", {"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file", "params": read})
    feed(store, "in", {"jsonrpc": "2.0", "id": 7, "method": "fs/read_text_file", "params": read})
    store.connection_closed()
    kinds = [(f.index, m.kind) for f in store.frames for m in f.marks]
    assert kinds == [
        (1, MarkKind.NEVER_ANSWERED),
        (3, MarkKind.NOTIFICATION_ANSWERED),
        (5, MarkKind.UNMATCHED_RESPONSE),
        (7, MarkKind.ID_REUSED),
    ]


def test_pairing_latency_and_error_codes() -> None:
    store = TrafficStore()
    feed(store, "out", {"jsonrpc": "2.0", "id": 0, "method": "session/prompt", "params": {}}, 1.0)
    feed(
        store,
        "in",
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "fs/read_text_file",
            "params": {"sessionId": "s", "path": "/a"},
        },
        1.5,
    )
    feed(
        store, "out", {"jsonrpc": "2.0", "id": 0, "error": {"code": -32002, "message": "no"}}, 1.75
    )
    feed(store, "in", {"jsonrpc": "2.0", "id": 0, "result": {"stopReason": "end_turn"}}, 3.0)
    prompt, read, read_error, prompt_result = store.frames
    assert (prompt.pair, prompt_result.pair) == (3, 0)
    assert (read.pair, read_error.pair) == (2, 1)
    assert prompt.latency == prompt_result.latency == 2.0
    assert read_error.latency == 0.25
    assert read_error.method == "fs/read_text_file" and read_error.error_code == -32002
    assert prompt_result.method == "session/prompt" and prompt_result.error_code is None
    assert store.marked() == []


def test_garbage_line_is_marked_and_kept_raw() -> None:
    store = TrafficStore()
    feed(store, "in", "not json {")
    assert store.frames[0].kind == "invalid"
    assert store.frames[0].pretty() == "not json {"
    assert store.frames[0].marks[0].kind is MarkKind.NOT_JSON_RPC


def test_frames_per_second_counts_the_last_second() -> None:
    store = TrafficStore()
    for t in (0.1, 0.5, 1.2, 1.3):
        feed(
            store,
            "in",
            update(
                {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
            ),
            t,
        )
    assert store.frames_per_second(1.4) == 3
    assert store.frames_per_second(5.0) == 0
    assert store.update_counts == {"agent_message_chunk": 4}


@pytest.mark.parametrize(
    ("path", "absolute"),
    [
        ("/a", True),
        ("C:\\x", True),
        ("c:/x", True),
        ("\\\\srv\\s", True),
        ("a/b", False),
        ("./a", False),
        ("", False),
    ],
)
def test_absolute_paths(path: str, absolute: bool) -> None:
    assert is_absolute_path(path) is absolute


@pytest.mark.parametrize(
    "update_body",
    [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": 5}},
        {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": "x"},
            "messageId": 7,
        },
        {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text"}},
    ],
)
def test_text_chunks_off_the_fast_path_are_still_checked(update_body: dict[str, Any]) -> None:
    store = TrafficStore()
    frame = update(update_body)
    feed(store, "in", frame)
    assert store.frames[0].marks, "a broken chunk must be marked"
    assert schema_errors(frame)


def opened_store(session_id: str = "s") -> TrafficStore:
    """A store whose client opened `session_id` (session/new answered with it)."""
    store = TrafficStore()
    feed(store, "out", {"jsonrpc": "2.0", "id": 1, "method": "session/new",
                        "params": {"cwd": "/w", "mcpServers": []}})  # fmt: skip
    feed(store, "in", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": session_id}})
    return store


def last_marks(store: TrafficStore) -> list[tuple[MarkKind, str]]:
    return [(m.kind, m.detail) for m in store.frames[len(store) - 1].marks]


def on(session_id: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": session_id, "update": body}}  # fmt: skip


def test_subagent_links_that_cannot_be_are_marked() -> None:
    store = opened_store()
    feed(store, "in", on("s", {**SUBAGENT, "sessionId": "s"}))
    assert last_marks(store) == [
        (MarkKind.SUBAGENT_REFUSED, "session 's' names itself as its own child")
    ]
    feed(store, "in", on("s", {**SUBAGENT, "sessionId": "c1"}))
    feed(store, "in", on("c1", {**SUBAGENT, "sessionId": "c2"}))
    feed(store, "in", on("c2", {"sessionUpdate": "agent_message_chunk",
                                "content": {"type": "text", "text": "hi"}}))  # fmt: skip
    assert last_marks(store) == []
    feed(store, "in", on("c2", {**SUBAGENT, "sessionId": "c1"}))
    assert last_marks(store) == [(MarkKind.SUBAGENT_REFUSED, "'c1' is already a child of 's'")]
    feed(store, "in", on("c2", {**SUBAGENT, "sessionId": "s"}))
    assert last_marks(store) == [
        (MarkKind.SUBAGENT_REFUSED, "'s' is a session the client opened, not a child")
    ]


def test_traffic_of_a_session_never_opened_nor_announced_is_marked() -> None:
    store = opened_store()
    feed(store, "in", on("ghost", {"sessionUpdate": "agent_message_chunk",
                                   "content": {"type": "text", "text": "boo"}}))  # fmt: skip
    detail = "session/update for 'ghost': neither opened nor announced"
    assert last_marks(store) == [(MarkKind.UNKNOWN_SESSION, detail)]
    feed(store, "in", {"jsonrpc": "2.0", "id": 9, "method": "session/request_permission",
                       "params": {**ALLOWED[0]["params"], "sessionId": "ghost"}})  # fmt: skip
    assert [kind for kind, _ in last_marks(store)] == [MarkKind.UNKNOWN_SESSION]
    # a client that never said a session id has nothing to compare with
    fresh = TrafficStore()
    feed(fresh, "in", on("any", {"sessionUpdate": "agent_message_chunk",
                                 "content": {"type": "text", "text": "hi"}}))  # fmt: skip
    assert fresh.frames[0].marks == ()


def test_ten_thousand_deep_and_ten_thousand_wide_are_marked_and_bounded() -> None:
    store = opened_store()
    parent = "s"
    for depth in range(10_000):
        feed(store, "in", on(parent, {**SUBAGENT, "sessionId": f"d{depth}"}))
        parent = f"d{depth}"
    wide = opened_store()
    for n in range(10_000):
        feed(wide, "in", on("s", {**SUBAGENT, "sessionId": f"c{n}"}))
    for checked in (store, wide):
        counts = checked.mark_counts
        assert counts[MarkKind.SUBAGENT_REFUSED] > 9_000
        assert checked._checker is not None  # (made with the first frame checked)
        assert len(checked._checker.sessions.parents) <= MAX_CHILDREN
    assert "nested 9 deep" in str(store.frames[2 + 8].marks[0])
    assert "more than 256 subagent sessions" in str(wide.frames[2 + 256].marks[0])


def v2_store() -> TrafficStore:
    """A store whose agent answered `initialize` with version 2."""
    store = TrafficStore()
    feed(store, "out", {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                        "params": {"protocolVersion": 2}})  # fmt: skip
    feed(store, "in", {"jsonrpc": "2.0", "id": 0, "result": {
        "protocolVersion": 2, "info": {"name": "a", "version": "1"},
        "authMethods": [{"methodId": "login", "name": "Log in", "type": "terminal",
                         "args": ["--login"]}],
    }})  # fmt: skip
    return store


V2_FRAMES = [
    on("s", {"sessionUpdate": "state_update", "state": "running"}),
    on("s", {"sessionUpdate": "user_message", "messageId": "u1",
             "content": [{"type": "text", "text": "hi"}]}),
    on("s", {"sessionUpdate": "agent_message_chunk", "messageId": "m1",
             "content": {"type": "text", "text": "ok"}}),
    on("s", {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "ls",
             "status": "in_progress"}),
    on("s", {"sessionUpdate": "terminal_update", "terminalId": "term", "command": "ls"}),
    on("s", {"sessionUpdate": "state_update", "state": "idle", "stopReason": "error",
             "error": {"code": -32603, "message": "boom"}}),
]  # fmt: skip


def test_a_v2_agents_frames_are_read_by_v2s_rules() -> None:
    """The inspector marked 31 of claude-agent-acp 0.101's v2 frames (read by v1's rules):
    its `initialize` answer, `state_update`, `user_message`, a prompt's answer (the current
    draft's: the message id the prompt was inserted as)."""
    store = v2_store()
    feed(store, "out", {"jsonrpc": "2.0", "id": 1, "method": "session/prompt",
                        "params": {"sessionId": "s", "prompt": []}})  # fmt: skip
    for frame in V2_FRAMES:
        check_v2_update(frame["params"]["update"])  # (the v2 draft's `SessionUpdate`)
        feed(store, "in", frame)
    feed(store, "in", {"jsonrpc": "2.0", "id": 1, "result": {"messageId": "m1"}})
    assert [(f.label, f.marks) for f in store.frames if f.marks] == []
    feed(store, "in", on("s", {"sessionUpdate": "tool_call", "toolCallId": "t2", "title": "x"}))
    assert [m.kind for m in store.frames[len(store) - 1].marks] == [MarkKind.UNKNOWN_VARIANT]
