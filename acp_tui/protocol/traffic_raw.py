"""The raw text of a session's frames, kept compactly: compressed by blocks, the oldest dropped
past a budget.

A long session's frames are mostly `session/update` chunks of a few dozen characters in a
JSON envelope that repeats (method, session id, update kind), so kept as one `str` each they
cost several times their text and grow for the whole session. Here the newest frames wait in an
open block (plain strings, as before) until it holds `BLOCK_FRAMES` frames or `BLOCK_BYTES`
bytes; then the block is encoded to UTF-8, joined and compressed (`zlib`) into one `bytes`
with an `array` of where each frame ends. A frame of a closed block is read back by
decompressing its block (the last few decompressed blocks are cached: drawing a screen of rows
or stepping through a search reads neighbours).

The compressed blocks together stay under `budget` bytes: past it the oldest blocks are
dropped whole, and `dropped` says how many frames lost their text (their summary, kept by
the `TrafficStore`'s columns, stays). Nothing here is tracked by the garbage collector but the
few containers.
"""

from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right
from collections import OrderedDict

BLOCK_FRAMES = 256
"""Frames per block at most (a block is closed and compressed when it holds this many)."""
BLOCK_BYTES = 64 * 1024
"""Or when its frames' text reaches this many bytes (one huge frame is a block of its own)."""
BUDGET_BYTES = 16 * 1024 * 1024
"""The compressed blocks kept, at most (the open block aside); older ones are dropped."""
CACHED_BLOCKS = 4
"""Decompressed blocks kept for reading (a screen of rows spans one or two)."""
LEVEL = 6


class _Block:
    """A closed block: its frames' UTF-8 text compressed together, and where each one ends."""

    __slots__ = ("data", "ends")

    def __init__(self, data: bytes, ends: array[int]) -> None:
        self.data = data
        self.ends = ends


class RawFrames:
    """Append-only raw texts by frame index; `get(index)` is None for a frame whose text was
    dropped (older than what `budget` keeps)."""

    def __init__(
        self,
        budget: int = BUDGET_BYTES,
        *,
        block_frames: int = BLOCK_FRAMES,
        block_bytes: int = BLOCK_BYTES,
    ) -> None:
        self.budget = budget
        self.block_frames = block_frames
        self.block_bytes = block_bytes
        self._open: list[str] = []
        self._open_bytes = 0
        self._open_start = 0
        """The index of the open block's first frame (= the frames in closed blocks)."""
        self._blocks: list[_Block | None] = []
        """Closed blocks, oldest first; None once dropped."""
        self._starts = array("q")
        """The first frame index of each closed block."""
        self._first_kept = 0
        """The first closed block not dropped."""
        self.stored = 0
        """The compressed bytes of the closed blocks kept."""
        self.dropped = 0
        """How many of the oldest frames lost their text to the budget."""
        self._cache: OrderedDict[int, tuple[bytes, array[int]]] = OrderedDict()

    def __len__(self) -> int:
        return self._open_start + len(self._open)

    def append(self, raw: str) -> None:
        """Add the next frame's text (closing the open block when it is full)."""
        self._open.append(raw)
        self._open_bytes += len(raw)  # (characters: close enough to bytes for a threshold)
        if len(self._open) >= self.block_frames or self._open_bytes >= self.block_bytes:
            self._close()

    def get(self, index: int) -> str | None:
        """Frame `index`'s text; None when it was dropped. IndexError past the end."""
        if index < 0 or index >= len(self):
            raise IndexError("frame index out of range")
        if index >= self._open_start:
            return self._open[index - self._open_start]
        if index < self.dropped:
            return None
        number = bisect_right(self._starts, index) - 1
        data, ends = self._decompressed(number)
        position = index - self._starts[number]
        start = ends[position - 1] if position else 0
        return data[start : ends[position]].decode("utf-8", "surrogatepass")

    def _decompressed(self, number: int) -> tuple[bytes, array[int]]:
        cache = self._cache
        found = cache.get(number)
        if found is not None:
            cache.move_to_end(number)
            return found
        block = self._blocks[number]
        assert block is not None  # (the caller checked `dropped`)
        found = cache[number] = (zlib.decompress(block.data), block.ends)
        if len(cache) > CACHED_BLOCKS:
            cache.popitem(last=False)
        return found

    def _close(self) -> None:
        encoded = [raw.encode("utf-8", "surrogatepass") for raw in self._open]
        ends = array("I")
        end = 0
        for text in encoded:
            end += len(text)
            ends.append(end)
        block = _Block(zlib.compress(b"".join(encoded), LEVEL), ends)
        self._blocks.append(block)
        self._starts.append(self._open_start)
        self.stored += len(block.data)
        self._open_start += len(self._open)
        self._open = []
        self._open_bytes = 0
        self._drop_past_budget()

    def _drop_past_budget(self) -> None:
        blocks = self._blocks
        while self.stored > self.budget and self._first_kept < len(blocks) - 1:
            # (the newest closed block always stays: the budget bounds the history, not a frame)
            number = self._first_kept
            block = blocks[number]
            assert block is not None
            self.stored -= len(block.data)
            blocks[number] = None
            self._cache.pop(number, None)
            self._first_kept += 1
            self.dropped = self._starts[self._first_kept]
