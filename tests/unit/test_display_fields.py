"""Where agent text enters: display fields come out safe, exact values stay exact."""

from __future__ import annotations

from typing import Any

from acp_tui.client.handshake import read_initialize_result
from acp_tui.host.asker import Choice, Question
from acp_tui.protocol.errors import INTERNAL_ERROR, MAX_SHOWN_CHARS, RpcError
from acp_tui.protocol.models import (
    AvailableCommandsUpdate,
    CreateTerminalRequest,
    Diff,
    InitializeResponse,
    NewSessionResponse,
    Plan,
    PlanUpdate,
    RequestPermissionRequest,
    SessionInfoUpdate,
    TextContent,
    ToolCall,
    WriteTextFileRequest,
    parse_content_block,
    parse_session_update,
)
from acp_tui.protocol.process import StderrRing
from acp_tui.safe_text import is_safe
from acp_tui.thread.thread import Thread

EVIL = "a\x1b]0;t\x07\x1b[2J\x9b\u202eb"
SHOWN = "a\u241b]0;t\u2407\u241b[2J\ufffd\ufffdb"


def all_strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [*all_strings(k), *all_strings(v)]]
    if isinstance(value, list | tuple):
        return [s for item in value for s in all_strings(item)]
    return []


def test_session_updates_are_safe_in_every_display_field() -> None:
    call = parse_session_update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": EVIL,
            "title": EVIL,
            "kind": EVIL,
            "status": EVIL,
            "content": [
                {"type": "content", "content": {"type": "text", "text": EVIL}},
                {"type": "diff", "path": EVIL, "oldText": EVIL, "newText": EVIL},
            ],
            "locations": [{"path": EVIL}],
            "rawInput": {"command": EVIL},
        }
    )
    assert isinstance(call, ToolCall)
    assert (call.title, call.kind, call.status) == (SHOWN, SHOWN, SHOWN)
    assert call.locations[0].path == SHOWN
    text, diff = call.content
    assert text.content.text == SHOWN  # type: ignore[union-attr]
    assert isinstance(diff, Diff) and diff.path == SHOWN
    # kept exact: the id (matched against permission requests), the diff texts (drawn safely
    # line by line), the raw input (rules read commands and paths from it)
    assert call.tool_call_id == EVIL
    assert diff.old_text == EVIL and diff.new_text == EVIL
    assert call.raw_input == {"command": EVIL}

    for update in (
        {"sessionUpdate": "session_info_update", "title": EVIL},
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": EVIL, "description": EVIL, "input": {"hint": EVIL}}],
        },
        {"sessionUpdate": "plan", "entries": [{"content": EVIL, "priority": EVIL, "status": EVIL}]},
        {"sessionUpdate": "plan_update", "plan": {"type": "markdown", "id": EVIL, "content": EVIL}},
        {"sessionUpdate": "plan_update", "plan": {"type": "file", "planId": "p", "uri": EVIL}},
    ):
        parsed = parse_session_update(update)
        assert isinstance(
            parsed, SessionInfoUpdate | AvailableCommandsUpdate | Plan | PlanUpdate
        ), parsed
        strings = all_strings(parsed.model_dump(exclude={"session_update"}))
        assert strings and all(is_safe(s) for s in strings), strings
        assert SHOWN in strings


def test_content_blocks_are_safe() -> None:
    for raw in (
        {"type": "text", "text": EVIL},
        {"type": "resource_link", "name": EVIL, "uri": EVIL, "title": EVIL, "description": EVIL},
        {"type": "resource", "resource": {"uri": EVIL, "text": EVIL, "mimeType": EVIL}},
        {"type": "image", "data": "AAAA", "mimeType": EVIL, "uri": EVIL},
    ):
        block = parse_content_block(raw)
        strings = all_strings(block.model_dump())
        assert all(is_safe(s) for s in strings), strings
    assert TextContent(text="x\x1by").text == "x\u241by"


def test_responses_keep_ids_exact_and_names_safe() -> None:
    hello = InitializeResponse.model_validate(
        {
            "protocolVersion": 1,
            "agentInfo": {"name": EVIL, "title": EVIL, "version": EVIL},
            "authMethods": [
                {"id": EVIL, "name": EVIL, "description": EVIL},
                {"type": "terminal", "id": "t", "name": EVIL, "args": [EVIL], "env": {"K": EVIL}},
            ],
        }
    )
    assert hello.agent_info is not None and hello.agent_info.title == SHOWN
    agent_method, terminal_method = hello.auth_methods
    assert agent_method.id == EVIL and agent_method.name == SHOWN
    assert terminal_method.args == [EVIL] and terminal_method.env == {"K": EVIL}  # type: ignore[union-attr]

    session = NewSessionResponse.model_validate(
        {
            "sessionId": EVIL,
            "modes": {"currentModeId": EVIL, "availableModes": [{"id": EVIL, "name": EVIL}]},
            "configOptions": [
                {
                    "type": "select",
                    "id": EVIL,
                    "name": EVIL,
                    "currentValue": EVIL,
                    "options": [{"value": EVIL, "name": EVIL, "description": EVIL}],
                }
            ],
        }
    )
    assert session.session_id == EVIL
    assert session.modes is not None
    (mode,) = session.modes.available_modes
    assert (mode.id, mode.name) == (EVIL, SHOWN)
    (option,) = session.config_options or []
    assert (option.id, option.name) == (EVIL, SHOWN)
    (choice,) = option.flat_options()  # type: ignore[union-attr]
    assert (choice.value, choice.name, choice.description) == (EVIL, SHOWN, SHOWN)


