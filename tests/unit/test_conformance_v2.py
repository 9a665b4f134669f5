"""The inspector's checker on a v2 connection: the frames claude-agent-acp 0.101 sends under
`--protocol 2` (shortened from a real session) are within the current v2 draft and get no mark;
what v2 does not have (v1-only update kinds and methods, unknown enum values) does.

Every agent frame here is also checked against the current v2 schema with jsonschema, so the
checker cannot drift into marking what the draft allows.
"""

from __future__ import annotations

import json
from typing import Any

from acp_tui.protocol.conformance import MarkKind
from acp_tui.protocol.schema_fit import SchemaLevel
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.protocol.traffic_store import TrafficStore
from tests.schema_check import _validator

SID = "ca1a3aab-0be8-47e2-b9b5-94e69213d157"
PATCH = (
    "diff --git /w/notes.txt /w/notes.txt\n--- /w/notes.txt\n+++ /w/notes.txt\n"
    "@@ -1,3 +1,3 @@\n first\n-old line\n+new line\n last\n"
)
DIFF = {
    "type": "diff",
    "changes": [{"operation": "modify", "path": "/w/notes.txt", "fileType": "text"}],
    "patch": {"format": "git_patch", "text": PATCH},
}
MODE = {
    "name": "Mode",
    "category": "mode",
    "type": "select",
    "currentValue": "auto",
    "options": [{"value": "default", "name": "Manual"}, {"value": "auto", "name": "Auto"}],
    "configId": "mode",
}
FAST = {"name": "Fast mode", "type": "boolean", "currentValue": False, "configId": "fast"}
INITIALIZED = {
    "protocolVersion": 2,
    "info": {"name": "@agentclientprotocol/claude-agent-acp", "version": "0.101.0"},
    "capabilities": {
        "session": {
            "prompt": {"image": {}},
            "fork": {},
            "systemPrompt": {"mode": {"override": {}}},
        },
        "providers": {},
        "_meta": {"authStatus": {}},
    },
    "authMethods": [
        {
            "name": "Claude Subscription",
            "type": "terminal",
            "args": ["--cli", "auth", "login"],
            "methodId": "claude-ai-login",
        }
    ],
}
COMMANDS = [{"type": "command", "name": "verify", "description": "Verify a change"}]
UPDATES: list[dict[str, Any]] = [
    {
        "sessionUpdate": "user_message",
        "messageId": "m1",
        "content": [{"type": "text", "text": "go"}],
    },
    {"sessionUpdate": "state_update", "state": "running", "background": []},
    {"sessionUpdate": "available_commands_update", "availableCommands": COMMANDS},
    {"sessionUpdate": "config_option_update", "configOptions": [MODE, FAST]},
    {"sessionUpdate": "usage_update", "used": 101, "size": 1000000},
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "a1",
        "content": {"type": "text", "text": "Hi"},
    },
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "e1",
        "name": "Edit",
        "rawInput": {},
        "status": "pending",
        "title": "Edit",
        "kind": "edit",
        "locations": [{"path": "/w/notes.txt", "line": 1}],
        "content": [DIFF],
    },
    {"sessionUpdate": "state_update", "state": "requires_action", "background": []},
    {"sessionUpdate": "terminal_update", "terminalId": "t1"},
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "status": "paused",
        "content": [{"type": "terminal", "terminalId": "t1"}],
        "capabilities": {"cancel": {}},
    },
    {
        "sessionUpdate": "terminal_update",
        "terminalId": "t1",
        "command": "echo shell-ok && ls",
        "output": {"data": "c2hlbGwtb2sKaGVsbG8udHh0"},
        "capabilities": {"cancel": {}},
    },
    {"sessionUpdate": "terminal_update", "terminalId": "t1", "exitStatus": {"exitCode": 0}},
    {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
        "usage": {"inputTokens": 500, "outputTokens": 100, "totalTokens": 600},
        "background": [{"type": "terminal", "terminalId": "t1"}],
    },
    {
        "sessionUpdate": "session_info_update",
        "title": "go",
        "updatedAt": "2026-12-07T17:56:50.932Z",
    },
]
PERMISSION = {
    "sessionId": SID,
    "title": "Edit notes.txt",
    "subject": {
        "type": "tool_call",
        "toolCall": {"toolCallId": "e1", "name": "Edit", "kind": "edit", "content": [DIFF]},
    },
    "options": [{"optionId": "allow-once", "name": "Allow", "kind": "allow_once"}],
}


