"""A frame asked for is drawn as soon as one frame's time has passed since the last one began.

A fix Textual could take upstream: `Timer._run` skips one tick too many after a late tick.

Textual draws a screen from its update timer (`Screen._update_timer`, an interval of
1 / `TEXTUAL_FPS` that the screen pauses at each frame and resumes when something asks to be
drawn). The timer keeps a grid of ticks, and when it finds the next tick already past it means to
skip to the following one but skips one more: `count = int((now - start) / interval + 1)`, then
the tick after `count + 1`. A frame that took longer than the time left to the next tick (a
layout of a growing message, 10 to 25 ms) is followed by a wait of one to two frames' time, not
zero to one, before the next frame may begin. The last frame of a reply the agent wrote at full
speed waited up to 24 ms on an idle loop, after its text had been read (a traced run).

`PacedFrames` (`EngineScreen`'s update timer) is a `PacedTimer` instead: a frame asked for
begins at once when at least one interval has passed since the previous frame began, or when
it has. That is what the
grid meant to give; at most `TEXTUAL_FPS` frames a second, as before.
"""

from __future__ import annotations

from asyncio import Event, sleep
from time import monotonic
from typing import Any

from textual.screen import UPDATE_PERIOD, Screen
from textual.timer import EventTargetGone, Timer


class PacedTimer(Timer):
    """A repeating timer for a callback that pauses it each time it runs (the screen's update):
    once resumed, it runs the callback no sooner than `interval` after the previous run began."""

    async def _run(self) -> None:
        interval = self._interval
        active: Event = self._active
        began = -interval
        count = 0
        while True:
            await active.wait()
            wait = began + interval - monotonic()
            if wait > 0:
                await sleep(wait)
                await active.wait()  # paused again meanwhile: wait to be asked once more
            self._reset = False  # no grid to restart: a reset changes nothing here
            began = monotonic()
            count += 1
            try:
                await self._tick(next_timer=began, count=count)
            except EventTargetGone:
                break


class PacedFrames:
    """The update timer of a screen: a `PacedTimer` (see the module docstring), made when first
    asked for, as `Screen._update_timer` makes Textual's with `set_interval`."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._timer: PacedTimer | None = None

    @property
    def timer(self) -> Timer:
        """The screen's update timer (started, and stopped with the screen's other timers)."""
        timer = self._timer
        if timer is None:
            screen = self._screen
            timer = PacedTimer(
                screen,
                UPDATE_PERIOD,
                name="screen_update",
                callback=screen._on_timer_update,
                pause=True,
            )
            timer._start()
            screen._timers.add(timer)
            self._timer = timer
        return timer
