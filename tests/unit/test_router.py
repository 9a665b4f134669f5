"""The router: each method's params are validated by its model once; bad ones are -32602."""

from __future__ import annotations

import inspect
import subprocess
import sys
from typing import Any

import pytest
from pydantic import BaseModel

from acp_tui.client.session.routes import v1_routes
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol import models
from acp_tui.protocol.models import (
    KillTerminalRequest,
    ReadTextFileRequest,
    RequestPermissionRequest,
    TerminalExitStatus,
)
from acp_tui.protocol.router import CLIENT_REQUESTS, Router, model_of
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
    for method in CLIENT_REQUESTS:

        async def handler(params: BaseModel, method: str = method) -> dict[str, Any]:
            received.append((method, params))
            return {}

        router.route_named(method, handler)
    conn, peer = await socket_pair()
    router.install(conn)
    conn.start()
    for number, (method, params) in enumerate(VALID.items()):
        await peer.send({"jsonrpc": "2.0", "id": number, "method": method, "params": params})
        assert (await peer.recv()) == {"jsonrpc": "2.0", "id": number, "result": {}}
        assert received[-1][0] == method
        assert type(received[-1][1]) is model_of(CLIENT_REQUESTS[method])
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
    assert ReadTextFileRequest is model_of(CLIENT_REQUESTS["fs/read_text_file"])
    with pytest.raises(TypeError, match="ReadTextFileRequest"):
        Router().route("fs/read_text_file", RequestPermissionRequest, read)


class _Handlers:
    """What `v1_routes` reads of a session, with the host services' methods unbound (their
    annotations are what is checked; the permission handler's own, its thread and broker bound)."""

    fs = FileSystemHost
    terminals = TerminalHost
    thread = permissions = None


def test_each_session_handler_takes_the_model_its_method_is_validated_by() -> None:
    # (`route_named` cannot check it: the model is built at the first request; a handler may
    # take a base of it, as `TerminalHost.output` takes any `TerminalRequest`)
    router = v1_routes(_Handlers())  # type: ignore[arg-type]
    assert sorted(router.methods) == sorted(CLIENT_REQUESTS)
    for method in router.methods:
        annotation = inspect.signature(router.handler(method)).parameters["params"].annotation
        taken = getattr(models, annotation)  # (the modules' annotations are strings)
        assert issubclass(model_of(CLIENT_REQUESTS[method]), taken), method


LATER_PROBE = """
import asyncio, sys
from acp_tui.protocol.router import Router
from tests.unit.test_connection_helpers import socket_pair

async def main():
    router = Router()
    seen = []

    async def read(params):
        seen.append(type(params).__name__)
        return {}

    router.route_named("fs/read_text_file", read)
    conn, peer = await socket_pair()
    router.install(conn)
    conn.start()
    print("acp_tui.protocol.models.client_methods" in sys.modules)
    params = {"sessionId": "s", "path": "/a"}
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "fs/read_text_file", "params": params})
    await peer.recv()
    print("acp_tui.protocol.models.client_methods" in sys.modules, *seen)
    await conn.close()

asyncio.run(main())
"""


def test_a_named_model_is_built_at_the_first_request_not_when_routed() -> None:
    result = subprocess.run(
        [sys.executable, "-c", LATER_PROBE], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["False", "True", "ReadTextFileRequest"]
