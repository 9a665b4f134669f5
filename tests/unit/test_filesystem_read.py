"""fs/read_text_file: params, line selection, errors, boundary; answers valid per the ACP schema."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from acp_tui.host.asker import FixedAnswer
from acp_tui.host.boundary import ALLOW_ONCE, DENY
from acp_tui.host.filesystem import FileSystemHost, select_lines
from acp_tui.protocol.errors import (
    INVALID_PARAMS,
    RESOURCE_NOT_FOUND,
    RpcError,
    invalid_params_from,
)
from acp_tui.protocol.models import ReadTextFileRequest
from tests.routed import routed
from tests.schema_check import FrameValidator


def answer_frames(method: str, params: Any, result: Any = None, error: RpcError | None = None):
    """Check the answer the client would send against the schema."""
    validator = FrameValidator()
    validator.incoming({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    frame: dict[str, Any] = {"jsonrpc": "2.0", "id": 7}
    if error is not None:
        frame["error"] = error.to_wire()
    else:
        frame["result"] = result
    validator.outgoing(frame)


async def read(host: FileSystemHost, path: Any, **extra: Any) -> str:
    params = {"sessionId": "s1", "path": str(path) if isinstance(path, Path) else path, **extra}
    result = await routed(ReadTextFileRequest, host.read_text_file)(params)
    answer_frames("fs/read_text_file", params, result)
    return result["content"]  # type: ignore[no-any-return]


async def read_error(host: FileSystemHost, params: Any) -> RpcError:
    """The error the connection answers (a ValidationError becomes -32602 there)."""
    try:
        await routed(ReadTextFileRequest, host.read_text_file)(params)
    except ValidationError as invalid:
        error = invalid_params_from(invalid)
    except RpcError as refused:
        error = refused
    else:
        raise AssertionError(f"no error for {params!r}")
    answer_frames("fs/read_text_file", params, error=error)
    return error


@pytest.fixture
def host(tmp_path: Path) -> FileSystemHost:
    return FileSystemHost(tmp_path, FixedAnswer(DENY))


async def test_reads_the_whole_file_with_its_line_endings(host, tmp_path):
    (tmp_path / "a.txt").write_bytes("one\r\ntwo\nthree ünïcode".encode())
    assert await read(host, tmp_path / "a.txt") == "one\r\ntwo\nthree ünïcode"
    (tmp_path / "empty.txt").write_bytes(b"")
    assert await read(host, tmp_path / "empty.txt") == ""


@pytest.mark.parametrize(
    ("line", "limit", "expected"),
    [
        (1, None, "l1\r\nl2\nl3\nl4"),
        (2, None, "l2\nl3\nl4"),
        (2, 2, "l2\nl3\n"),
        (None, 1, "l1\r\n"),
        (0, 1, "l1\r\n"),  # 0 is treated as 1
        (4, 10, "l4"),
        (5, None, ""),  # past the end: empty, not an error
        (100, 3, ""),
        (1, 0, ""),
    ],
)
async def test_line_and_limit_select_lines(host, tmp_path, line, limit, expected):
    (tmp_path / "a.txt").write_bytes(b"l1\r\nl2\nl3\nl4")
    params: dict[str, Any] = {}
    if line is not None:
        params["line"] = line
    if limit is not None:
        params["limit"] = limit
    assert await read(host, tmp_path / "a.txt", **params) == expected


async def test_null_line_and_limit_mean_whole_file(host, tmp_path):
    (tmp_path / "a.txt").write_text("x\ny\n")
    assert await read(host, tmp_path / "a.txt", line=None, limit=None) == "x\ny\n"


def test_select_lines_with_trailing_newline():
    assert select_lines("a\nb\n", 3, None) == ""
    assert select_lines("a\nb\n", 2, 5) == "b\n"
    assert select_lines("a\rb\n", 1, 1) == "a\rb\n"  # a lone CR does not end a line


async def test_relative_path_is_an_invalid_params_error(host, tmp_path, monkeypatch):
    (tmp_path / "a.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    error = await read_error(host, {"sessionId": "s1", "path": "a.txt"})
    assert error.code == INVALID_PARAMS
    assert "absolute" in error.message


async def test_missing_file_is_resource_not_found_naming_the_path(host, tmp_path):
    missing = tmp_path / "nope" / "missing.txt"
    error = await read_error(host, {"sessionId": "s1", "path": str(missing)})
    assert error.code == RESOURCE_NOT_FOUND
    assert str(missing) in error.message
    error = await read_error(host, {"sessionId": "s1", "path": str(tmp_path / "missing.txt")})
    assert error.code == RESOURCE_NOT_FOUND


async def test_a_file_as_parent_directory_is_not_found(host, tmp_path):
    (tmp_path / "file").write_text("x")
    error = await read_error(host, {"sessionId": "s1", "path": str(tmp_path / "file" / "x")})
    assert error.code == RESOURCE_NOT_FOUND


async def test_directory_is_refused(host, tmp_path):
    (tmp_path / "sub").mkdir()
    error = await read_error(host, {"sessionId": "s1", "path": str(tmp_path / "sub")})
    assert error.code == INVALID_PARAMS
    assert "directory" in error.message
    assert str(tmp_path / "sub") in error.message


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n\xff\xfe", b"text\x00with nul"])
async def test_binary_file_is_refused(host, tmp_path, data):
    (tmp_path / "blob").write_bytes(data)
    error = await read_error(host, {"sessionId": "s1", "path": str(tmp_path / "blob")})
    assert error.code == INVALID_PARAMS
    assert error.data["reason"] == "binary"
    assert str(tmp_path / "blob") in error.message


async def test_file_over_the_size_limit_is_refused(tmp_path):
    host = FileSystemHost(tmp_path, FixedAnswer(DENY), max_read_bytes=10)
    (tmp_path / "ok.txt").write_text("0123456789")
    assert await read(host, tmp_path / "ok.txt") == "0123456789"
    (tmp_path / "big.txt").write_text("0123456789!")
    error = await read_error(host, {"sessionId": "s1", "path": str(tmp_path / "big.txt")})
    assert error.code == INVALID_PARAMS
    assert "too large" in error.message
    assert str(tmp_path / "big.txt") in error.message


async def test_fifo_is_refused_without_blocking(host, tmp_path):
    os.mkfifo(tmp_path / "pipe")
    error = await read_error(host, {"sessionId": "s1", "path": str(tmp_path / "pipe")})
    assert error.code == INVALID_PARAMS
    assert "not a regular file" in error.message


@pytest.mark.parametrize(
    "params",
    [
        None,
        ["s1", "/x"],
        {"path": "/x"},
        {"sessionId": "s1"},
        {"sessionId": "s1", "path": 5},
        {"sessionId": "s1", "path": ""},
    ],
)
async def test_malformed_params_are_invalid_params(host, params):
    error = await read_error(host, params)
    assert error.code == INVALID_PARAMS


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ({"line": -1}, "l1\nl2\nl3\n"),  # x-deserialize-default-on-error: as if absent
        ({"limit": 2.5}, "l1\nl2\nl3\n"),
        ({"line": "2"}, "l2\nl3\n"),  # pydantic's lax mode reads a numeric string
        ({"line": 2, "limit": -4}, "l2\nl3\n"),
    ],
)
async def test_invalid_line_and_limit_fall_back_to_their_defaults(host, tmp_path, extra, expected):
    (tmp_path / "a.txt").write_text("l1\nl2\nl3\n")
    assert await read(host, tmp_path / "a.txt", **extra) == expected


async def test_reading_outside_the_session_directory_needs_consent(tmp_path):
    cwd = tmp_path / "project"
    cwd.mkdir()
    (tmp_path / "secret.txt").write_text("secret")
    (cwd / "link").symlink_to(tmp_path / "secret.txt")
    denying = FileSystemHost(cwd, FixedAnswer(DENY))
    for path in (tmp_path / "secret.txt", cwd / "link", f"{cwd}/../secret.txt"):
        error = await read_error(denying, {"sessionId": "s1", "path": str(path)})
        assert "outside the session directory" in error.message
    allowing = FileSystemHost(cwd, FixedAnswer(ALLOW_ONCE))
    assert await read(allowing, cwd / "link") == "secret"


def reference_select(text: str, line: int | None, limit: int | None) -> str:
    lines = text.split("\n")
    kept = [part + "\n" for part in lines[:-1]] + ([lines[-1]] if lines[-1] else [])
    start = max((line or 1) - 1, 0)
    chosen = kept[start:] if limit is None else kept[start : start + limit]
    return "".join(chosen)


@settings(max_examples=120, deadline=None)
@given(
    text=st.text(alphabet="ab\r\n", max_size=60),
    line=st.none() | st.integers(min_value=0, max_value=30),
    limit=st.none() | st.integers(min_value=0, max_value=30),
)
def test_select_lines_matches_a_reference(text, line, limit):
    assert select_lines(text, line, limit) == reference_select(text, line, limit)


def test_select_lines_across_chunk_boundaries():
    text = "".join(f"{i:05d}{'x' * (i % 97)}\n" for i in range(20_000))  # ~1 MB, many chunks
    for line in (1, 2, 1234, 19_999, 20_000, 20_001):
        assert select_lines(text, line, 3) == reference_select(text, line, 3)
    assert select_lines(text, 19_999, None) == reference_select(text, 19_999, None)
    assert select_lines(text, 10, 50_000) == reference_select(text, 10, 50_000)
