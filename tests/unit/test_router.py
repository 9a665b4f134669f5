"""The router: each method's params are validated by its model once; bad ones are -32602."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from acp_tui.protocol.models import (
    KillTerminalRequest,
    ReadTextFileRequest,
    RequestPermissionRequest,
    TerminalExitStatus,
)
from acp_tui.protocol.router import CLIENT_REQUESTS, Router
from tests.unit.test_connection_helpers import socket_pair

VALID: dict[str, dict[str, Any]] = {
    "session/request_permission": {
        "sessionId": "s",
        "toolCall": {"toolCallId": "t"},
        "options": [{"optionId": "o", "name": "Allow", "kind": "allow_once"}],
    },
    "fs/read_text_file": {"sessionId": "s", "path": "/a"},
    "fs/write_text_file": {"sessionId": "s", "path": "/a", "content": ""},
    "terminal/create": {"sessionId": "s", "command": "ls"},
    "terminal/output": {"sessionId": "s", "terminalId": "t"},
    "terminal/release": {"sessionId": "s", "terminalId": "t"},
    "terminal/wait_for_exit": {"sessionId": "s", "terminalId": "t"},
    "terminal/kill": {"sessionId": "s", "terminalId": "t"},
}


async def test_every_client_method_gets_typed_params_or_invalid_params() -> None:
    received: list[tuple[str, BaseModel]] = []
    router = Router()
    for method, model in CLIENT_REQUESTS.items():

        async def handler(params: BaseModel, method: str = method) -> dict[str, Any]:
            received.append((method, params))
            return {}

        router.route(method, model, handler)
    conn, peer = await socket_pair()
    router.install(conn)
    conn.start()
    for number, (method, params) in enumerate(VALID.items()):
        await peer.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        assert (await peer.recv()) == {"jsonrpc": "2.0", "id": number, "result": {}}
        assert received[-1][0] == method
        assert type(received[-1][1]) is CLIENT_REQUESTS[method]
    malformed: list[Any] = [None, [], "x", {"sessionId": 3}]
    for bad in malformed:
        for method in CLIENT_REQUESTS:
            await peer.send({"jsonrpc": "2.0", "id": "bad", "method": method, "params": bad})
            reply = await peer.recv()
            assert reply["error"]["code"] == -32602, (method, bad, reply)
            assert reply["error"]["data"]  # which fields were wrong
            assert all("input" not in problem for problem in reply["error"]["data"])
    assert len(received) == len(VALID)
    await conn.close()


async def test_a_model_result_is_sent_as_its_wire_form() -> None:
    router = Router()

    async def kill(params: KillTerminalRequest) -> TerminalExitStatus:
        return TerminalExitStatus(exit_code=3)

    router.route("terminal/kill", KillTerminalRequest, kill)
    conn, peer = await socket_pair()
    router.install(conn)
    conn.start()
    params = {"sessionId": "s", "terminalId": "t"}
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "terminal/kill", "params": params})
    reply = await peer.recv()
    assert reply == {"jsonrpc": "2.0", "id": 1, "result": {"exitCode": 3}}
    await conn.close()


def test_a_method_cannot_be_routed_with_another_methods_model() -> None:
    async def read(params: RequestPermissionRequest) -> dict[str, Any]:
        return {}

    with pytest.raises(TypeError, match="ReadTextFileRequest"):
        Router().route("fs/read_text_file", RequestPermissionRequest, read)
    assert ReadTextFileRequest is CLIENT_REQUESTS["fs/read_text_file"]
