"""Terminal output as bytes (byte-limited), as plain text, and as a VT screen with scrollback.

- `OutputBuffer` keeps the most recent bytes of a command's output, up to a limit.
- `render_text` turns raw PTY output into readable text fast: escape sequences removed,
  `\\r\\n` → `\\n`, carriage-return / backspace / erase-line overwrites resolved per line (a
  progress bar shows its final state). Cursor movement between lines is not modelled.
The VT screen (pyte) lives in `terminal_emulator`, imported only when a terminal is shown.
"""

from __future__ import annotations

import re

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
        """Keep new output, dropping the oldest beyond the limit (the total still counts it)."""
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
