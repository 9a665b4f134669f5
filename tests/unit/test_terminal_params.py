"""terminal/* params are validated: bad ones get -32602, never a crash."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol.errors import INVALID_PARAMS, RpcError


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[TerminalHost]:
    terminal_host = TerminalHost(tmp_path)
    yield terminal_host
    await terminal_host.close_all()


BAD_CREATE: list[Any] = [
    None,
    [],
    "echo hi",
    {"command": "echo"},  # no sessionId
    {"sessionId": 1, "command": "echo"},
    {"sessionId": "s"},
    {"sessionId": "s", "command": ""},
    {"sessionId": "s", "command": "   "},
    {"sessionId": "s", "command": 42},
    {"sessionId": "s", "command": "echo\x00hi"},
    {"sessionId": "s", "command": "echo", "args": "hi"},
    {"sessionId": "s", "command": "echo", "args": [1]},
    {"sessionId": "s", "command": "echo", "args": ["a\x00b"]},
    {"sessionId": "s", "command": "echo", "env": {"A": "1"}},
    {"sessionId": "s", "command": "echo", "env": ["A=1"]},
    {"sessionId": "s", "command": "echo", "env": [{"name": "A"}]},
    {"sessionId": "s", "command": "echo", "env": [{"name": "A=B", "value": "1"}]},
    {"sessionId": "s", "command": "echo", "env": [{"name": "", "value": "1"}]},
    {"sessionId": "s", "command": "echo", "env": [{"name": "A", "value": "x\x00"}]},
    {"sessionId": "s", "command": "echo", "cwd": "relative/dir"},
    {"sessionId": "s", "command": "echo", "cwd": 7},
    {"sessionId": "s", "command": "echo", "cwd": "/tmp\x00/x"},
    {"sessionId": "s", "command": "echo", "cwd": "/no/such/dir/anywhere"},
    {"sessionId": "s", "command": "echo", "outputByteLimit": -1},
    {"sessionId": "s", "command": "echo", "outputByteLimit": "100"},
    {"sessionId": "s", "command": "echo", "outputByteLimit": 1.5},
    {"sessionId": "s", "command": "echo", "outputByteLimit": True},
]


@pytest.mark.parametrize("params", BAD_CREATE)
async def test_bad_create_params_are_invalid_params(host: TerminalHost, params: Any) -> None:
    with pytest.raises(RpcError) as error:
        await host.create(params)
    assert error.value.code == INVALID_PARAMS
    assert error.value.message


async def test_cwd_that_is_a_file_is_refused(host: TerminalHost, tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    with pytest.raises(RpcError, match="directory"):
        await host.create({"sessionId": "s", "command": "echo", "cwd": str(tmp_path / "f")})


@pytest.mark.parametrize("method", ["output", "wait_for_exit", "kill", "release"])
@pytest.mark.parametrize(
    "params",
    [
        None,
        {},
        {"sessionId": "s"},
        {"sessionId": "s", "terminalId": 3},
        {"sessionId": "s", "terminalId": "term-unknown"},
    ],
)
async def test_unknown_or_malformed_terminal_refs(
    host: TerminalHost, method: str, params: Any
) -> None:
    with pytest.raises(RpcError) as error:
        await getattr(host, method)(params)
    assert error.value.code == INVALID_PARAMS


async def test_terminal_of_another_session_is_refused(host: TerminalHost) -> None:
    created = await host.create({"sessionId": "s", "command": "true"})
    with pytest.raises(RpcError, match="another session"):
        await host.output({"sessionId": "other", "terminalId": created["terminalId"]})
    assert host.get("term-unknown") is None
