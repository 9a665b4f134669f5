"""Terminal output as bytes (byte-limited), as plain text, and as a VT screen with scrollback.

- `OutputBuffer` keeps the most recent bytes of a command's output, up to a limit.
- `render_text` turns raw PTY output into readable text fast: escape sequences removed,
  `\\r\\n` → `\\n`, carriage-return / backspace / erase-line overwrites resolved per line (a
  progress bar shows its final state). Cursor movement between lines is not modelled.
- `ScrollbackScreen` / `TerminalEmulator` are a pyte screen that keeps the lines scrolled off
  its top, and can catch up on a large backlog without feeding every byte through pyte.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable
from typing import Any

import pyte

# Retaining more than this for one terminal is refused quietly (reported as truncation).
MAX_RETAINED_BYTES = 64 * 1024 * 1024


def utf8_boundary_start(data: bytes | bytearray, start: int) -> int:
    """The first index ≥ start that does not fall inside a UTF-8 character (at most 3 ahead)."""
    end = min(len(data), start + 3)
    while start < end and (data[start] & 0xC0) == 0x80:
        start += 1
    return start


class OutputBuffer:
    """The most recent output bytes, at most `limit` (capped at MAX_RETAINED_BYTES).

    Grows as output arrives (nothing is preallocated); drops from the beginning.
    """

    def __init__(self, limit: int) -> None:
        self.limit = max(0, min(limit, MAX_RETAINED_BYTES))
        self.total = 0  # bytes ever appended
        self._data = bytearray()

    def append(self, data: bytes) -> None:
        self.total += len(data)
        self._data += data
        excess = len(self._data) - self.limit
        # Trim in batches: deleting from the front of a bytearray is cheap, but not free.
        if excess > 0 and (excess >= 65536 or excess * 8 >= self.limit):
            del self._data[:excess]

    def tail(self, max_bytes: int) -> tuple[bytes, bool]:
        """The most recent ≤ max_bytes bytes, starting on a character boundary; truncated?"""
        keep = min(max_bytes, self.limit, len(self._data))
        start = len(self._data) - keep
        if start > 0 or self.total > len(self._data):
            start = utf8_boundary_start(self._data, start)
        truncated = self.total > len(self._data) - start
        return bytes(self._data[start:]), truncated

    def __len__(self) -> int:
        return min(len(self._data), self.limit)


# -- plain text ---------------------------------------------------------------------------------

_C0_JUNK = re.compile(r"[\x00-\x07\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]")
_ERASE_TO_EOL = re.compile(r"\x1b\[0?K")
_ERASE_LINE = re.compile(r"\x1b\[2K")
_ESCAPES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, terminated by BEL or ST
    r"|\x1b[PX^_].*?(?:\x1b\\|$)"  # DCS / SOS / PM / APC strings
    r"|\x1b\[[0-?]*[ -/]*$"  # a CSI cut off at the end
    r"|\x1b[ -/]*[0-~]"  # other escapes (charset selection, keypad modes, ...)
    r"|\x1b",  # a lone ESC (cut off)
    re.DOTALL,
)
# Erase-line sequences become Unicode noncharacters (never in real text) until lines are resolved.
_EOL_MARK = "\ufdd0"  # erase to end of line
_LINE_MARK = "\ufdd1"  # erase the whole line
_OVERWRITES = re.compile("[\r\x08\ufdd0\ufdd1]")


def render_text(data: bytes) -> str:
    """Readable text of raw terminal output (see the module docstring)."""
    text = data.decode("utf-8", "replace")
    if "\x1b" in text or _C0_JUNK.search(text):
        text = _ERASE_TO_EOL.sub(_EOL_MARK, text)
        text = _ERASE_LINE.sub(_LINE_MARK, text)
        text = _ESCAPES.sub("", text)
        text = _C0_JUNK.sub("", text)
    text = text.replace("\r\n", "\n")
    if not _OVERWRITES.search(text):
        return text
    return "\n".join(
        _resolve_line(line) if _OVERWRITES.search(line) else line for line in text.split("\n")
    )


def _resolve_line(line: str) -> str:
    """What one line shows after its carriage returns, backspaces and erases."""
    if "\x08" not in line and _EOL_MARK not in line and _LINE_MARK not in line:
        shown = ""
        for segment in line.split("\r"):
            shown = segment + shown[len(segment) :]
        return shown
    cells: list[str] = []
    column = 0
    for char in line:
        if char == "\r":
            column = 0
        elif char == "\x08":
            column = max(0, column - 1)
        elif char == _EOL_MARK:
            del cells[column:]
        elif char == _LINE_MARK:
            cells = [" "] * column
        else:
            if column < len(cells):
                cells[column] = char
            else:
                cells.extend(" " * (column - len(cells)))
                cells.append(char)
            column += 1
    return "".join(cells).rstrip(" ") if _LINE_MARK in line else "".join(cells)


# -- VT screen ----------------------------------------------------------------------------------

HistoryLine = dict[int, Any] | str  # a pyte row (column → Char), or plain text from a catch-up


class ScrollbackScreen(pyte.Screen):
    """A pyte screen that keeps the lines scrolled off its top in `history`."""

    def __init__(self, columns: int, lines: int, history: int = 5000) -> None:
        self.history: deque[HistoryLine] = deque(maxlen=history)
        self.history_changes = 0  # bumped whenever history changes other than by appending
        self.on_process_input: Callable[[str], None] | None = None
        super().__init__(columns, lines)

    def index(self) -> None:
        top, bottom = self.margins or (0, self.lines - 1)
        if self.cursor.y == bottom and top == 0:
            self.history.append(self.buffer[top])
        super().index()

    def erase_in_display(self, how: int = 0, *args: Any, **kwargs: Any) -> None:
        super().erase_in_display(how, *args, **kwargs)
        if how == 3:
            self.history.clear()
            self.history_changes += 1

    def reset(self) -> None:
        super().reset()
        if hasattr(self, "history"):
            self.history.clear()
            self.history_changes += 1

    def resize(self, lines: int | None = None, columns: int | None = None) -> None:
        """Like pyte's, but a shrink scrolls rows into history only as far as the cursor needs."""
        lines = lines or self.lines
        if lines < self.lines:
            drop = max(0, self.cursor.y - (lines - 1))
            self.history.extend(self.buffer[y] for y in range(drop))
            kept = {y - drop: row for y, row in self.buffer.items() if drop <= y < lines + drop}
            self.buffer.clear()
            self.buffer.update(kept)
            self.cursor.y -= drop
            self.lines = lines
            self.set_margins()
            self.dirty.update(range(lines))
        super().resize(lines, columns)

    def write_process_input(self, data: str) -> None:
        if self.on_process_input is not None:
            self.on_process_input(data)

    def push_plain_lines(self, lines: list[str]) -> None:
        """Scroll the rows above the cursor into history, then `lines`; cursor to the top."""
        for y in range(self.cursor.y):
            self.history.append(self.buffer[y])
        self.history.extend(lines)
        self.buffer.clear()
        self.cursor.y = 0
        self.cursor.x = 0
        self.dirty.update(range(self.lines))

    def used_lines(self) -> int:
        """Screen rows in use: up to the cursor or the last non-blank row, whichever is lower."""
        last = self.cursor.y
        for y in sorted(self.buffer, reverse=True):
            if y <= last:
                break
            if y < self.lines and any(char.data != " " for char in self.buffer[y].values()):
                last = y
                break
        return last + 1


