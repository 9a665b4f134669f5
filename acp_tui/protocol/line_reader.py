"""Newline-delimited frames from a stream, with memory bounded by a cap: read in blocks, split
into lines here; a line longer than the cap is discarded up to its newline as it streams in.

`LineSplitter` does the splitting for both readers: `read_lines` (the connection's, from an
asyncio stream) and `read_file_lines` (a file, e.g. a `--log` recording to replay)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import BinaryIO

logger = logging.getLogger("acp_tui.protocol.connection")

READ_BLOCK = 256 * 1024


class LineSplitter:
    """Lines out of blocks of bytes: `on_line(line)` for each (without its newline),
    `on_discarded(length)` for each over the cap. An unfinished line is held only while it
    fits the cap (`held`): at most the cap plus one block is ever in memory."""

    def __init__(
        self, on_line: Callable[[bytes], None], on_discarded: Callable[[int], None]
    ) -> None:
        self.on_line = on_line
        self.on_discarded = on_discarded
        self._parts: list[bytes] = []
        self._size = 0  # bytes in `_parts`
        self._discarded = 0  # > 0 while skipping the rest of an oversized line

    @property
    def held(self) -> int:
        """Bytes of the unfinished line kept (0 while one over the cap is being skipped)."""
        return self._size

    def feed(self, block: bytes, cap: int) -> bool:
        """Split one block (`cap`: the longest line kept, read per block); whether it ended
        a line."""
        parts = self._parts
        newline = block.find(b"\n")
        if newline < 0:
            if self._discarded:
                self._discarded += len(block)
            elif self._size + len(block) > cap:
                self._discarded = self._size + len(block)
                parts.clear()
                self._size = 0
            else:
                parts.append(block)
                self._size += len(block)
            return False
        if self._discarded:
            self.on_discarded(self._discarded + newline)
            self._discarded = 0
            block = block[newline + 1 :]
        lines = block.split(b"\n")
        if parts:
            parts.append(lines[0])
            lines[0] = b"".join(parts)
            parts.clear()
        last = lines.pop()
        self._size = 0
        for line in lines:
            if len(line) > cap:
                self.on_discarded(len(line))
            else:
                self.on_line(line)
        if len(last) > cap:
            self._discarded = len(last)
        elif last:
            parts.append(last)
            self._size = len(last)
        return True

    def end(self) -> None:
        """The stream ended: a last line without a newline counts."""
        if self._discarded:
            self.on_discarded(self._discarded)
            self._discarded = 0
        elif self._parts:
            line = b"".join(self._parts)
            self._parts.clear()
            self._size = 0
            self.on_line(line)


async def read_lines(
    reader: asyncio.StreamReader,
    cap_now: Callable[[], int],
    on_line: Callable[[bytes], None],
    on_discarded: Callable[[int], None],
) -> None:
    """Call `on_line(line)` for each line (without its newline) until the stream ends or fails;
    `on_discarded(length)` for each line over `cap_now()` bytes (read per block: a prestarted
    connection gets its setting after it started). A last line without a newline counts."""
    splitter = LineSplitter(on_line, on_discarded)
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
        if splitter.feed(block, cap):
            # Handlers run in this task (see Connection._dispatch): let the loop run others
            # between blocks, or a fast stream whose next block is always buffered would
            # starve them.
            await asyncio.sleep(0)
    splitter.end()


def read_file_lines(
    file: BinaryIO,
    cap: int,
    on_line: Callable[[bytes], None],
    on_discarded: Callable[[int], None],
    block_size: int = READ_BLOCK,
) -> None:
    """`read_lines` for a file opened in binary mode: read in blocks of `block_size` to the
    end (OSError is the caller's)."""
    splitter = LineSplitter(on_line, on_discarded)
    while block := file.read(block_size):
        splitter.feed(block, cap)
    splitter.end()
