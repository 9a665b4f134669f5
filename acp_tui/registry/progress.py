"""A download's progress on stderr (before any UI starts): bytes so far / total.

On a terminal one line is rewritten (at most ten times a second); elsewhere (a log, a pipe)
a line when the download starts and one when it ends.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


def _size(count: int) -> str:
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / (1024 * 1024):.1f} MiB"


def amount(done: int, total: int | None) -> str:
    """How much of a download arrived: `1.2 MiB / 5.0 MiB (24%)`, or `1.2 MiB` (no total)."""
    if total:
        return f"{_size(done)} / {_size(total)} ({100 * done // total}%)"
    return _size(done)


class StderrProgress:
    def __init__(self, what: str, stream: TextIO | None = None) -> None:
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        self.live = self.stream.isatty()
        self.done = 0
        self.total: int | None = None
        self._shown_at = 0.0
        self._started = False

    def __call__(self, done: int, total: int | None) -> None:
        self.done, self.total = done, total
        if not self._started:
            self._started = True
            if not self.live:
                size = f" ({total} bytes)" if total is not None else ""
                print(f"acp-tui: downloading {self.what}{size}", file=self.stream)
        now = time.monotonic()
        if self.live and (now - self._shown_at >= 0.1 or done == total):
            self._shown_at = now
            self.stream.write(f"\racp-tui: downloading {self.what}: {self._amount()}\x1b[K")
            self.stream.flush()

    def _amount(self) -> str:
        return amount(self.done, self.total)

    def finish(self) -> None:
        """End the progress line (nothing when nothing was downloaded)."""
        if not self._started:
            return
        if self.live:
            self.stream.write("\n")
        else:
            total = self.total if self.total is not None else "?"
            print(f"acp-tui: downloaded {self.what}: {self.done}/{total} bytes", file=self.stream)
        self.stream.flush()