def feed(store: TrafficStore, direction: str, frame: dict[str, Any]) -> None:
    store.record(TrafficEvent(direction, 0.0, json.dumps(frame)))  # type: ignore[arg-type]


def request(id_: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "method": method, "params": params}


def answer(id_: int, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": id_, "result": result}


def notification(update: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": SID, "update": update},
    }


def within_v2(definition: str, value: Any) -> None:
    errors = [e.message for e in _validator(definition, 2, True).iter_errors(value)]
    assert not errors, (definition, errors)


def opened(store: TrafficStore, version: int = 2) -> None:
    """initialize (answered with `version`), session/new, one prompt."""
    feed(store, "out", request(0, "initialize", {"protocolVersion": 2}))
    result = INITIALIZED if version == 2 else {"protocolVersion": 1}
    feed(store, "in", answer(0, result))
    feed(store, "out", request(1, "session/new", {"cwd": "/w", "mcpServers": []}))
    new = {"sessionId": SID, "configOptions": [MODE, FAST], "availableCommands": COMMANDS}
    within_v2("NewSessionResponse", new)
    feed(store, "in", answer(1, new))
    feed(store, "out", request(2, "session/prompt", {"sessionId": SID, "prompt": []}))


def test_a_real_v2_session_gets_no_mark() -> None:
    store = TrafficStore()
    within_v2("InitializeResponse", INITIALIZED)
    opened(store)
    for body in UPDATES[:2]:
        within_v2("SessionUpdate", body)
        feed(store, "in", notification(body))
    within_v2("PromptResponse", {"messageId": "m1"})
    feed(store, "in", answer(2, {"messageId": "m1"}))
    for body in UPDATES[2:]:
        within_v2("SessionUpdate", body)
        feed(store, "in", notification(body))
    within_v2("RequestPermissionRequest", PERMISSION)
    feed(store, "in", request(0, "session/request_permission", PERMISSION))
    feed(store, "out", answer(0, {"outcome": {"outcome": "selected", "optionId": "allow-once"}}))
    feed(store, "out", request(3, "session/set_config_option", {"sessionId": SID}))
    feed(store, "in", answer(3, {"configOptions": [MODE, FAST]}))
    assert store.mark_counts.total() == 0, [str(m) for f in store.marked() for m in f.marks]
    assert store.schema_fit.level == SchemaLevel.V2_DRAFT


def test_v2_frames_judged_by_v1_rules_are_marked() -> None:
    """The same frames on a connection that answered v1: v1 does not have them."""
    store = TrafficStore()
    opened(store, version=1)
    feed(store, "in", notification(UPDATES[1]))
    feed(store, "in", answer(2, {"messageId": "m1"}))
    assert store.mark_counts[MarkKind.UNKNOWN_VARIANT] == 1  # state_update
    assert store.mark_counts[MarkKind.WRONG_TYPE] == 1  # a prompt answer without stopReason


def test_what_v2_does_not_have_is_marked() -> None:
    store = TrafficStore()
    opened(store)
    feed(store, "in", notification({"sessionUpdate": "tool_call", "toolCallId": "x", "title": "x"}))
    feed(store, "in", notification({"sessionUpdate": "state_update", "state": "idle",
                                    "stopReason": "tired"}))  # fmt: skip
    feed(store, "in", notification({**UPDATES[6], "status": "sleeping"}))
    feed(store, "in", notification({**UPDATES[6], "content": [
        {**DIFF, "changes": [{"operation": "add", "path": "rel.txt"}]}]}))  # fmt: skip
    feed(store, "in", request(5, "fs/read_text_file", {"sessionId": SID, "path": "/w/a"}))
    feed(store, "in", answer(2, {}))  # a v2 prompt answer names the user message
    marks = [str(m) for f in store.marked() for m in f.marks]
    assert any("'tool_call' (not in v2)" in m for m in marks), marks
    assert any("stopReason 'tired'" in m for m in marks), marks
    assert any("status 'sleeping'" in m for m in marks), marks
    assert any(m.startswith("relative path") and "rel.txt" in m for m in marks), marks
    assert any("method 'fs/read_text_file'" in m for m in marks), marks
    assert any("messageId" in m for m in marks), marks
