"""Keys typed before the UI shows: kept for the prompt, never run as commands.

The user starts `acp-tui` and types at once; the first frame comes much later (the agent starts,
Textual loads). The bytes are not lost by the terminal: Textual's driver switches the tty with
``TCSANOW`` (no flush) and reads them, but then as keys of an app whose prompt does not have the
focus yet, so they went to whatever did (or answered a question on screen, or ran as bindings).

`EarlyInput` takes them instead: `start()` (right after the command line is read) puts the tty in
non-canonical mode without echo, with ``TCSANOW`` (nothing flushed, the bytes typed so far stay
readable); `take()` (right before Textual takes the terminal) reads what is pending, gives the
terminal its attributes back and returns the text for the prompt (`typed_text`: printable text,
backspace applied, tab as a space; escape sequences, Enter and other controls dropped: they are
never commands). The app puts it in the prompt once mounted.

Standard library only: nothing of Textual is imported yet when this runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import sys
import termios
from typing import Any

MAX_BYTES = 1 << 16

_ESCAPE_SEQUENCE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI (arrows, function keys, ...)
    r"|O.|\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # SS3, OSC
    r"|.)?",  # ESC + one character (alt+key), or a lone ESC
    re.DOTALL,
)


def typed_text(data: bytes) -> str:
    """The text that `data` (bytes typed on a terminal) types in a prompt: printable characters;
    backspace/DEL delete the one before, tab is a space; escape sequences, CR/LF and other
    controls are dropped."""
    text = _ESCAPE_SEQUENCE.sub("", data.decode("utf-8", errors="replace"))
    typed: list[str] = []
    for char in text:
        if char in "\x7f\x08":
            if typed:
                typed.pop()
        elif char == "\t":
            typed.append(" ")
        elif char.isprintable():
            typed.append(char)
    return "".join(typed)


class EarlyInput:
    """What the user types between the start of the process and the UI taking the terminal."""

    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self._saved: list[Any] | None = None

    def start(self) -> None:
        """Keep typed bytes from being echoed or held for a line (a no-op without a tty)."""
        try:
            if not os.isatty(self.fd):
                return
            saved = termios.tcgetattr(self.fd)
            quiet = termios.tcgetattr(self.fd)
            quiet[3] &= ~(termios.ICANON | termios.ECHO)  # lflag
            quiet[6][termios.VMIN] = 1
            quiet[6][termios.VTIME] = 0
            termios.tcsetattr(self.fd, termios.TCSANOW, quiet)  # TCSANOW: nothing flushed
        except (OSError, termios.error, ValueError):
            return
        self._saved = saved

    def take(self) -> str:
        """What was typed so far, as prompt text; the terminal's attributes restored."""
        if self._saved is None:
            return ""
        data = b""
        try:
            while len(data) < MAX_BYTES and select.select([self.fd], [], [], 0)[0]:
                chunk = os.read(self.fd, 4096)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        finally:
            self.restore()
        return typed_text(data)

    def restore(self) -> None:
        """Give the terminal back its attributes (idempotent)."""
        saved, self._saved = self._saved, None
        if saved is not None:
            with contextlib.suppress(OSError, termios.error):
                termios.tcsetattr(self.fd, termios.TCSANOW, saved)
