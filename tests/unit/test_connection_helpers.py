"""Test support (no tests here): a Connection wired to a raw peer over a socketpair."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any

from acp_tui.protocol.connection import Connection

TIMEOUT = 10.0


class RawPeer:
    """The other end of the wire: sends raw lines, reads frames the Connection wrote."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer
        self._buffer = b""

    async def send_raw(self, data: bytes | str) -> None:
        self.writer.write(data.encode() if isinstance(data, str) else data)
        await self.writer.drain()

    async def send(self, frame: Any) -> None:
        await self.send_raw(json.dumps(frame) + "\n")

    async def recv_line(self) -> bytes:
        async def read() -> bytes:
            while b"\n" not in self._buffer:
                block = await self.reader.read(1 << 20)
                if not block:
                    raise EOFError("connection closed the stream")
                self._buffer += block
            line, _, self._buffer = self._buffer.partition(b"\n")
            return line

        return await asyncio.wait_for(read(), TIMEOUT)

    async def recv(self) -> Any:
        return json.loads(await self.recv_line())

    async def probe(self, tag: str = "probe") -> Any:
        """Send a request for an unknown method; return the next frame received.

        Frames are answered in order for anything the connection replies to synchronously, so
        if the next frame is the probe's answer, nothing was sent in between.
        """
        await self.send({"jsonrpc": "2.0", "id": tag, "method": "test/probe"})
        return await self.recv()

    async def at_eof(self) -> bool:
        block = await asyncio.wait_for(self.reader.read(1), TIMEOUT)
        return block == b""


async def socket_pair(**kwargs: Any) -> tuple[Connection, RawPeer]:
    a, b = socket.socketpair()
    reader_a, writer_a = await asyncio.open_connection(sock=a)
    reader_b, writer_b = await asyncio.open_connection(sock=b)
    return Connection(reader_a, writer_a, **kwargs), RawPeer(reader_b, writer_b)


async def wait_for(event: asyncio.Event) -> None:
    await asyncio.wait_for(event.wait(), TIMEOUT)
