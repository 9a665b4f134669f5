"""The connection's line reader: lines out of blocks, and other tasks run between blocks."""

from __future__ import annotations

import asyncio
import contextlib

from acp_tui.protocol.line_reader import READ_BLOCK, read_lines


async def test_lines_split_across_blocks_and_a_last_line_without_newline() -> None:
    reader = asyncio.StreamReader()
    reader.feed_data(b"a" * (READ_BLOCK + 10) + b"\nshort\n" + b"tail")
    reader.feed_eof()
    lines: list[bytes] = []
    await read_lines(reader, lambda: 1 << 30, lines.append, lambda length: None)
    assert lines == [b"a" * (READ_BLOCK + 10), b"short", b"tail"]


async def test_other_tasks_run_between_blocks_of_a_buffered_stream() -> None:
    """Handlers run in the read task: with the next block always buffered, the loop must still
    get a turn between blocks (else a fast stream starves the UI)."""
    line = b"x" * 1000 + b"\n"
    reader = asyncio.StreamReader()
    reader.feed_data(line * (3 * READ_BLOCK // len(line)))
    reader.feed_eof()
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    seen: list[int] = []
    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0)
    await read_lines(reader, lambda: 1 << 20, lambda _line: seen.append(ticks), lambda n: None)
    ticker.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await ticker
    assert len(seen) == 3 * READ_BLOCK // len(line)
    assert len(set(seen)) >= 3  # the ticker ran between the blocks
