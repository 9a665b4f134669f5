"""terminal/* params are validated by their models (then checked by the host): bad ones get
-32602, never a crash; fields the schema marks lenient fall back to their defaults."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from acp_tui.host.terminals import TerminalHost
from acp_tui.protocol.errors import INVALID_PARAMS, RpcError
from tests.routed import RoutedTerminals, error_code


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[RoutedTerminals]:
    terminal_host = TerminalHost(tmp_path)
    yield RoutedTerminals(terminal_host)
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
    {"sessionId": "s\x00", "command": "echo"},
    {"sessionId": "s", "command": "echo", "args": ["a\x00b"]},
    {"sessionId": "s", "command": "echo", "env": [{"name": "A=B", "value": "1"}]},
    {"sessionId": "s", "command": "echo", "env": [{"name": "", "value": "1"}]},
    {"sessionId": "s", "command": "echo", "env": [{"name": "A", "value": "x\x00"}]},
    {"sessionId": "s", "command": "echo", "cwd": "relative/dir"},
    {"sessionId": "s", "command": "echo", "cwd": "/tmp\x00/x"},
    {"sessionId": "s", "command": "echo", "cwd": "/no/such/dir/anywhere"},
]


@pytest.mark.parametrize("params", BAD_CREATE)
async def test_bad_create_params_are_invalid_params(host: RoutedTerminals, params: Any) -> None:
    assert await error_code(host.create(params)) == INVALID_PARAMS
    assert host.host._terminals == {}


# x-deserialize-default-on-error / skip-invalid-items: the bad part is dropped, not the request
LENIENT_CREATE: list[tuple[dict[str, Any], list[str], int]] = [
    ({"args": "hi"}, [], 1_000_000),
    ({"args": [1, "x", None]}, ["x"], 1_000_000),
    ({"env": {"A": "1"}}, [], 1_000_000),
    ({"env": ["A=1", {"name": "A"}]}, [], 1_000_000),
    ({"cwd": 7}, [], 1_000_000),
    ({"outputByteLimit": -1}, [], 1_000_000),
    ({"outputByteLimit": "100"}, [], 100),  # pydantic's lax mode reads a numeric string
    ({"outputByteLimit": 1.5}, [], 1_000_000),
    ({"outputByteLimit": 12}, [], 12),
]


@pytest.mark.parametrize(("extra", "args", "limit"), LENIENT_CREATE)
async def test_lenient_fields_fall_back_to_their_defaults(
    host: RoutedTerminals, extra: dict[str, Any], args: list[str], limit: int
) -> None:
    created = await host.create({"sessionId": "s", "command": "true", **extra})
    terminal = host.get(created["terminalId"])
    assert terminal is not None
    assert (terminal.args, terminal.output_byte_limit) == (args, limit)


async def test_cwd_that_is_a_file_is_refused(host: RoutedTerminals, tmp_path: Path) -> None:
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
    host: RoutedTerminals, method: str, params: Any
) -> None:
    assert await error_code(getattr(host, method)(params)) == INVALID_PARAMS


async def test_terminal_of_another_session_is_refused(host: RoutedTerminals) -> None:
    created = await host.create({"sessionId": "s", "command": "true"})
    with pytest.raises(RpcError, match="another session"):
        await host.output({"sessionId": "other", "terminalId": created["terminalId"]})
    assert host.get("term-unknown") is None
