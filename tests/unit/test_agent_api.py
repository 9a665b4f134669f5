"""`AgentApi`: what each call puts on the wire, and how it reads (or refuses) the answer."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, cast

import pytest

from acp_tui.protocol import methods
from acp_tui.protocol.agent_api import AgentApi, text_prompt
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.errors import MalformedAnswer, RpcError
from acp_tui.protocol.models import SessionConfigBoolean, SetProviderRequest
from tests.schema_check import FrameValidator


class FakeConnection:
    """Records what is sent, answers from a table; every frame checked against the schema."""

    def __init__(self, answers: dict[str, Any] | None = None, *, version: int = 1) -> None:
        self.answers = answers or {}
        self.sent: list[tuple[str, Any]] = []
        self.validator = FrameValidator(version=version)
        self.validator.allow_unknown_methods = True  # session/set_model is in no schema

    async def request(self, method: str, params: Any = None) -> Any:
        self.sent.append((method, params))
        self.validator.outgoing(
            {"jsonrpc": "2.0", "id": len(self.sent), "method": method, "params": params}
        )
        return self.answers.get(method, {})

    async def notify(self, method: str, params: Any = None) -> None:
        self.sent.append((method, params))
        self.validator.outgoing({"jsonrpc": "2.0", "method": method, "params": params})


def api(
    answers: dict[str, Any] | None = None, *, v2: bool = False
) -> tuple[AgentApi, FakeConnection]:
    connection = FakeConnection(answers, version=2 if v2 else 1)
    return AgentApi(cast(Connection, connection), v2=v2), connection


SERVERS = [{"name": "fs", "command": "/bin/mcp", "args": [], "env": []}]


async def test_each_call_sends_its_method_and_params() -> None:
    agent, wire = api(
        {
            methods.SESSION_NEW: {"sessionId": "s1"},
            methods.SESSION_FORK: {"sessionId": "s2"},
            methods.SESSION_PROMPT: {"stopReason": "end_turn"},
        }
    )
    await agent.authenticate("token")
    await agent.new_session("/p", SERVERS)
    await agent.load_session("s1", "/p", SERVERS)
    await agent.resume_session("s1", "/p", [])
    await agent.fork_session("s1", "/p", [])
    await agent.list_sessions("/p", "c1")
    await agent.set_mode("s1", "code")
    await agent.set_model("s1", "m1")
    await agent.set_config_option("s1", "fast", True)
    await agent.set_config_option("s1", "model", "big")
    await agent.prompt("s1", text_prompt("hi \x1b"))
    await agent.cancel("s1")
    await agent.close_session("s1")
    await agent.delete_session("s1")
    await agent.logout()
    await agent.list_providers()
    await agent.set_provider(SetProviderRequest(provider_id="p", api_type="openai", base_url="u"))
    await agent.disable_provider("p")
    assert wire.sent == [
        (methods.AUTHENTICATE, {"methodId": "token"}),
        (methods.SESSION_NEW, {"cwd": "/p", "mcpServers": SERVERS}),
        (methods.SESSION_LOAD, {"sessionId": "s1", "cwd": "/p", "mcpServers": SERVERS}),
        (methods.SESSION_RESUME, {"sessionId": "s1", "cwd": "/p", "mcpServers": []}),
        (methods.SESSION_FORK, {"sessionId": "s1", "cwd": "/p", "mcpServers": []}),
        (methods.SESSION_LIST, {"cwd": "/p", "cursor": "c1"}),
        (methods.SESSION_SET_MODE, {"sessionId": "s1", "modeId": "code"}),
        (methods.SESSION_SET_MODEL, {"sessionId": "s1", "modelId": "m1"}),
        (
            methods.SESSION_SET_CONFIG_OPTION,
            {"sessionId": "s1", "configId": "fast", "value": True, "type": "boolean"},
        ),
        (
            methods.SESSION_SET_CONFIG_OPTION,
            {"sessionId": "s1", "configId": "model", "value": "big"},
        ),
        # the user's own text goes out exactly as typed
        (
            methods.SESSION_PROMPT,
            {"sessionId": "s1", "prompt": [{"type": "text", "text": "hi \x1b"}]},
        ),
        (methods.SESSION_CANCEL, {"sessionId": "s1"}),
        (methods.SESSION_CLOSE, {"sessionId": "s1"}),
        (methods.SESSION_DELETE, {"sessionId": "s1"}),
        (methods.LOGOUT, {}),
        (methods.PROVIDERS_LIST, {}),
        (methods.PROVIDERS_SET, {"providerId": "p", "apiType": "openai", "baseUrl": "u"}),
        (methods.PROVIDERS_DISABLE, {"providerId": "p"}),
    ]
    assert wire.validator.checked == len(wire.sent)


async def test_answers_come_back_as_models_with_agent_text_made_safe() -> None:
    agent, _ = api(
        {
            methods.SESSION_PROMPT: {"stopReason": "end\x1b[2J_turn"},
            methods.SESSION_LIST: {
                "sessions": [{"sessionId": "a", "title": "t\x07", "cwd": "/p"}, {"title": "no id"}],
                "nextCursor": "n",
            },
            methods.SESSION_NEW: {
                "sessionId": "s1",
                "modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}]},
                "models": {"currentModelId": "m"},
            },
        }
    )
    assert (await agent.prompt("s1", [])).stop_reason == "end␛[2J_turn"
    page = await agent.list_sessions("/p")
    assert [(s.session_id, s.title) for s in page.sessions] == [("a", "t␇")]
    assert page.next_cursor == "n"
    new = await agent.new_session("/p", [])
    assert new.session_id == "s1"
    assert new.modes is not None and new.modes.current_mode_id == "ask"
    assert (new.model_extra or {})["models"] == {"currentModelId": "m"}  # unstable, kept raw


@pytest.mark.parametrize(
    ("method", "answer", "message"),
    [
        (methods.SESSION_NEW, 7, "the agent's session/new answer is not an object"),
        (methods.SESSION_NEW, None, "the agent's session/new answer has no sessionId"),
        (methods.SESSION_NEW, {"modes": {}}, "the agent's session/new answer has no sessionId"),
        (methods.SESSION_PROMPT, {}, "the agent's session/prompt answer has no stopReason"),
        (methods.SESSION_FORK, {"sessionId": 7}, "the agent's session/fork answer is malformed"),
        (methods.SESSION_LIST, "sessions", "the agent's session/list answer is not an object"),
        (
            methods.PROVIDERS_LIST,
            {"providers": 3},
            "the agent's providers/list answer is malformed",
        ),
    ],
)
async def test_a_malformed_answer_is_an_rpc_error_that_says_what_is_wrong(
    method: str, answer: Any, message: str
) -> None:
    agent, _ = api({method: answer})
    calls: dict[str, Callable[[], Awaitable[object]]] = {
        methods.SESSION_NEW: lambda: agent.new_session("/p", []),
        methods.SESSION_PROMPT: lambda: agent.prompt("s1", []),
        methods.SESSION_FORK: lambda: agent.fork_session("s1", "/p", []),
        methods.SESSION_LIST: lambda: agent.list_sessions("/p"),
        methods.PROVIDERS_LIST: lambda: agent.list_providers(),
    }
    with pytest.raises(MalformedAnswer) as caught:
        await calls[method]()
    assert isinstance(caught.value, RpcError)
    assert caught.value.describe().startswith(message)
    assert "pydantic" not in caught.value.describe()


async def test_a_null_answer_reads_as_an_empty_one() -> None:
    agent, _ = api({methods.SESSION_LOAD: None, methods.SESSION_SET_CONFIG_OPTION: None})
    loaded = await agent.load_session("s1", "/p", [])
    assert loaded.modes is None and loaded.config_options is None
    answer = await agent.set_config_option("s1", "fast", True)
    assert "config_options" not in answer.model_fields_set  # the caller assumes it took


async def test_v2_names_login_and_logout_its_way_and_reads_configid_options() -> None:
    option = {"configId": "fast", "name": "Fast", "type": "boolean", "currentValue": True}
    agent, wire = api({methods.SESSION_SET_CONFIG_OPTION: {"configOptions": [option]}}, v2=True)
    await agent.authenticate("token")
    await agent.logout()
    answer = await agent.set_config_option("s1", "mode", "plan")
    await agent.submit_prompt("s1", text_prompt("hi"))
    await agent.resume_session("s1", "/p", SERVERS, replay=True)
    assert [method for method, _ in wire.sent] == [
        methods.AUTH_LOGIN,
        methods.AUTH_LOGOUT,
        methods.SESSION_SET_CONFIG_OPTION,
        methods.SESSION_PROMPT,
        methods.SESSION_RESUME,
    ]
    assert wire.sent[4][1] == {
        "sessionId": "s1",
        "cwd": "/p",
        "mcpServers": [{**SERVERS[0], "type": "stdio"}],
        "replayFrom": {"type": "start"},
    }
    assert wire.sent[2][1] == {"sessionId": "s1", "configId": "mode", "value": "plan", "type": "id"}
    assert [type(o) for o in answer.config_options] == [SessionConfigBoolean]
    assert answer.config_options[0].id == "fast"


async def test_without_a_connection_every_call_says_the_agent_is_not_running() -> None:
    agent = AgentApi(None)
    with pytest.raises(ConnectionClosed, match="not running; cannot send session/prompt"):
        await agent.prompt("s1", [])
    with pytest.raises(ConnectionClosed, match="cannot send session/cancel"):
        await agent.cancel("s1")
