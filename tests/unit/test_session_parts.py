"""The parts of a session, each on a small fake of what it needs from the session (its Protocol
in the part's module), no agent and no UI: logging out, config options/models/modes, the
providers requests, the MCP offer, the prompt queue, the command name, what `initialize`
answered (v1 and v2)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import pytest

from acp_tui.client import logout, providers
from acp_tui.client.command_name import command_name
from acp_tui.client.events import Notice
from acp_tui.client.handshake import HandshakeError, read_initialize_result
from acp_tui.client.hello import AuthMethodInfo
from acp_tui.client.mcp_offer import servers_for
from acp_tui.client.prompt_queue import PromptQueue
from acp_tui.client.session import config as session_config
from acp_tui.protocol.agent_api import AgentApi
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.models import AgentCapabilities
from acp_tui.signal import Signal
from acp_tui.thread.config_options import ModelInfo, ModelState
from acp_tui.thread.thread import Thread


@dataclass
class FakeSession:
    """Answers each request from `answers` (an exception is raised) and keeps what was sent."""

    answers: dict[str, Any] = field(default_factory=dict)
    sent: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    speaks_v2: bool = False
    agent_capabilities: AgentCapabilities = field(default_factory=AgentCapabilities)
    auth_methods: Sequence[AuthMethodInfo] = ()
    agent_name: str = "Fake"
    session_id: str | None = "s1"
    thread: Thread = field(default_factory=Thread)
    mcp_servers: list[dict[str, Any]] = field(default_factory=list)
    mcp_sent: list[dict[str, Any]] = field(default_factory=list)
    notices: Signal[Notice] = field(default_factory=lambda: Signal("notices"))
    v2: None = None

    @property
    def connection(self) -> Connection:
        """The fake is its own connection."""
        return cast(Connection, self)

    @property
    def api(self) -> AgentApi:
        """The typed calls, sent through `request` below (the fake is its own connection)."""
        return AgentApi(cast(Connection, self), v2=self.speaks_v2)

    async def request(self, method: str, params: dict[str, Any]) -> Any:
        self.sent.append((method, params))
        answer = self.answers.get(method, {})
        if isinstance(answer, BaseException):
            raise answer
        return answer


METHOD = AuthMethodInfo("key", "API key", None, "agent")


# ---- logout -------------------------------------------------------------------------------------


async def test_logout_v1_only_when_offered_and_its_error_is_told() -> None:
    session = FakeSession()
    assert not logout.can_logout(session)
    session.agent_capabilities = AgentCapabilities.model_validate({"auth": {"logout": {}}})
    assert logout.can_logout(session)
    assert await logout.logout(session) is None
    assert session.sent == [("logout", {})]
    session.answers["logout"] = RpcError(-32000, "nope", {"details": "still busy"})
    assert await logout.logout(session) == "nope: still busy"


async def test_logout_v2_is_auth_logout_whenever_there_are_auth_methods() -> None:
    session = FakeSession(speaks_v2=True)
    assert not logout.can_logout(session)
    session.auth_methods = [METHOD]
    assert logout.can_logout(session)
    session.answers["auth/logout"] = ConnectionClosed("gone")
    assert await logout.logout(session) == "the agent is not running"
    assert session.sent == [("auth/logout", {})]


# ---- config options, models, modes -------------------------------------------------------------

SELECT = {
    "id": "model",
    "name": "Model",
    "type": "select",
    "category": "model",
    "currentValue": "a",
    "options": [{"value": "a", "name": "A"}, {"value": "b", "name": "B"}],
}
MODE_OPTION = {
    "id": "mode",
    "name": "Mode",
    "type": "select",
    "category": "mode",
    "currentValue": "ask",
    "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}],
}


async def test_a_config_option_answered_with_the_full_list_replaces_the_list() -> None:
    session = FakeSession()
    session.thread.set_config_options([SELECT])
    session.answers["session/set_config_option"] = {
        "configOptions": [{**SELECT, "currentValue": "b"}]
    }
    assert await session_config.set_config_option(session, "model", "b") is None
    assert session.sent == [
        ("session/set_config_option", {"sessionId": "s1", "configId": "model", "value": "b"})
    ]
    [option] = session.thread.config_options
    assert option.current_value == "b"


async def test_a_config_option_v2_names_the_value_type_and_a_bare_answer_is_assumed() -> None:
    session = FakeSession(speaks_v2=True)
    session.thread.set_config_options([SELECT])
    assert await session_config.set_config_option(session, "model", "b") is None
    assert session.sent[0][1]["type"] == "id"
    assert session.thread.config_options[0].current_value == "b"  # the answer had no list


async def test_config_option_errors_and_no_session() -> None:
    session = FakeSession(session_id=None)
    assert await session_config.set_config_option(session, "model", "b") == "no session"
    assert session.sent == []
    session = FakeSession(answers={"session/set_model": RpcError(-32602, "unknown model")})
    session.thread.set_models(ModelState("a", [ModelInfo("a", "A"), ModelInfo("b", "B")]))
    assert await session_config.set_model(session, "zzz") == "unknown model"
    assert session.thread.models is not None and session.thread.models.current_id == "a"
    session.answers.clear()
    assert await session_config.set_model(session, "b") is None
    assert session.thread.models.current_id == "b"


async def test_choose_mode_uses_the_mode_option_when_the_agent_has_no_modes() -> None:
    session = FakeSession()
    session.thread.set_config_options([MODE_OPTION])
    assert await session_config.choose_mode(session, "code") is None
    assert [method for method, _ in session.sent] == ["session/set_config_option"]
    assert session.sent[0][1]["configId"] == "mode"
    plain = FakeSession()
    assert await session_config.choose_mode(plain, "code") is None
    assert plain.sent == [("session/set_mode", {"sessionId": "s1", "modeId": "code"})]
    assert plain.thread.current_mode_id == "code"


# ---- providers ----------------------------------------------------------------------------------


async def test_providers_list_set_disable() -> None:
    listed = {"providers": [{"providerId": "openai", "supported": ["openai"], "required": False}]}
    session = FakeSession(answers={"providers/list": listed})
    found, error = await providers.list_providers(session)
    assert error is None and [p.provider_id for p in found] == ["openai"]
    assert await providers.set_provider(session, "openai", "openai", "https://x", {}) is None
    method, params = session.sent[-1]
    assert method == "providers/set" and params["baseUrl"] == "https://x"
    assert "headers" not in params  # none given: none sent
    session.answers["providers/disable"] = RpcError(-32601, "Method not found")
    assert await providers.disable_provider(session, "openai") == "Method not found"
    session.answers["providers/list"] = {"providers": "nope"}
    assert await providers.list_providers(session) == (
        [],
        "the agent's providers/list answer is malformed (providers: Input should be a valid list)",
    )


def test_provider_headers_are_parsed_line_by_line() -> None:
    assert providers.parse_headers("A: 1\n\nB:two words ") == ({"A": "1", "B": "two words"}, None)
    assert providers.parse_headers("A 1") == ({}, "header line 1 is not 'Name: value'")


# ---- MCP offer ---------------------------------------------------------------------------------


def test_the_mcp_offer_sends_what_the_agent_takes_and_tells_the_rest() -> None:
    stdio = {"name": "fs", "command": "mcp-fs", "args": [], "env": []}
    http = {"name": "web", "type": "http", "url": "https://m", "headers": []}
    session = FakeSession(mcp_servers=[stdio, http])
    told: list[Notice] = []
    session.notices.subscribe(told.append)
    assert servers_for(session) == [stdio]
    assert session.mcp_sent == [stdio]
    assert [n.severity for n in told] == ["warning"]
    assert "web (http)" in told[0].text and "Fake" in told[0].text
    session.agent_capabilities = AgentCapabilities.model_validate(
        {"mcpCapabilities": {"http": True}}
    )
    assert servers_for(session) == [stdio, http]
    assert len(told) == 1


# ---- the prompt queue --------------------------------------------------------------------------


def test_the_prompt_queue_keeps_order_ids_and_tells_every_change() -> None:
    queue = PromptQueue()
    seen: list[list[str]] = []
    queue.changed.subscribe(lambda items: seen.append([i.text for i in items]))
    first = queue.add("one")
    second = queue.add("two")
    v2 = queue.add("three", item_id=queue.next_id(), sent=True)
    assert [first.id, second.id] == [1, 2] and v2.id == 3 and v2.sent
    assert first.id in queue and 99 not in queue
    queue.remove(second.id)
    popped = queue.pop()
    assert popped is first
    assert queue.pop() is v2 and queue.pop() is None
    assert seen == [
        ["one"],
        ["one", "two"],
        ["one", "two", "three"],
        ["one", "three"],
        ["three"],
        [],
    ]


# ---- names and handshakes ----------------------------------------------------------------------


def test_command_name_is_the_program_or_its_script() -> None:
    assert command_name(["/usr/bin/claude-code-acp", "--x"]) == "claude-code-acp"
    assert command_name([]) == "agent"


def test_initialize_v1_and_v2_answers_read_into_one_hello() -> None:
    v1 = read_initialize_result(
        {
            "protocolVersion": 1,
            "agentInfo": {"name": "a", "version": "1"},
            "authMethods": [{"id": "k", "name": "Key"}],
        }
    )
    assert v1.protocol_version == 1 and [m.id for m in v1.auth_methods] == ["k"]
    v2 = read_initialize_result(
        {
            "protocolVersion": 2,
            "info": {"name": "b", "version": "2"},
            "capabilities": {},
            "authMethods": [{"methodId": "t", "name": "Login", "type": "agent"}],
        },
        offered=2,
    )
    assert v2.protocol_version == 2 and [m.id for m in v2.auth_methods] == ["t"]
    assert v2.capabilities.session_capabilities.resume is not None  # v2: baseline methods
    with pytest.raises(HandshakeError, match="protocol version 7"):
        read_initialize_result({"protocolVersion": 7})
    with pytest.raises(HandshakeError, match="malformed"):
        read_initialize_result({"protocolVersion": "one"})
