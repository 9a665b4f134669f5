"""Frames over `max_frame_bytes` are discarded up to their newline; the stream goes on."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from acp_tui.protocol.connection import Connection
from tests.unit.test_connection_helpers import TIMEOUT, RawPeer, socket_pair

CAP = 1000


async def capped() -> tuple[Connection, RawPeer, Notes, list[tuple[int, int]]]:
    seen = Notes()
    dropped: list[tuple[int, int]] = []
    conn, peer = await socket_pair(
        max_frame_bytes=CAP, on_oversized_frame=lambda n, cap: dropped.append((n, cap))
    )

    conn.on_notification("note", seen)
    conn.start()
    return conn, peer, seen, dropped


def note(n: int, pad: int = 0) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "method": "note", "params": [n, "x" * pad]}).encode()


class Notes(list[Any]):
    """The notes delivered so far; `until(count)` waits on delivery itself (no polling)."""

    def __init__(self) -> None:
        super().__init__()
        self.arrived = asyncio.Event()

    def __call__(self, params: Any) -> None:
        self.append(params)
        self.arrived.set()

    async def until(self, count: int) -> None:
        while len(self) < count:
            await asyncio.wait_for(self.arrived.wait(), TIMEOUT)
            self.arrived.clear()


@pytest.mark.parametrize("chunk", [1, 7, 333, 4096, 1 << 20])
async def test_oversized_frame_is_dropped_and_the_next_ones_arrive(chunk: int) -> None:
    conn, peer, seen, dropped = await capped()
    big = note(2, pad=5 * CAP)
    data = note(1) + b"\n" + big + b"\n" + note(3) + b"\n"
    for start in range(0, len(data), chunk):
        await peer.send_raw(data[start : start + chunk])
    await seen.until(2)
    assert [params[0] for params in seen] == [1, 3]
    assert dropped == [(len(big), CAP)]
    await conn.close()


async def test_frame_exactly_at_the_cap_is_kept() -> None:
    conn, peer, seen, dropped = await capped()
    frame = note(1)
    frame = note(1, pad=CAP - len(frame))
    assert len(frame) == CAP
    await peer.send_raw(frame + b"\n" + note(2, pad=CAP) + b"\n" + note(3) + b"\n")
    await seen.until(2)
    assert [params[0] for params in seen] == [1, 3]
    assert len(dropped) == 1
    await conn.close()


async def test_oversized_tail_without_newline_at_eof_is_reported() -> None:
    conn, peer, seen, dropped = await capped()
    await peer.send_raw(note(1) + b"\n" + b"y" * (3 * CAP))
    peer.writer.close()
    await asyncio.wait_for(conn.wait_closed(), TIMEOUT)
    assert [params[0] for params in seen] == [1]
    assert dropped == [(3 * CAP, CAP)]


async def test_request_after_a_dropped_frame_is_answered() -> None:
    conn, peer, _seen, dropped = await capped()
    await peer.send_raw(b"z" * (CAP + 1) + b"\n")
    answer = await peer.probe()
    assert answer["id"] == "probe" and answer["error"]["code"] == -32601
    assert dropped == [(CAP + 1, CAP)]
    await conn.close()