class TerminalEmulator:
    """A `ScrollbackScreen` fed from raw bytes, able to skip through floods cheaply.

    `feed(data, budget)`: a backlog larger than `budget` bytes is a flood. Its middle part
    (whole lines that would scroll off the screen anyway) goes to history as plain text via
    `render_text` (colours of those lines are lost); pyte interprets only the first line
    (which continues the cursor line) and the last lines that fill the screen. For line
    output the result reads the same as feeding everything.
    """

    def __init__(self, columns: int = 80, lines: int = 24, history: int = 5000) -> None:
        self.screen = ScrollbackScreen(columns, lines, history)
        self._stream = pyte.ByteStream(self.screen)

    def feed(self, data: bytes, budget: int | None = None) -> None:
        if budget is None or len(data) <= budget or self.screen.margins is not None:
            self._stream.feed(data)
            return
        # Keep for pyte the last `lines - 1` newlines (a full screen), or the last `budget`
        # bytes if those are fewer.
        cut = len(data)
        for _ in range(self.screen.lines):
            cut = data.rfind(b"\n", 0, cut)
            if cut < 0:
                break
        cut = max(cut, data.rfind(b"\n", 0, len(data) - budget))
        first = data.find(b"\n")
        if cut <= first:  # no whole lines to skip
            self._stream.feed(data)
            return
        self._stream.feed(data[: first + 1])
        skipped = render_text(data[first + 1 : cut + 1]).split("\n")
        skipped.pop()  # the part after the last newline: empty
        self.screen.push_plain_lines(skipped)
        self._stream.feed(data[cut + 1 :])

    def resize(self, columns: int, lines: int) -> None:
        self.screen.resize(lines=lines, columns=columns)
