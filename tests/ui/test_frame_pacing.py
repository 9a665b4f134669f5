"""The screen's frames are paced from when the previous one began, not from a grid that a late
frame pushes one tick too far (`textual_internals/frame_pacing.py`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import UPDATE_PERIOD
from textual.timer import Timer
from textual.widgets import Static

from acp_tui.ui.textual_internals import frame_pacing
from acp_tui.ui.textual_internals.engine import EngineScreen
from acp_tui.ui.textual_internals.frame_pacing import PacedTimer

INTERVAL = 1 / 60


class FakeClock:
    """`monotonic` and `sleep` for the timer: a sleep moves the clock on by what it was asked."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds
        await asyncio.sleep(0)


class Ticks:
    """The callback of a timer that pauses it each time (as the screen's update does)."""

    def __init__(self, clock: FakeClock) -> None:
        self.clock = clock
        self.at: list[float] = []
        self.ticked = asyncio.Event()
        self.timer: Timer | None = None
        self.work = 0.0  # seconds each run "takes" on the fake clock

    def __call__(self) -> None:
        assert self.timer is not None
        self.timer.pause()
        self.at.append(self.clock.now)
        self.clock.now += self.work
        self.ticked.set()

    async def next(self) -> float:
        await asyncio.wait_for(self.ticked.wait(), 5)
        self.ticked.clear()
        return self.at[-1]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(frame_pacing, "monotonic", fake.monotonic)
    monkeypatch.setattr(frame_pacing, "sleep", fake.sleep)
    return fake


@asynccontextmanager
async def started(clock: FakeClock, work: float = 0.0) -> AsyncIterator[tuple[PacedTimer, Ticks]]:
    """A paused `PacedTimer` whose runs each take `work` seconds, in a running app (a timer
    runs its callback in the app's context)."""
    app: App[None] = App()
    async with app.run_test():
        ticks = Ticks(clock)
        ticks.work = work
        timer = PacedTimer(app, INTERVAL, callback=ticks, pause=True)
        ticks.timer = timer
        timer._start()
        try:
            yield timer, ticks
        finally:
            timer.stop()


async def test_a_frame_asked_for_long_after_the_last_is_drawn_at_once(clock: FakeClock) -> None:
    async with started(clock, work=1.5 * INTERVAL) as (timer, ticks):  # a slow frame
        timer.resume()
        first = await ticks.next()
        clock.now += 0.25 * INTERVAL  # idle a little: 1.75 intervals since the frame began
        timer.resume()
        second = await ticks.next()
        assert second == pytest.approx(first + 1.75 * INTERVAL)
        assert clock.slept == [], "it waited for a grid point"


async def test_a_frame_asked_for_soon_after_the_last_waits_for_the_rest_of_one_interval(
    clock: FakeClock,
) -> None:
    async with started(clock, work=0.25 * INTERVAL) as (timer, ticks):
        timer.resume()
        first = await ticks.next()
        clock.now += 0.25 * INTERVAL
        timer.resume()
        second = await ticks.next()
        assert second == pytest.approx(first + INTERVAL), "more than one frame per interval"
        assert clock.slept == [pytest.approx(0.5 * INTERVAL)]


async def test_a_paused_timer_does_not_run(clock: FakeClock) -> None:
    async with started(clock) as (timer, ticks):
        timer.resume()
        await ticks.next()
        clock.now += 0.5 * INTERVAL
        timer.resume()
        timer.pause()  # asked, then taken back before the wait ended
        for _ in range(5):
            await asyncio.sleep(0)
        assert len(ticks.at) == 1
        timer.resume()
        await ticks.next()
        assert len(ticks.at) == 2


class Counted(Static):
    def __init__(self) -> None:
        super().__init__("before")
        self.renders = 0

    def render(self) -> Any:
        self.renders += 1
        return super().render()


class PacedScreen(EngineScreen):
    def compose(self) -> ComposeResult:
        yield Counted()


class PacedApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(PacedScreen())


async def test_a_paced_screen_is_drawn_by_its_paced_timer() -> None:
    app = PacedApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, PacedScreen)
        timer = screen._update_timer
        assert isinstance(timer, PacedTimer)
        assert timer is screen._update_timer, "made once"
        assert timer in screen._timers, "stopped with the screen's other timers"
        assert timer._interval == UPDATE_PERIOD
        counted = screen.query_one(Counted)
        drawn = counted.renders
        counted.update("after")
        await pilot.pause()
        assert counted.renders > drawn
        assert "after" in str(counted.render())
    assert timer._task is None, "the timer stopped when the app closed"


def test_the_main_screen_is_paced() -> None:
    from acp_tui.ui.screens.main import MainScreen

    assert issubclass(MainScreen, EngineScreen)
