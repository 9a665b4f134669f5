"""How many of the agent's notices become toasts: a few a second, the rest counted.

An agent may send notices by the thousand; each toast is a widget, so a flood of them froze the
app. `ToastPacer` lets `burst` toasts through per `window` seconds and holds the rest back as a
count; when the window ends, the screen shows one toast for everything held back (the notices
themselves are listed in the sidebar). No Textual here: the screen owns the timer.
"""

from __future__ import annotations

import time
from collections.abc import Callable

TOASTS_PER_WINDOW = 3
WINDOW_SECONDS = 1.0


class ToastPacer:
    """Admits at most `burst` toasts per `window` seconds; counts what it holds back."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        *,
        burst: int = TOASTS_PER_WINDOW,
        window: float = WINDOW_SECONDS,
    ) -> None:
        self._clock = clock
        self.burst = burst
        self.window = window
        self._window_start = -window
        self._shown = 0
        self.held = 0
        """Notices not shown as toasts since the last `take_held`."""

    def admit(self) -> bool:
        """Whether the next notice may be a toast now (if not, it is counted as held)."""
        now = self._clock()
        if now - self._window_start >= self.window:
            self._window_start, self._shown = now, 0
        if self._shown < self.burst:
            self._shown += 1
            return True
        self.held += 1
        return False

    def until_window_ends(self) -> float:
        """Seconds until the current window ends (when the held count is told)."""
        return max(self._window_start + self.window - self._clock(), 0.0)

    def take_held(self) -> int:
        """The count held back so far, reset (the screen tells it in one toast)."""
        held, self.held = self.held, 0
        return held
