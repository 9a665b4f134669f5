"""The engine against stock Textual: the same widgets and the same events through a stock `Screen`
(`App`) and through `EngineScreen` (`EngineApp`) show the same screen, with the work the engine
saves counted (layouts, restyles, rows rendered, messages, frames held), not timed."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

import pytest
from rich.segment import Segment
from textual import messages
from textual.app import App, ComposeResult
from textual.geometry import Region, Size
from textual.pilot import Pilot
from textual.screen import Screen
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Static

from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.textual_internals import frame_pacing
from acp_tui.ui.textual_internals.engine import EngineApp, EngineScreen
from acp_tui.ui.textual_internals.frame_pacing import PacedTimer
from acp_tui.ui.textual_internals.kept_frame import FrameCompositor
from acp_tui.ui.textual_internals.quick_repaint import repaint_soon
from acp_tui.ui.workspace.tabs_app import WorkspaceApp
from tests.ui.headless_app import until
from tests.ui.quiet import until_quiet

ROWS = 6

# ------------------------------------------------------------------- one hook, one override

SCREEN_HOOKS = (
    "_refresh_layout",
    "_compositor_refresh",
    "_update_timer",
    "_screen_resized",
    "_on_screen_suspend",
    "_on_screen_resume",
    "_on_layout",
    "_on_update",
)


def _overriders(cls: type, name: str) -> list[str]:
    return [
        base.__qualname__
        for base in cls.__mro__
        if name in vars(base) and not base.__module__.startswith("textual")
    ]


@pytest.mark.parametrize("hook", SCREEN_HOOKS)
def test_each_screen_hook_is_overridden_once_by_the_engine(hook: str) -> None:
    assert _overriders(MainScreen, hook) == ["EngineScreen"]


def test_the_app_hook_is_overridden_once_by_the_engine() -> None:
    assert _overriders(WorkspaceApp, "delay_update") == ["EngineApp"]


def test_the_steps_run_in_the_order_written_in_the_engine() -> None:
    screen = EngineScreen()
    engine = screen.engine
    assert engine.layout_steps == (engine.anchor.around_layout, engine.layout_once.around_layout)
    assert engine.paint_steps == (
        engine.anchor.around_paint,
        engine.kept_frame.around_paint,
        engine.layout_once.around_paint,
    )


# ------------------------------------------------------------------ switching between screens


class Counted(Widget):
    """A line of text (`text`, shown once refreshed) that counts the rows the compositor asks
    it for."""

    DEFAULT_CSS = "Counted { height: 1; }"

    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(id=id)
        self.text = text
        self.rows = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        self.rows += crop.height
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        return Strip([Segment(self.text)])


def _tree() -> ComposeResult:
    for index in range(ROWS):
        yield Counted(f"row {index}", id=f"row{index}")


class StockRows(Screen[None]):
    layouts = 0
    restyles = 0

    def compose(self) -> ComposeResult:
        yield from _tree()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self.layouts += 1
        super()._refresh_layout(size, scroll)

    def update_node_styles(self, animate: bool = True) -> None:
        self.restyles += 1
        super().update_node_styles(animate)


class EngineRows(EngineScreen):
    layouts = 0
    restyles = 0

    def compose(self) -> ComposeResult:
        yield from _tree()

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self.layouts += 1
        super()._refresh_layout(size, scroll)

    def update_node_styles(self, animate: bool = True) -> None:
        self.restyles += 1
        super().update_node_styles(animate)

    def on_screen_suspend(self) -> None:
        self.engine.kept_frame.keep_frame_soon()  # (as a tab's screen does once hidden)


class Other(Screen[None]):
    def compose(self) -> ComposeResult:
        yield Static("the other screen")


@dataclass
class SwitchedBack:
    shown: list[str]
    layouts: int
    restyles: int
    unchanged_rows: int
    """Rows the widgets not changed while hidden rendered for the switch back."""
    changed_rows: int
    reused: int


def _shown(app: App[Any]) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def switch_back(
    engine: bool,
    *,
    change: bool = False,
    resize: bool = False,
    theme: bool = False,
) -> SwitchedBack:
    """Show `rows`, switch to another screen, (change a row, resize, change the theme), switch
    back: what is shown and what the switch back cost."""
    rows_screen: StockRows | EngineRows = EngineRows() if engine else StockRows()

    class Switching(App[None]):
        MODES = {"rows": lambda: rows_screen, "other": Other}

    app = Switching()
    async with app.run_test(size=(30, 10)) as pilot:
        await app.switch_mode("rows")
        await until(pilot, lambda: bool(_shown(app)) and "row 0" in _shown(app)[0], "rows")
        await app.switch_mode("other")
        await until_quiet(pilot)
        if engine:
            compositor = rows_screen._compositor
            assert isinstance(compositor, FrameCompositor)
            await until(pilot, lambda: compositor.kept is not None, "the frame kept")
        changed = rows_screen.query_one("#row2", Counted)
        if change:  # (a repaint, no layout: the frame kept stays)
            changed.text = "row 2 changed"
            changed.refresh()
        if resize:
            await pilot.resize_terminal(34, 10)
        if theme:
            app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        await until_quiet(pilot, rows_screen)  # (what the hidden screen was asked, taken in)
        widgets = list(rows_screen.query(Counted).results(Counted))
        for widget in widgets:
            widget.rows = 0
        layouts, restyles = rows_screen.layouts, rows_screen.restyles
        reused = getattr(rows_screen._compositor, "reused", 0)
        await app.switch_mode("rows")
        await until_quiet(pilot)
        switched = SwitchedBack(
            [],
            rows_screen.layouts - layouts,
            rows_screen.restyles - restyles,
            sum(w.rows for w in widgets if w is not changed),
            changed.rows,
            getattr(rows_screen._compositor, "reused", 0) - reused,
        )
        switched.shown = _shown(app)  # (renders every row: after the counts)
        return switched


async def test_a_screen_switched_back_to_shows_what_textual_shows_for_no_work() -> None:
    """Kept frame, resume styles, resume layout: nothing changed, nothing done again."""
    stock = await switch_back(engine=False)
    ours = await switch_back(engine=True)
    assert ours.shown == stock.shown
    assert "row 5" in "".join(ours.shown)
    assert stock.layouts >= 1 and stock.restyles == 1  # Textual's own: layouts and a restyle
    assert stock.unchanged_rows > 0  # and every row rendered again
    assert (ours.layouts, ours.restyles, ours.unchanged_rows) == (0, 0, 0)
    assert ours.reused == 1  # painted from the kept frame


async def test_a_row_changed_while_hidden_is_drawn_anew_in_the_kept_frame() -> None:
    stock = await switch_back(engine=False, change=True)
    ours = await switch_back(engine=True, change=True)
    assert ours.shown == stock.shown
    assert "row 2 changed" in "".join(ours.shown)
    assert ours.changed_rows > 0
    assert ours.unchanged_rows == 0 < stock.unchanged_rows


async def test_a_screen_resized_while_hidden_is_laid_out_as_textual_does() -> None:
    stock = await switch_back(engine=False, resize=True)
    ours = await switch_back(engine=True, resize=True)
    assert ours.shown == stock.shown
    assert len(ours.shown[0]) == 34
    assert ours.layouts >= 1


async def test_a_theme_changed_while_hidden_restyles_as_textual_does() -> None:
    stock = await switch_back(engine=False, theme=True)
    ours = await switch_back(engine=True, theme=True)
    assert ours.shown == stock.shown
    assert ours.restyles == stock.restyles == 1


# --------------------------------------------------------------------------- switch at once


def _modes(base: type[App[Any]]) -> App[Any]:
    class Modes(base):  # type: ignore[valid-type,misc]
        MODES = {"a": lambda: Screen(), "b": Other}

    return Modes()


async def frames_held_until_none(app: App[Any], pilot: Pilot[Any]) -> None:
    while app._batch_count:
        await pilot.pause()


async def switch_to_b(engine: bool) -> tuple[int, list[str]]:
    """Frames held right after a switch to a built screen, and what it shows once drawn."""
    app = _modes(EngineApp if engine else App)
    async with app.run_test(size=(30, 5)) as pilot:
        await app.switch_mode("a")
        await app.switch_mode("b")
        await asyncio.wait_for(frames_held_until_none(app, pilot), 30)
        await app.switch_mode("a")
        await asyncio.wait_for(frames_held_until_none(app, pilot), 30)
        if engine:
            assert isinstance(app, EngineApp)
            app.switch_to_built("b")
        else:
            app.switch_mode("b")
        held = app._batch_count
        await asyncio.wait_for(frames_held_until_none(app, pilot), 30)
        await pilot.pause()
        return held, _shown(app)


async def test_a_switch_to_a_built_screen_holds_no_frames() -> None:
    stock_held, stock_shown = await switch_to_b(engine=False)
    held, shown = await switch_to_b(engine=True)
    assert stock_held == 1  # Textual's own: 50 ms of no frames
    assert held == 0
    assert shown == stock_shown
    assert "the other screen" in shown[0]


# ---------------------------------------------------------------------------- quick repaint


class OneRow(Widget):
    """A line of text, drawn from `text` (changed without a refresh)."""

    DEFAULT_CSS = "OneRow { height: 3; }"
    text = "before"
    rows = 0

    def render_line(self, y: int) -> Strip:
        self.rows += 1
        return Strip([Segment(self.text if y == 0 else "")])


def _counting_updates(base: type[Screen[Any]]) -> Screen[Any]:
    class Counting(base):  # type: ignore[valid-type,misc]
        updates = 0

        def compose(self) -> ComposeResult:
            yield OneRow()

        async def _on_update(self, message: messages.Update) -> None:
            self.updates += 1  # (each class's handler runs: the screen's own ones after this)

    return Counting()


async def repaint(engine: bool) -> tuple[int, int, list[str]]:
    """A widget's text changed and repainted (`refresh` on a stock screen, `repaint_soon` on
    the engine's): the `Update` messages the screen got, the rows the frame rendered, and what
    the screen shows."""
    screen = _counting_updates(EngineScreen if engine else Screen)

    class One(App[None]):
        def on_mount(self) -> None:
            self.push_screen(screen)

    app = One()
    async with app.run_test(size=(20, 4)) as pilot:
        await until(pilot, lambda: app.screen is screen and "before" in _shown(app)[0], "shown")
        await until_quiet(pilot)
        row = screen.query_one(OneRow)
        before = screen.updates  # type: ignore[attr-defined]
        row.text, row.rows = "after", 0
        if engine:
            repaint_soon(row, Region(0, 0, row.size.width, 1))
        else:
            row.refresh(Region(0, 0, row.size.width, 1))
        await until(pilot, lambda: row.rows > 0, "the repaint")
        await until_quiet(pilot)
        rows = row.rows
        return screen.updates - before, rows, _shown(app)  # type: ignore[attr-defined]


async def test_a_quick_repaint_shows_the_same_without_messages() -> None:
    stock_updates, stock_rows, stock_shown = await repaint(engine=False)
    updates, rows, shown = await repaint(engine=True)
    assert shown == stock_shown
    assert "after" in shown[0]
    assert stock_updates == 1  # Textual's own: an `Update` posted to the screen
    assert updates == 0
    assert rows == stock_rows == 1  # the frame rendered the row asked for


# ---------------------------------------------------------------------------- frame pacing

INTERVAL = 1 / 60


class FakeClock:
    """Time for both timers: a sleep moves the clock on by what it was asked."""

    def __init__(self) -> None:
        self.now = 100.0

    def monotonic(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += max(0.0, seconds)
        await asyncio.sleep(0)


async def second_frame_after(paced: bool, monkeypatch: pytest.MonkeyPatch) -> float:
    """Intervals from a slow frame (1.5 intervals of work) to the next one, asked 0.25 of an
    interval after the slow one ended, with Textual's screen timer or the paced one."""
    import textual._time
    import textual.timer

    clock = FakeClock()
    monkeypatch.setattr(frame_pacing, "monotonic", clock.monotonic)
    monkeypatch.setattr(frame_pacing, "sleep", clock.sleep)
    monkeypatch.setattr(textual._time, "get_time", clock.monotonic)
    monkeypatch.setattr(textual.timer, "sleep", clock.sleep)
    at: list[float] = []
    ticked = asyncio.Event()
    timers: list[Timer] = []

    def frame() -> None:
        timers[0].pause()  # (as the screen's update does)
        at.append(clock.now)
        clock.now += 1.5 * INTERVAL
        ticked.set()

    app: App[None] = App()
    async with app.run_test():
        kind = PacedTimer if paced else Timer
        timer = kind(app, INTERVAL, callback=frame, pause=True)
        timers.append(timer)
        timer._start()
        try:
            for _ in range(2):
                timer.resume()
                await asyncio.wait_for(ticked.wait(), 5)
                ticked.clear()
                clock.now += 0.25 * INTERVAL
        finally:
            timer.stop()
    return (at[1] - at[0]) / INTERVAL


async def test_a_frame_after_a_slow_one_is_not_pushed_a_tick_later(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stock = await second_frame_after(False, monkeypatch)
    paced = await second_frame_after(True, monkeypatch)
    assert paced == pytest.approx(1.75)  # at once: more than one interval since it began
    assert stock > 2.5  # Textual's own: the grid skipped one tick more than it meant to


def test_the_engine_screen_is_drawn_by_a_paced_timer() -> None:
    screen = EngineScreen()
    assert isinstance(screen.engine.pacing, frame_pacing.PacedFrames)


def test_the_screen_and_the_app_are_built_on_the_engine_with_one_base_each() -> None:
    """What they do besides is done by objects they own, not by mixins."""
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.screens.session_screen_port import SessionScreenPort
    from acp_tui.ui.workspace.app_port import WorkspaceAppPort

    # each on one base: the interface its owned parts see (declarations only), on the engine
    assert MainScreen.__bases__ == (SessionScreenPort,)
    assert SessionScreenPort.__bases__ == (EngineScreen,)
    assert WorkspaceApp.__bases__ == (WorkspaceAppPort,)
    assert WorkspaceAppPort.__bases__ == (EngineApp,)
    assert AcpApp.__bases__ == (WorkspaceApp,)
