"""Newline-delimited frames from a stream, with memory bounded by a cap: read in blocks, split
into lines here; a line longer than the cap is discarded up to its newline as it streams in."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

logger = logging.getLogger("acp_tui.protocol.connection")

READ_BLOCK = 256 * 1024


async def read_lines(
    reader: asyncio.StreamReader,
    cap_now: Callable[[], int],
    on_line: Callable[[bytes], None],
    on_discarded: Callable[[int], None],
) -> None:
    """Call `on_line(line)` for each line (without its newline) until the stream ends or fails;
    `on_discarded(length)` for each line over `cap_now()` bytes (read per block: a prestarted
    connection gets its setting after it started). A last line without a newline counts."""
    parts: list[bytes] = []
    size = 0  # bytes in `parts`
    discarded = 0  # > 0 while skipping the rest of an oversized frame
    read = reader.read
    while True:
        try:
            block = await read(READ_BLOCK)
            cap = cap_now()
        except (OSError, ValueError) as exc:
            logger.warning("reading from the agent failed: %s", exc)
            break
        if not block:
            break
        newline = block.find(b"\n")
        if newline < 0:
            if discarded:
                discarded += len(block)
            elif size + len(block) > cap:
                discarded = size + len(block)
                parts.clear()
                size = 0
            else:
                parts.append(block)
                size += len(block)
            continue
        if discarded:
            on_discarded(discarded + newline)
            discarded = 0
            block = block[newline + 1 :]
        lines = block.split(b"\n")
        if parts:
            parts.append(lines[0])
            size += len(lines[0])
            lines[0] = b"".join(parts)
            parts.clear()
        last = lines.pop()
        size = 0
        for line in lines:
            if len(line) > cap:
                on_discarded(len(line))
            else:
                on_line(line)
        if len(last) > cap:
            discarded = len(last)
        elif last:
            parts.append(last)
            size = len(last)
        # Handlers run in this task (see Connection._dispatch): let the loop run others between
        # blocks, or a fast stream whose next block is always buffered would starve them.
        await asyncio.sleep(0)
    if discarded:
        on_discarded(discarded)
    elif parts:
        on_line(b"".join(parts))
