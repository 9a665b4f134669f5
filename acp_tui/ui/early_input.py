"""Keys typed before the UI shows: read as they come, for the early prompt, never run as commands.

The user starts `acp-tui` and types at once; Textual's first frame comes much later (the agent
starts, Textual loads). The bytes are not lost by the terminal: Textual's driver switches the tty
with ``TCSANOW`` (no flush) and reads them, but then as keys of an app whose prompt does not have
the focus yet, so they went to whatever did (or answered a question on screen, or ran as
bindings).

`EarlyInput` takes them instead: `start(on_input)` (right after the command line is read) puts
the tty in non-canonical mode without echo, with ``TCSANOW`` (nothing flushed, the bytes typed so
far stay readable), and reads them in a thread as they are typed, handing each read to
`on_input` (the early prompt, `early_prompt.py`, which the skeleton draws: typing shows at once);
`take()` (right before Textual takes the terminal) stops that thread, hands on what is still
pending and gives the terminal its attributes back. What was typed before `start` (the moment the
command was run, say) was typed while the tty turned Enter into a line feed: those bytes are
handed on with Enter given back (a ctrl+j typed then is an Enter too).

Standard library only: nothing of Textual is imported yet when this runs.
"""

from __future__ import annotations

import contextlib
import os
import select
import sys
import termios
import threading
from collections.abc import Callable
from typing import Any

MAX_BYTES = 1 << 16
"""The most read when the thread is stopped (what is pending then)."""


class EarlyInput:
    """What the user types between the start of the process and the UI taking the terminal."""

    def __init__(self, fd: int | None = None) -> None:
        self.fd = sys.stdin.fileno() if fd is None else fd
        self._saved: list[Any] | None = None
        self._on_input: Callable[[bytes], None] = lambda data: None
        self._reader: threading.Thread | None = None
        self._wake: tuple[int, int] | None = None

    def start(self, on_input: Callable[[bytes], None]) -> None:
        """Keep typed bytes from being echoed or held for a line, and hand each read of them to
        `on_input` (from a thread) until `take()`; a no-op without a tty."""
        try:
            if not os.isatty(self.fd):
                return
            saved = termios.tcgetattr(self.fd)
            quiet = termios.tcgetattr(self.fd)
            quiet[0] &= ~termios.ICRNL  # iflag: Enter stays CR (ctrl+j is the newline)
            quiet[3] &= ~(termios.ICANON | termios.ECHO)  # lflag
            quiet[6][termios.VMIN] = 1
            quiet[6][termios.VTIME] = 0
            termios.tcsetattr(self.fd, termios.TCSANOW, quiet)  # TCSANOW: nothing flushed
        except (OSError, termios.error, ValueError):
            return
        self._saved = saved
        self._on_input = on_input
        typed_before = self._pending()
        if typed_before:  # typed while the tty still turned Enter into a line feed (ICRNL)
            on_input(typed_before.replace(b"\n", b"\r"))
        self._wake = os.pipe()
        self._reader = threading.Thread(target=self._read, name="early-input", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._wake is not None
        wake = self._wake[0]
        try:
            while True:
                ready = select.select([self.fd, wake], [], [])[0]
                if wake in ready:
                    return
                data = os.read(self.fd, 4096)
                if not data:
                    return
                self._on_input(data)
        except Exception:  # (the terminal went away): what is left is read by `take`
            return

    def take(self) -> None:
        """Stop reading in the thread, hand on what is still pending, give the terminal its
        attributes back (idempotent)."""
        if self._saved is None:
            return
        self._stop_reader()
        try:
            data = self._pending()
        finally:
            self.restore()
        if data:
            self._on_input(data)

    def _pending(self) -> bytes:
        """The bytes that can be read now, without waiting."""
        data = b""
        with contextlib.suppress(OSError):
            while len(data) < MAX_BYTES and select.select([self.fd], [], [], 0)[0]:
                chunk = os.read(self.fd, 4096)
                if not chunk:
                    break
                data += chunk
        return data

    def _stop_reader(self) -> None:
        reader, self._reader = self._reader, None
        wake, self._wake = self._wake, None
        if wake is None:
            return
        with contextlib.suppress(OSError):
            os.write(wake[1], b"x")
        if reader is not None:
            reader.join()
        for fd in wake:
            with contextlib.suppress(OSError):
                os.close(fd)

    def restore(self) -> None:
        """Stop the reading thread, give the terminal back its attributes (idempotent)."""
        self._stop_reader()
        saved, self._saved = self._saved, None
        if saved is not None:
            with contextlib.suppress(OSError, termios.error):
                termios.tcsetattr(self.fd, termios.TCSANOW, saved)
