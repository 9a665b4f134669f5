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


def skeleton(columns: int, lines: int, agent: str) -> str:
    """The escape sequences that draw the layout skeleton on a `columns` x `lines` screen."""
    agent = "".join(char for char in agent if char.isprintable())[: max(columns // 3, 1)]
    main = columns - SIDEBAR_WIDTH if columns > SIDEBAR_WIDTH + 20 else columns
    side = columns - main
    edge = (_EDGE + _SCREEN + " " * (side - 1)) if side else ""

    def row(y: int, text: str) -> str:
        return f"\x1b[{y};1H{text}{_RESET}"

    out = [_RESET, "\x1b[2J"]
    body = max(lines - 5, 0)
    for y in range(1, body + 1):
        out.append(row(y, _SCREEN + " " * main + edge))
    if lines >= 5 and main >= 12:
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

    def show(self, agent: str) -> bool:
        """Enter the alternate screen and draw the skeleton (nothing without a terminal); True
        if it was drawn."""
        try:
            if not os.isatty(self.fd):
                return False
            size = os.get_terminal_size(self.fd)
            self._write(ENTER + skeleton(size.columns, size.lines, agent))
        except OSError:
            return False
        self._shown = True
        return True

    def handed_over(self) -> None:
        """Textual takes the terminal now (and restores it when it ends)."""
        self._shown = False

    def restore(self) -> None:
        """Leave the alternate screen and show the cursor if Textual never took over
        (idempotent)."""
        if self._shown:
            self._shown = False
            with contextlib.suppress(OSError):
                self._write(LEAVE)

    def _write(self, text: str) -> None:
        data = text.encode()
        while data:
            data = data[os.write(self.fd, data) :]
