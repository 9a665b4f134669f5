"""The first frame, drawn before Textual is even imported.

Loading Textual, the protocol models and the app takes about a second; until then the terminal
would stay blank (or show the shell). `FirstFrame.show()` runs right after the command line is
read: it enters the alternate screen and writes the app's layout skeleton, the way the main
screen's first frame looks with the default theme (the conversation's background, the sidebar's
edge, the empty prompt box, the status bar saying "<agent>  ● starting"), so Textual's own first
frame then replaces it without a jump.

If the process ends before Textual takes the terminal (the agent cannot start, a setting is
refused, an error), `restore()` leaves the alternate screen and shows the cursor again: nothing
of the skeleton stays on the user's screen. Once `handed_over()` was called, Textual owns the
terminal and restores it itself (`restore()` then writes nothing).

Standard library only: nothing of Textual is imported yet when this runs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

SIDEBAR_WIDTH = 38
"""The sidebar's width (`Sidebar`'s CSS), its left edge included."""
PROMPT_HINT = " enter send · ctrl+j newline · ↑↓ history "
ENTER = "\x1b[?1049h\x1b[?25l"
"""The alternate screen, the cursor hidden (as Textual's driver does)."""
LEAVE = "\x1b[?1049l\x1b[?25h"
_SCREEN = "\x1b[38;5;253;48;5;233m"
_EDGE = "\x1b[38;5;23;48;5;233m▏"
_BOX = "\x1b[38;5;32;48;5;234m"
_INPUT = "\x1b[48;5;235m"
_BAR = "\x1b[38;5;253;48;5;17m"
_RESET = "\x1b[0m"
_QUEUED = "\x1b[36m⏳ \x1b[3m"
QUEUED_MARK_WIDTH = 3
"""The cells of "⏳ " (the hourglass is wide)."""
PASTE_ON = "\x1b[?2004h"
"""Bracketed paste on (Textual's driver turns it on again, and off when it ends): a pasted text's
line breaks then come marked as a paste, never as Enter."""
PASTE_OFF = "\x1b[?2004l"


@dataclass(frozen=True)
class PromptBox:
    """Where the skeleton's prompt is: the input line's `row` and first `column` (1-based), its
    `width` in cells; the queued prompts go up from `queue_row` (the conversation's last row),
    `queue_width` cells wide."""

    row: int
    column: int
    width: int
    queue_row: int
    queue_width: int


def prompt_box(columns: int, lines: int) -> PromptBox | None:
    """The prompt's place in the skeleton of a `columns` x `lines` screen (None: no prompt box)."""
    main = _main_width(columns)
    if lines < 5 or main < 12:
        return None
    body = lines - 5
    return PromptBox(body + 2, 3, main - 4, body, main - 2)


CONVERSATION_MIN = 80
"""The columns the conversation keeps beside the sidebar: below, the sidebar hides by itself (at
80 columns it took 38 and left the conversation, its cards and their buttons 42)."""


def shows_sidebar(columns: int) -> bool:
    """Whether a screen `columns` wide shows the sidebar (the conversation keeps
    `CONVERSATION_MIN` columns or more beside it); the skeleton and the main screen both follow
    this."""
    return columns >= SIDEBAR_WIDTH + CONVERSATION_MIN


def _main_width(columns: int) -> int:
    return columns - SIDEBAR_WIDTH if shows_sidebar(columns) else columns


def cell_width(char: str) -> int:
    """The cells `char` takes on a terminal (East Asian wide: 2; combining marks: 0)."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in "WF" else 1


def text_width(text: str) -> int:
    """The cells `text` takes on a terminal."""
    return sum(cell_width(char) for char in text)


def fit_tail(text: str, width: int) -> str:
    """The end of `text` that fits in `width` cells."""
    used, start = 0, len(text)
    while start > 0 and used + cell_width(text[start - 1]) <= width:
        start -= 1
        used += cell_width(text[start])
    return text[start:]


def fit_head_exact(text: str, width: int) -> str:
    """The start of `text` that fits in `width` cells."""
    kept, used = [], 0
    for char in text:
        if used + cell_width(char) > width:
            break
        kept.append(char)
        used += cell_width(char)
    return "".join(kept)


def fit_head(text: str, width: int) -> str:
    """`text` cut to `width` cells, an ellipsis where it was cut."""
    if text_width(text) <= width:
        return text
    return fit_head_exact(text, width - 1) + "…"


def prompt_rows(box: PromptBox, text: str, cursor: int, queued: Sequence[str]) -> str:
    """The escape sequences that draw `text` in the prompt box, on one row (line breaks as ⏎),
    the cursor before `text[cursor]` and kept in view, and the `queued` prompts above it (the
    newest lowest)."""
    shown = text.replace("\n", "⏎")
    before = fit_tail(shown[:cursor], box.width - 1)
    under = shown[cursor : cursor + 1] or " "
    used = text_width(before) + cell_width(under)
    after = fit_head_exact(shown[cursor + 1 :], box.width - used)
    pad = box.width - used - text_width(after)
    out = [
        f"\x1b[{box.row};{box.column}H{_INPUT}{before}\x1b[7m{under}\x1b[27m{after}"
        f"{' ' * pad}{_RESET}"
    ]
    room = box.queue_width - QUEUED_MARK_WIDTH
    for offset, prompt in enumerate(reversed(queued[-box.queue_row :])):
        line = fit_head(prompt.replace("\n", " ⏎ "), room)
        pad = room - text_width(line)
        row = box.queue_row - offset
        out.append(f"\x1b[{row};2H{_SCREEN}{_QUEUED}{line}\x1b[23m{' ' * pad}{_RESET}")
    return "".join(out)


def skeleton(columns: int, lines: int, agent: str) -> str:
    """The escape sequences that draw the layout skeleton on a `columns` x `lines` screen."""
    agent = "".join(char for char in agent if char.isprintable())[: max(columns // 3, 1)]
    main = _main_width(columns)
    side = columns - main
    edge = (_EDGE + _SCREEN + " " * (side - 1)) if side else ""

    def row(y: int, text: str) -> str:
        return f"\x1b[{y};1H{text}{_RESET}"

    out = [_RESET, "\x1b[2J"]
    body = max(lines - 5, 0)
    for y in range(1, body + 1):
        out.append(row(y, _SCREEN + " " * main + edge))
    if prompt_box(columns, lines) is not None:  # (its input line: `prompt_box`'s place)
        inner = main - 2
        title = "─ Prompt "
        top = "╭" + title + "─" * (inner - len(title)) + "╮"
        hint = PROMPT_HINT if len(PROMPT_HINT) + 2 <= inner else ""
        bottom = "╰" + "─" * (inner - len(hint) - 1) + hint + "─╯"
        middle = "│ " + _INPUT + " " * (inner - 2) + _BOX + " │"
        for offset, text in enumerate((top, middle, bottom)):
            out.append(row(body + 1 + offset, _BOX + text + edge))
    status = f"{_BAR} \x1b[1;7m {agent} \x1b[22;27m\x1b[2m  ● starting\x1b[22m"
    visible = len(agent) + 15
    if lines >= 2:
        out.append(row(lines - 1, status + " " * max(columns - visible, 0)))
    out.append(row(lines, _BAR + " " * columns))
    return "".join(out)


class FirstFrame:
    """The skeleton on the terminal `fd` (standard output by default) until Textual takes it."""

    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdout.fileno() if fd is None else fd
        self._shown = False
        self._agent = ""
        self._size: os.terminal_size | None = None
        self._lock = threading.Lock()
        """Held while writing: the early prompt draws from its reader thread."""

    def show(self, agent: str) -> bool:
        """Enter the alternate screen and draw the skeleton (nothing without a terminal); True
        if it was drawn."""
        try:
            if not os.isatty(self.fd):
                return False
            size = os.get_terminal_size(self.fd)
            self._write(ENTER + PASTE_ON + skeleton(size.columns, size.lines, agent))
        except OSError:
            return False
        self._agent, self._size = agent, size
        self._shown = True
        return True

    def show_prompt(self, text: str, cursor: int, queued: Sequence[str]) -> None:
        """Draw the early prompt: `text` typed so far with the cursor before `text[cursor]`,
        `queued` the prompts sent (the skeleton drawn again first if the terminal was resized);
        nothing once Textual took over."""
        with self._lock:
            if not self._shown:
                return
            with contextlib.suppress(OSError):
                size = os.get_terminal_size(self.fd)
                out = ""
                if size != self._size:
                    self._size = size
                    out = skeleton(size.columns, size.lines, self._agent)
                box = prompt_box(size.columns, size.lines)
                if box is not None:
                    out += prompt_rows(box, text, cursor, queued)
                self._write(out)

    def handed_over(self) -> None:
        """Textual takes the terminal now (and restores it when it ends)."""
        with self._lock:
            self._shown = False

    def restore(self) -> None:
        """Leave the alternate screen and show the cursor if Textual never took over
        (idempotent)."""
        with self._lock:
            if self._shown:
                self._shown = False
                with contextlib.suppress(OSError):
                    self._write(PASTE_OFF + LEAVE)

    def _write(self, text: str) -> None:
        data = text.encode()
        while data:
            data = data[os.write(self.fd, data) :]