def test_requests_keep_what_reaches_disk_or_a_process_exact() -> None:
    write = WriteTextFileRequest.model_validate({"sessionId": "s", "path": EVIL, "content": EVIL})
    assert write.content == EVIL and write.path == EVIL
    terminal = CreateTerminalRequest.model_validate(
        {"sessionId": "s", "command": EVIL, "args": [EVIL], "env": [{"name": "K", "value": EVIL}]}
    )
    assert terminal.command == EVIL and terminal.args == [EVIL]
    assert terminal.env[0].value == EVIL
    permission = RequestPermissionRequest.model_validate(
        {
            "sessionId": "s",
            "toolCall": {"toolCallId": EVIL, "title": EVIL},
            "options": [{"optionId": EVIL, "name": EVIL, "kind": "allow_once"}],
        }
    )
    assert permission.tool_call.title == SHOWN and permission.tool_call.tool_call_id == EVIL
    assert permission.options[0].option_id == EVIL and permission.options[0].name == SHOWN


def test_hand_parsed_entry_points_are_safe_too() -> None:
    hello = read_initialize_result(
        {"protocolVersion": 1, "agentInfo": {"name": EVIL, "version": "1"},
         "authMethods": [{"id": EVIL, "name": EVIL, "description": EVIL, "type": "terminal",
                          "args": [EVIL]}]}
    )  # fmt: skip
    assert hello.info is not None and hello.info.name == SHOWN
    (method,) = hello.auth_methods
    assert (method.id, method.name, method.description, method.type, method.args) == (
        EVIL,
        SHOWN,
        SHOWN,
        "terminal",
        (EVIL,),
    )


def test_the_fast_text_path_of_the_thread_is_safe() -> None:
    thread = Thread()
    for text in ("plain ", EVIL):
        thread.apply_notification(
            {"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk",
                                          "content": {"type": "text", "text": text}}}
        )  # fmt: skip
    thread.apply_notification(
        {"sessionId": "s", "update": {"sessionUpdate": "agent_thought_chunk",
                                      "content": {"type": "text", "text": EVIL},
                                      "messageId": "m"}}
    )  # fmt: skip
    message, thought = thread.entries
    assert message.text == "plain " + SHOWN  # type: ignore[union-attr]
    assert thought.text == SHOWN  # type: ignore[union-attr]


def test_stderr_tail_is_safe() -> None:
    ring = StderrRing(1024)
    ring.append(b"ok line\n\x1b[31merror\x1b[0m \xc2\x9b\xe2\x80\xae\n")
    assert ring.tail(5) == ["ok line", "\u241b[31merror\u241b[0m \ufffd\ufffd"]


def test_questions_show_paths_safely_and_keep_data_exact() -> None:
    question = Question(
        "outside_cwd", f"read {EVIL}?", f"path: {EVIL}", (Choice("x", EVIL),), {"path": EVIL}
    )
    assert question.title == f"read {SHOWN}?" and question.detail == f"path: {SHOWN}"
    assert question.choices[0].label == SHOWN and question.choices[0].id == "x"
    assert question.data == {"path": EVIL}


# ---- errors keep their reason --------------------------------------------------------------


def test_gemini_set_mode_error_keeps_its_details() -> None:
    error = RpcError.from_wire(
        {
            "code": -32603,
            "message": "Internal error",
            "data": {"details": "Cannot enable privileged approval modes in an untrusted folder."},
        }
    )
    assert error.describe() == (
        "Internal error: Cannot enable privileged approval modes in an untrusted folder."
    )


def test_error_reason_from_data_message_or_a_string() -> None:
    assert RpcError(1, "Failed", {"message": "disk full"}).describe() == "Failed: disk full"
    assert RpcError(1, "Failed", "quota exceeded").describe() == "Failed: quota exceeded"
    assert RpcError(1, "Failed", {"details": 3, "message": "why"}).describe() == "Failed: why"


def test_error_without_a_useful_reason_is_its_message() -> None:
    assert RpcError(1, "Failed").describe() == "Failed"
    assert RpcError(1, "Failed", {"path": "/x"}).describe() == "Failed"
    assert RpcError(1, "Failed", ["a"]).describe() == "Failed"
    assert RpcError(1, "Failed", "  ").describe() == "Failed"
    assert RpcError(1, "Failed", {"details": "Failed"}).describe() == "Failed"
    assert RpcError(-5, "").describe() == "error -5"


def test_error_text_is_safe_and_short() -> None:
    error = RpcError.from_wire(
        {"code": INTERNAL_ERROR, "message": EVIL, "data": {"details": "why " + EVIL}}
    )
    assert error.describe() == f"{SHOWN}: why {SHOWN}"
    assert error.message == EVIL  # the exception itself keeps what the agent sent
    long = RpcError(1, "m" * 10_000, "d" * 10_000).describe()
    assert len(long) == 2 * MAX_SHOWN_CHARS + 2 and long.endswith("\u2026")
