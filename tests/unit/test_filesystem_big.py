"""Files over `max_read_bytes`: writes are asked about without reading or diffing the file, and
`fs/read_text_file` with line/limit streams just the selected lines."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_tui.host.asker import Question
from acp_tui.host.filesystem import LARGE_FILE, OVERWRITE, FileSystemHost, ProposedWrite
from acp_tui.host.reverts import RevertError
from acp_tui.protocol.errors import INTERNAL_ERROR, INVALID_PARAMS, RpcError
from acp_tui.protocol.models import ReadTextFileRequest, WriteTextFileRequest
from tests.routed import routed


def fs_read(host: FileSystemHost, params: Any) -> Any:
    """fs/read_text_file as the connection calls it: params through the router's model."""
    return routed(ReadTextFileRequest, host.read_text_file)(params)


def fs_write(host: FileSystemHost, params: Any) -> Any:
    """fs/write_text_file as the connection calls it: params through the router's model."""
    return routed(WriteTextFileRequest, host.write_text_file)(params)


LIMIT = 1000
BIG = "".join(f"line {i}\n" for i in range(1, 2001))  # ~17 KB, well over LIMIT


class Answers:
    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.asked: list[Question] = []

    async def ask(self, question: Question) -> str:
        self.asked.append(question)
        return self.answer


class NeverReviewed:
    async def review(self, proposal: ProposedWrite) -> None:
        raise AssertionError("a file too large to diff must not reach the review")


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "big.txt"
    path.write_text(BIG)
    return path


async def test_a_write_over_the_limit_is_asked_about_and_cancel_keeps_the_file(tmp_path, big):
    asker = Answers("cancel")
    host = FileSystemHost(tmp_path, asker, max_read_bytes=LIMIT, write_gate=NeverReviewed())
    with pytest.raises(RpcError) as caught:
        await fs_write(host, {"sessionId": "s", "path": str(big), "content": "small\n"})
    assert (caught.value.code, caught.value.data["reason"]) == (INTERNAL_ERROR, "too_large")
    [question] = asker.asked
    assert question.kind == LARGE_FILE
    assert question.data["size"] == len(BIG) and question.data["limit"] == LIMIT
    assert "cannot be reverted" in question.detail
    assert big.read_text() == BIG
    assert host.changes.records == []


async def test_overwrite_replaces_it_and_records_that_before_was_not_kept(tmp_path, big):
    host = FileSystemHost(tmp_path, Answers(OVERWRITE), max_read_bytes=LIMIT)
    await fs_write(host, {"sessionId": "s", "path": str(big), "content": "small\n"})
    assert big.read_text() == "small\n"
    [record] = host.changes.records
    assert (record.path, record.before, record.after, record.before_omitted) == (
        big,
        None,
        "small\n",
        True,
    )
    with pytest.raises(RevertError, match="not kept"):
        await host.reverts.revert_record(record.id)
    assert big.read_text() == "small\n"


@pytest.mark.parametrize(
    ("line", "limit", "expected"),
    [
        (1, 2, "line 1\nline 2\n"),
        (1999, None, "line 1999\nline 2000\n"),
        (1500, 1, "line 1500\n"),
        (2001, 5, ""),
        (None, 1, "line 1\n"),
        (3, 0, ""),
    ],
)
async def test_line_and_limit_stream_the_lines_of_a_file_over_the_limit(
    tmp_path, big, line, limit, expected
):
    host = FileSystemHost(tmp_path, Answers("deny"), max_read_bytes=LIMIT)
    params: dict[str, object] = {"sessionId": "s", "path": str(big)}
    if line is not None:
        params["line"] = line
    if limit is not None:
        params["limit"] = limit
    assert await fs_read(host, params) == {"content": expected}


async def test_lines_that_cross_chunk_boundaries_come_out_whole(tmp_path, monkeypatch):
    from acp_tui.host import file_access

    monkeypatch.setattr(file_access, "_CHUNK", 7)  # lines straddle many chunks
    path = tmp_path / "f.txt"
    path.write_text(BIG)
    host = FileSystemHost(tmp_path, Answers("deny"), max_read_bytes=LIMIT)
    result = await fs_read(host, {"sessionId": "s", "path": str(path), "line": 10, "limit": 3})
    assert result == {"content": "line 10\nline 11\nline 12\n"}


async def test_the_whole_file_or_a_selection_over_the_limit_is_still_refused(tmp_path, big):
    host = FileSystemHost(tmp_path, Answers("deny"), max_read_bytes=LIMIT)
    for extra in ({}, {"line": 2}):
        with pytest.raises(RpcError) as caught:
            await fs_read(host, {"sessionId": "s", "path": str(big), **extra})
        assert (caught.value.code, caught.value.data["reason"]) == (INVALID_PARAMS, "too_large")


async def test_streamed_lines_are_checked_for_utf8(tmp_path):
    path = tmp_path / "bin.txt"
    path.write_bytes(b"ok\n" * 600 + b"\xff\xfe\n")
    host = FileSystemHost(tmp_path, Answers("deny"), max_read_bytes=LIMIT)
    with pytest.raises(RpcError) as caught:
        await fs_read(host, {"sessionId": "s", "path": str(path), "line": 601, "limit": 1})
    assert caught.value.data["reason"] == "binary"
    params = {"sessionId": "s", "path": str(path), "line": 600, "limit": 1}
    assert await fs_read(host, params) == {"content": "ok\n"}


PEAK_CHILD = r"""
import asyncio, sys
from pathlib import Path
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.models import ReadTextFileRequest, WriteTextFileRequest

def peak_mb():
    # VmHWM belongs to this process image; ru_maxrss would carry the forking parent's peak
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) for l in status if l.startswith("VmHWM:")) // 1024

class Overwrite:
    async def ask(self, question):
        assert question.kind == "large_file", question.kind
        return "overwrite"

async def main(path: Path) -> None:
    host = FileSystemHost(path.parent, Overwrite())  # default max_read_bytes (50 MiB)
    result = await host.read_text_file(ReadTextFileRequest(session_id="s", path=str(path), limit=2))
    assert result == {"content": "first\nsecond\n"}, result
    await host.write_text_file(
        WriteTextFileRequest(session_id="s", path=str(path), content="small\n")
    )
    assert path.read_text() == "small\n"
    print(peak_mb())

asyncio.run(main(Path(sys.argv[1])))
"""


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")
def test_peak_memory_with_a_1_gb_file_stays_small(tmp_path):
    """A small write to a 1 GB file and a read of its first lines, measured in a subprocess."""
    import subprocess
    import sys

    path = tmp_path / "huge.txt"
    with open(path, "wb") as file:
        file.write(b"first\nsecond\n")
        file.truncate(1024 * 1024 * 1024)  # sparse: takes no disk space
    out = subprocess.run(
        [sys.executable, "-c", PEAK_CHILD, str(path)],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    ).stdout
    assert int(out) < 200  # MB (it was 2.1 GB when the write read and diffed the whole file)
