"""ACP models: outgoing frames match the schema, incoming ones round-trip, unknowns are kept."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from acp_tui.protocol import models as m
from acp_tui.protocol.models import to_wire
from tests.schema_check import FrameValidator, _check, schema_defs

# ---- outgoing: what acp-tui builds validates against the pinned schema -------------------------


def test_initialize_request_with_client_info_and_capabilities() -> None:
    request = m.InitializeRequest(
        client_capabilities=m.ClientCapabilities(
            fs=m.FileSystemCapabilities(read_text_file=True, write_text_file=True),
            terminal=True,
            auth=m.AuthCapabilities(terminal=True),
        ),
        client_info=m.Implementation(name="acp-tui", title="ACP TUI", version="0.1.0"),
    )
    wire = to_wire(request)
    _check("InitializeRequest", wire, "initialize params")
    assert wire == {
        "protocolVersion": 1,
        "clientCapabilities": {
            "fs": {"readTextFile": True, "writeTextFile": True},
            "terminal": True,
            "auth": {"terminal": True},
        },
        "clientInfo": {"name": "acp-tui", "title": "ACP TUI", "version": "0.1.0"},
    }


def test_session_requests_match_schema() -> None:
    servers: list[m.McpServer] = [
        m.McpServerStdio(
            name="fs", command="/bin/mcp", args=["-v"], env=[m.EnvVariable(name="A", value="1")]
        ),
        m.McpServerHttp(name="web", url="https://x", headers=[m.HttpHeader(name="H", value="v")]),
    ]
    new = to_wire(m.NewSessionRequest(cwd="/tmp/project", mcp_servers=servers))
    _check("NewSessionRequest", new, "session/new params")
    assert new["mcpServers"][0] == {
        "name": "fs",
        "command": "/bin/mcp",
        "args": ["-v"],
        "env": [{"name": "A", "value": "1"}],
    }
    assert to_wire(m.NewSessionRequest(cwd="/p")) == {"cwd": "/p", "mcpServers": []}
    load = to_wire(m.LoadSessionRequest(session_id="s1", cwd="/p"))
    _check("LoadSessionRequest", load, "session/load params")
    _check(
        "SetSessionModeRequest", to_wire(m.SetSessionModeRequest(session_id="s", mode_id="ask")), ""
    )
    _check("AuthenticateRequest", to_wire(m.AuthenticateRequest(method_id="login")), "")
    cancel = to_wire(m.CancelNotification(session_id="s1"))
    _check("CancelNotification", cancel, "session/cancel params")
    assert cancel == {"sessionId": "s1"}
    for request in (
        m.SetSessionConfigOptionRequest(session_id="s", config_id="model", value="fast"),
        m.SetSessionConfigOptionRequest(session_id="s", config_id="x", value=True, type="boolean"),
    ):
        _check("SetSessionConfigOptionRequest", to_wire(request), "set_config_option params")


def test_prompt_request_with_text_resource_link_and_resource() -> None:
    request = m.PromptRequest(
        session_id="s1",
        prompt=[
            m.text_block("explain @main.py"),
            m.ResourceLink(name="main.py", uri="file:///p/main.py", mime_type="text/x-python"),
            m.EmbeddedResource(
                resource=m.TextResourceContents(uri="file:///p/a.txt", text="hello")
            ),
            m.ImageContent(data="aGk=", mime_type="image/png"),
        ],
    )
    wire = to_wire(request)
    _check("PromptRequest", wire, "session/prompt params")
    assert wire["prompt"][0] == {"type": "text", "text": "explain @main.py"}
    assert wire["prompt"][1] == {
        "type": "resource_link",
        "name": "main.py",
        "uri": "file:///p/main.py",
        "mimeType": "text/x-python",
    }


def test_permission_responses_match_schema() -> None:
    selected = to_wire(m.RequestPermissionResponse.selected("allow-once"))
    cancelled = to_wire(m.RequestPermissionResponse.cancelled())
    assert selected == {"outcome": {"outcome": "selected", "optionId": "allow-once"}}
    assert cancelled == {"outcome": {"outcome": "cancelled"}}
    for value in (selected, cancelled):
        _check("RequestPermissionResponse", value, "permission response")


@pytest.mark.parametrize(
    ("definition", "model"),
    [
        ("ReadTextFileResponse", m.ReadTextFileResponse(content="line 1\n")),
        ("WriteTextFileResponse", m.WriteTextFileResponse()),
        ("CreateTerminalResponse", m.CreateTerminalResponse(terminal_id="term-1")),
        (
            "TerminalOutputResponse",
            m.TerminalOutputResponse(
                output="ok\n", truncated=False, exit_status=m.TerminalExitStatus(exit_code=0)
            ),
        ),
        ("TerminalOutputResponse", m.TerminalOutputResponse(output="", truncated=True)),
        ("ReleaseTerminalResponse", m.ReleaseTerminalResponse()),
        ("WaitForTerminalExitResponse", m.WaitForTerminalExitResponse(signal="SIGTERM")),
        ("KillTerminalResponse", m.KillTerminalResponse()),
    ],
)
def test_fs_and_terminal_responses_match_schema(definition: str, model: m.AcpModel) -> None:
    _check(definition, to_wire(model), definition)


def test_frame_validator_accepts_a_whole_exchange() -> None:
    validator = FrameValidator()
    request = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": to_wire(m.InitializeRequest()),
    }
    validator.outgoing(json.dumps(request))
    validator.incoming(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "fs/read_text_file",
            "params": {"sessionId": "s", "path": "/a"},
        }
    )
    answer = to_wire(m.ReadTextFileResponse(content="x"))
    validator.outgoing({"jsonrpc": "2.0", "id": 7, "result": answer})
    assert validator.checked == 2


# ---- incoming: parse the agent's messages, keep everything ------------------------------------

META = {"trace": "abc", "nested": {"k": [1, 2]}}

UPDATE_EXAMPLES: list[dict[str, Any]] = [
    {
        "sessionUpdate": "agent_message_chunk",
        "content": {"type": "text", "text": "Hi", "_meta": META, "annotations": {"priority": 0.5}},
        "messageId": "m1",
        "_meta": META,
        "vendorExtra": {"x": 1},
    },
    {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "q"}},
    {
        "sessionUpdate": "agent_thought_chunk",
        "content": {"type": "image", "data": "aGk=", "mimeType": "image/png", "uri": "file:///i"},
    },
    {
        "sessionUpdate": "tool_call",
        "toolCallId": "call_1",
        "title": "Edit main.py",
        "kind": "edit",
        "status": "in_progress",
        "content": [
            {"type": "diff", "path": "/p/main.py", "oldText": "a", "newText": "b", "_meta": META},
            {"type": "content", "content": {"type": "text", "text": "note"}},
            {"type": "terminal", "terminalId": "term-1"},
        ],
        "locations": [{"path": "/p/main.py", "line": 3}],
        "rawInput": {"path": "/p/main.py", "n": [1, None]},
        "rawOutput": "done",
        "_meta": META,
    },
    {"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed"},
    {
        "sessionUpdate": "plan",
        "entries": [{"content": "Read", "priority": "high", "status": "pending", "_meta": META}],
    },
    {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [
            {"name": "web", "description": "Search", "input": {"hint": "query"}},
            {"name": "test", "description": "Run tests"},
        ],
    },
    {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
    {
        "sessionUpdate": "config_option_update",
        "configOptions": [
            {
                "type": "select",
                "id": "model",
                "name": "Model",
                "category": "model",
                "currentValue": "fast",
                "options": [{"value": "fast", "name": "Fast"}, {"value": "slow", "name": "Slow"}],
            },
            {
                "type": "select",
                "id": "grouped",
                "name": "Grouped",
                "currentValue": "a",
                "options": [{"group": "g", "name": "G", "options": [{"value": "a", "name": "A"}]}],
            },
            {"type": "boolean", "id": "yolo", "name": "Yolo", "currentValue": False},
        ],
    },
    {"sessionUpdate": "session_info_update", "title": "Fix bug", "updatedAt": "2026-01-01T00:00Z"},
    {
        "sessionUpdate": "usage_update",
        "used": 1200,
        "size": 200000,
        "cost": {"amount": 0.12, "currency": "USD"},
    },
]


@pytest.mark.parametrize("raw", UPDATE_EXAMPLES, ids=[u["sessionUpdate"] for u in UPDATE_EXAMPLES])
def test_update_examples_are_valid_and_round_trip(raw: dict[str, Any]) -> None:
    _check("SessionNotification", {"sessionId": "s", "update": raw}, "example")
    original = copy.deepcopy(raw)
    update = m.parse_session_update(raw)
    assert not isinstance(update, m.UnknownUpdate), update
    assert type(update) is m.UPDATE_TYPES[raw["sessionUpdate"]]
    assert to_wire(update) == original
    assert raw == original  # parsing did not mutate the input


def test_fields_are_snake_case_in_python() -> None:
    update = m.parse_session_update(UPDATE_EXAMPLES[3])
    assert isinstance(update, m.ToolCall)
    assert update.meta == META
    assert update.raw_input == {"path": "/p/main.py", "n": [1, None]}
    diff, content, terminal = update.content
    assert isinstance(diff, m.Diff) and diff.old_text == "a" and diff.meta == META
    assert isinstance(content, m.Content) and isinstance(content.content, m.TextContent)
    assert isinstance(terminal, m.Terminal) and terminal.terminal_id == "term-1"
    assert update.locations[0].line == 3
    chunk = m.parse_session_update(UPDATE_EXAMPLES[0])
    assert isinstance(chunk, m.AgentMessageChunk)
    assert chunk.message_id == "m1" and chunk.model_extra == {"vendorExtra": {"x": 1}}


def _unstable_check(definition: str, value: Any) -> None:
    defs = schema_defs(unstable=True)
    validator = Draft202012Validator({"$ref": f"#/$defs/{definition}", "$defs": defs})
    validator.validate(value)


@pytest.mark.parametrize(
    "plan",
    [
        {"type": "items", "planId": "p1", "entries": [
            {"content": "a", "priority": "low", "status": "completed"}
        ]},
        {"type": "file", "planId": "p2", "uri": "file:///plan.md"},
        {"type": "markdown", "planId": "p3", "content": "# Plan\n- a"},
    ],
)  # fmt: skip
def test_unstable_plan_update_variants(plan: dict[str, Any]) -> None:
    raw = {"sessionUpdate": "plan_update", "plan": plan}
    _unstable_check("SessionUpdate", raw)
    update = m.parse_session_update(raw)
    assert isinstance(update, m.PlanUpdate)
    assert update.plan.plan_id == plan["planId"]
    assert to_wire(update) == raw
    spelled_id = {**plan, "id": plan["planId"]}
    del spelled_id["planId"]
    update = m.parse_session_update({"sessionUpdate": "plan_update", "plan": spelled_id})
    assert isinstance(update, m.PlanUpdate) and update.plan.plan_id == plan["planId"]


def test_plan_removed_accepts_both_id_spellings() -> None:
    raw = {"sessionUpdate": "plan_removed", "planId": "p1"}
    _unstable_check("SessionUpdate", raw)
    for spelling in (raw, {"sessionUpdate": "plan_removed", "id": "p1"}):
        update = m.parse_session_update(spelling)
        assert isinstance(update, m.PlanRemoved) and update.plan_id == "p1"


def test_unknown_plan_content_type_is_kept() -> None:
    raw = {"sessionUpdate": "plan_update", "plan": {"type": "graph", "planId": "p", "nodes": []}}
    update = m.parse_session_update(raw)
    assert isinstance(update, m.PlanUpdate) and isinstance(update.plan, m.UnknownPlanContent)
    assert update.plan.plan_id == "p" and update.plan.raw == raw["plan"]


# ---- unknown and invalid things are kept, never raised ----------------------------------------


def test_unknown_update_variant_keeps_raw_dict() -> None:
    raw = {"sessionUpdate": "future_update", "status": "started", "_meta": META}
    update = m.parse_session_update(raw)
    assert isinstance(update, m.UnknownUpdate)
    assert update.raw == raw and update.error is None
    assert update.session_update == "future_update"


def test_invalid_known_update_becomes_unknown_with_reason() -> None:
    raw = {"sessionUpdate": "tool_call", "title": "no id"}
    update = m.parse_session_update(raw)
    assert isinstance(update, m.UnknownUpdate) and update.raw == raw
    assert update.error is not None and "toolCallId" in update.error


@pytest.mark.parametrize("raw", [None, "text", 3, [1], {"no": "tag"}, {"sessionUpdate": 5}])
def test_non_update_values_become_unknown(raw: Any) -> None:
    update = m.parse_session_update(raw)
    assert isinstance(update, m.UnknownUpdate) and update.raw == raw


def test_unknown_content_block_is_kept() -> None:
    raw = {"sessionUpdate": "agent_message_chunk", "content": {"type": "video", "url": "x"}}
    update = m.parse_session_update(raw)
    assert isinstance(update, m.AgentMessageChunk)
    assert isinstance(update.content, m.UnknownContent)
    assert update.content.type == "video" and update.content.raw == {"type": "video", "url": "x"}
    assert to_wire(update) == raw
    invalid_text = m.parse_content_block({"type": "text", "text": 5})
    assert isinstance(invalid_text, m.UnknownContent) and invalid_text.type == "text"
    assert isinstance(m.parse_content_block("just a string"), m.UnknownContent)


def test_unknown_kinds_statuses_and_stop_reasons_are_plain_strings() -> None:
    update = m.parse_session_update(
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t",
            "title": "x",
            "kind": "teleport",
            "status": "queued",
            "content": [{"type": "hologram", "data": 1}],
        }
    )
    assert isinstance(update, m.ToolCall)
    assert (update.kind, update.status) == ("teleport", "queued")
    assert isinstance(update.content[0], m.UnknownToolCallContent)
    assert update.content[0].raw == {"type": "hologram", "data": 1}
    response = m.PromptResponse.model_validate({"stopReason": "out_of_budget", "extra": 1})
    assert response.stop_reason == "out_of_budget" and response.model_extra == {"extra": 1}
    option = m.PermissionOption.model_validate({"optionId": "o", "name": "N", "kind": "maybe"})
    assert option.kind == "maybe"


def test_initialize_response_with_auth_methods_and_capabilities() -> None:
    response = m.InitializeResponse.model_validate(
        {
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": True,
                "promptCapabilities": {"image": True, "embeddedContext": True},
                "sessionCapabilities": {"list": {}, "close": {}},
                "futureCapability": {"x": 1},
            },
            "authMethods": [
                {"id": "oauth", "name": "Log in", "description": "Browser login"},
                {"type": "terminal", "id": "cli", "name": "CLI", "args": ["login"], "env": {}},
                {"type": "env_var", "id": "key", "name": "API key", "varName": "KEY"},
            ],
            "agentInfo": {"name": "agent", "version": "1.0"},
        }
    )
    caps = response.agent_capabilities
    assert caps.load_session and caps.prompt_capabilities.image
    assert not caps.prompt_capabilities.audio and caps.prompt_capabilities.embedded_context
    assert caps.session_capabilities.list == {} and caps.session_capabilities.resume is None
    assert caps.model_extra == {"futureCapability": {"x": 1}}
    agent, terminal, other = response.auth_methods
    assert isinstance(agent, m.AuthMethodAgent) and agent.description == "Browser login"
    assert isinstance(terminal, m.AuthMethodTerminal) and terminal.args == ["login"]
    # an auth type newer than the schema still parses (as the default "agent" method), type kept
    assert isinstance(other, m.AuthMethodAgent) and other.model_extra == {
        "type": "env_var",
        "varName": "KEY",
    }
    assert response.agent_info is not None and response.agent_info.name == "agent"


def test_new_session_response_with_modes_and_config() -> None:
    response = m.NewSessionResponse.model_validate(
        {
            "sessionId": "s1",
            "modes": {
                "currentModeId": "ask",
                "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}],
            },
            "configOptions": UPDATE_EXAMPLES[8]["configOptions"],
        }
    )
    assert response.modes is not None and response.modes.current_mode_id == "ask"
    assert [mode.id for mode in response.modes.available_modes] == ["ask", "code"]
    assert response.config_options is not None
    select, grouped, boolean = response.config_options
    assert isinstance(select, m.SessionConfigSelect) and select.current_value == "fast"
    assert isinstance(grouped, m.SessionConfigSelect)
    assert [o.value for o in grouped.flat_options()] == ["a"]
    assert isinstance(boolean, m.SessionConfigBoolean) and boolean.current_value is False


def test_permission_request_parses_tool_call_and_options() -> None:
    request = m.RequestPermissionRequest.model_validate(
        {
            "sessionId": "s",
            "toolCall": {"toolCallId": "call_1"},
            "options": [
                {"optionId": "a", "name": "Allow", "kind": "allow_once"},
                {"optionId": "r", "name": "Reject", "kind": "reject_always"},
            ],
        }
    )
    assert request.tool_call.tool_call_id == "call_1"
    assert request.tool_call.model_fields_set == {"tool_call_id"}
    assert [o.kind for o in request.options] == ["allow_once", "reject_always"]


def test_agent_requests_to_client_parse() -> None:
    create = m.CreateTerminalRequest.model_validate(
        {
            "sessionId": "s",
            "command": "ls",
            "args": ["-la"],
            "env": [{"name": "A", "value": "1"}],
            "cwd": "/p",
            "outputByteLimit": 1000,
        }
    )
    assert create.output_byte_limit == 1000 and create.env[0].name == "A"
    read = m.ReadTextFileRequest.model_validate({"sessionId": "s", "path": "/a", "line": 2})
    assert (read.line, read.limit) == (2, None)
    write = m.WriteTextFileRequest.model_validate({"sessionId": "s", "path": "/a", "content": ""})
    assert write.content == ""
    for model in (m.TerminalOutputRequest, m.KillTerminalRequest, m.ReleaseTerminalRequest):
        assert model.model_validate({"sessionId": "s", "terminalId": "t"}).terminal_id == "t"


# ---- property: parse_session_update never raises ----------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)
_keys = st.sampled_from(
    ["content", "toolCallId", "title", "entries", "plan", "planId", "id", "messageId", "kind",
     "status", "locations", "availableCommands", "currentModeId", "configOptions", "used", "size",
     "type", "text", "_meta"]
)  # fmt: skip
_content = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "resource_link", "resource", "zz"])},
    optional={"text": _json, "data": _json, "uri": _json, "name": _json, "resource": _json},
)
_updates = st.fixed_dictionaries(
    {"sessionUpdate": st.sampled_from([*m.UPDATE_TYPES, "new_thing"]) | _json},
    optional={"content": _content | _json},
).flatmap(
    lambda base: st.dictionaries(_keys, _json | _content, max_size=5).map(
        lambda extra: {**extra, **base}
    )
)


@settings(max_examples=150, deadline=None)
@given(_updates)
def test_parse_session_update_never_raises(raw: dict[str, Any]) -> None:
    update = m.parse_session_update(raw)
    if isinstance(update, m.UnknownUpdate):
        assert update.raw is raw
    else:
        assert update.session_update == raw["sessionUpdate"]
        json.dumps(to_wire(update))


@settings(max_examples=100, deadline=None)
@given(_content | _json)
@example({"type": []})  # an unhashable type once raised TypeError
def test_parse_content_block_never_raises(raw: Any) -> None:
    block = m.parse_content_block(raw)
    json.dumps(to_wire(block))
