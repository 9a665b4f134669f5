"""A VT screen with scrollback for terminal views (pyte; imported at the first terminal).

- `ScrollbackScreen` / `TerminalEmulator` are a pyte screen that keeps the lines scrolled off
  its top, and can catch up on a large backlog without feeding every byte through pyte.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any

import pyte

from acp_tui.host.terminal_screen import render_text

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

    def __init__(
        self, columns: int = 80, lines: int = 24, history: int = 5000, *, newline_mode: bool = False
    ) -> None:
        """`newline_mode`: a line feed also returns the carriage (the terminal's LNM mode), for
        output that was not written through a PTY (an agent-owned terminal's: LF without CR)."""
        self.screen = ScrollbackScreen(columns, lines, history)
        if newline_mode:
            self.screen.set_mode(pyte.modes.LNM)
        self._stream = pyte.ByteStream(self.screen)

    def feed(self, data: bytes, budget: int | None = None) -> None:
        """Interpret output; with a `budget`, a flood is cut to what can still show on screen."""
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
        """Resize the emulated screen."""
        self.screen.resize(lines=lines, columns=columns)
