"""The engine against stock Textual: the same widgets and the same events through a stock `Screen`
(`App`) and through `EngineScreen` (`EngineApp`) show the same screen, with the work the engine
saves counted (layouts, restyles, rows rendered, messages, frames held), not timed."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from textual import events, messages
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region, Size
from textual.layout import Layout
from textual.pilot import Pilot
from textual.screen import Screen
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Button, Input, Static, TextArea

from acp_tui.client.events import SessionState
from acp_tui.ui.screens.elicitation_screen import FormInput
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.textual_internals import frame_pacing, register_screen
from acp_tui.ui.textual_internals.engine import EngineApp, EngineScreen
from acp_tui.ui.textual_internals.fit_row import FitRowLayout
from acp_tui.ui.textual_internals.frame_pacing import PacedTimer
from acp_tui.ui.textual_internals.kept_frame import FrameCompositor
from acp_tui.ui.textual_internals.quick_repaint import repaint_soon
from acp_tui.ui.textual_internals.quick_scrollbar import QuickScrollBar
from acp_tui.ui.textual_internals.wrap_layout import WrapRow
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.workspace.tabs_app import WorkspaceApp
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, run_app
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


@pytest.mark.parametrize("hook", ["delay_update", "_register"])
def test_each_app_hook_is_overridden_once_by_the_engine(hook: str) -> None:
    assert _overriders(WorkspaceApp, hook) == ["EngineApp"]


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


# ------------------------------------------------------------------ a screen shown first


class Styled(Static):
    """A row drawn in the theme's colours."""

    DEFAULT_CSS = "Styled { height: 1; background: $primary; color: $text; }"


class Recoloured(Static):
    """Unscoped CSS that recolours the rows of any screen, mounted only when asked."""

    SCOPED_CSS = False
    DEFAULT_CSS = "Styled { background: red; }"


class StockStyled(Screen[None]):
    restyles = 0

    def compose(self) -> ComposeResult:
        for index in range(ROWS):
            yield Styled(f"row {index}")

    def update_node_styles(self, animate: bool = True) -> None:
        self.restyles += 1
        super().update_node_styles(animate)


class EngineStyled(EngineScreen):
    restyles = 0

    def compose(self) -> ComposeResult:
        for index in range(ROWS):
            yield Styled(f"row {index}")

    def update_node_styles(self, animate: bool = True) -> None:
        self.restyles += 1
        super().update_node_styles(animate)


def _shown_styled(app: App[Any]) -> list[list[tuple[str, str]]]:
    """Each row on screen as its segments: text and style."""
    strips = app.screen._compositor.render_strips()
    return [[(segment.text, str(segment.style)) for segment in strip] for strip in strips]


async def first_showing(
    engine: bool, *, theme: bool = False, unscoped: bool = False
) -> tuple[list[list[tuple[str, str]]], int]:
    """A screen of rows built (composed and mounted, off the stack) while another is shown,
    (the theme changed, unscoped CSS added), then shown for the first time: what it shows and
    how many times it was restyled as it was shown."""

    class Showing(App[None]):
        MODES = {"other": Other}

    app = Showing()
    async with app.run_test(size=(30, 10)) as pilot:
        await app.switch_mode("other")
        await pilot.pause()
        rows_screen: StockStyled | EngineStyled = EngineStyled() if engine else StockStyled()
        app.install_screen(rows_screen, "rows")
        register_screen(app, rows_screen)
        await until(pilot, lambda: len(rows_screen.query(Styled)) == ROWS, "the rows mounted")
        if theme:
            app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        if unscoped:
            await app.screen.mount(Recoloured("recoloured"))
        await pilot.pause(0.1)
        before = rows_screen.restyles
        await app.push_screen("rows")
        await until(pilot, lambda: "row 0" in "".join(_shown(app)), "the rows shown")
        await pilot.pause(0.1)
        return _shown_styled(app), rows_screen.restyles - before


async def test_a_screen_shown_the_first_time_shows_what_textual_shows_without_a_restyle() -> None:
    """Its nodes were styled as they were mounted, and nothing they come from changed since."""
    stock_shown, stock_restyles = await first_showing(engine=False)
    shown, restyles = await first_showing(engine=True)
    assert shown == stock_shown
    assert "row 5" in "".join(text for row in shown for text, _ in row)
    assert stock_restyles >= 1  # Textual's own: every node styled again
    assert restyles == 0


async def test_a_theme_changed_before_a_screen_is_first_shown_restyles_as_textual_does() -> None:
    stock_shown, _ = await first_showing(engine=False, theme=True)
    shown, restyles = await first_showing(engine=True, theme=True)
    plain_shown, _ = await first_showing(engine=True)
    assert shown == stock_shown
    assert shown != plain_shown  # (the theme shows in the rows' colours)
    assert restyles >= 1


async def test_unscoped_css_added_before_a_screen_is_first_shown_restyles_as_textual_does() -> None:
    stock_shown, _ = await first_showing(engine=False, unscoped=True)
    shown, restyles = await first_showing(engine=True, unscoped=True)
    plain_shown, _ = await first_showing(engine=True)
    assert shown == stock_shown
    assert shown != plain_shown  # (the rows are red)
    assert restyles >= 1


async def first_switch(
    engine: bool, *, theme: bool = False
) -> tuple[list[list[tuple[str, str]]], int]:
    """A mode switched to for the first time (the theme changed just before): what it shows
    and how many times the app's CSS was refreshed for it."""
    refreshes: list[str] = []

    class Switching(App[None]):
        MODES = {"rows": EngineStyled if engine else StockStyled, "other": Other}

        def refresh_css(self, animate: bool = True) -> None:
            refreshes.append("css")
            super().refresh_css(animate)

    app = Switching()
    async with app.run_test(size=(30, 10)) as pilot:
        await app.switch_mode("other")
        await pilot.pause(0.1)
        if theme:
            app.theme = "textual-light" if app.theme != "textual-light" else "nord"
        before = len(refreshes)
        await app.switch_mode("rows")
        await until(pilot, lambda: "row 0" in "".join(_shown(app)), "the rows shown")
        await pilot.pause(0.1)
        return _shown_styled(app), len(refreshes) - before


async def test_a_mode_first_switched_to_refreshes_no_css_when_nothing_changed() -> None:
    """Textual refreshed the app's CSS twice (every source parsed, every node styled again) for
    a new mode's screen, whose nodes were styled from the CSS as it is."""
    stock_shown, stock_refreshes = await first_switch(engine=False)
    shown, refreshes = await first_switch(engine=True)
    assert shown == stock_shown
    assert "row 5" in "".join(text for row in shown for text, _ in row)
    assert stock_refreshes == 2  # Textual's own
    assert refreshes == 0


async def test_a_mode_first_switched_to_after_a_theme_change_shows_it_as_textual_does() -> None:
    stock_shown, _ = await first_switch(engine=False, theme=True)
    shown, refreshes = await first_switch(engine=True, theme=True)
    plain_shown, _ = await first_switch(engine=True)
    assert shown == stock_shown
    assert shown != plain_shown  # (the theme shows in the rows' colours)
    assert refreshes >= 1  # (the theme's own refresh)


async def test_the_main_screen_is_not_restyled_as_it_is_first_shown(tmp_path: Path) -> None:
    """At start-up the main screen's nodes are styled as they are mounted; Textual styled them all
    again as `switch_mode` resumed the screen, twice (80 of the ~145 stylings to "ready")."""
    restyled: list[str] = []
    styles = MainScreen.update_node_styles

    def counting(screen: MainScreen, animate: bool = True) -> None:
        restyled.append("screen")
        styles(screen, animate)

    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(MainScreen, "update_node_styles", counting)
        async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
            assert h.session.state is SessionState.READY
            assert isinstance(h.app.screen, MainScreen)
            assert restyled == []


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


async def test_the_app_switches_to_its_first_screen_without_holding_frames(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Textual's own batch holds the frames while the app's `on_mount` runs, and it awaits the
    first screen's mount: the 50 ms `switch_mode` adds held back the first frame."""
    held: list[float] = []
    delay_update = App.delay_update

    def recording(app: App[Any], delay: float = 0.05) -> None:
        held.append(delay)
        delay_update(app, delay)

    monkeypatch.setattr(App, "delay_update", recording)
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok()])
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        assert h.session.state is SessionState.READY
        assert isinstance(h.app.screen, MainScreen)
    assert held == []


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
    """A widget's text changed and repainted with `repaint_soon` on a stock screen (where it is
    `refresh`) or the engine's: the `Update` messages the screen got, the rows the frame
    rendered, and what the screen shows."""
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
        repaint_soon(row, Region(0, 0, row.size.width, 1))  # (`refresh` on a stock screen)
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


# ------------------------------------------------------------------------------- keys first
# Not a change to Textual: a widget's own `on_key`/`on_paste` runs before the handlers of the
# Textual class it extends, and `prevent_default` keeps those from running (Textual's
# documented order), so the prompt and the form fields see each key first without the engine.


def _typed_at_once(app: App[Any], *keys: tuple[str, str | None]) -> None:
    """The keys queued to the app together, as a fast typist's reach it (not one per idle)."""
    for key, character in keys:
        app.post_message(events.Key(key, character))


async def prompt_typed(stock: bool) -> tuple[str, list[str]]:
    """`a`, `b`, enter, `c` typed at once into a stock `TextArea` or the `PromptInput`: the text
    left and the prompts sent."""
    sent: list[str] = []

    class Typing(App[None]):
        def compose(self) -> ComposeResult:
            yield TextArea() if stock else PromptInput()

        def on_prompt_input_submitted(self, message: PromptInput.Submitted) -> None:
            sent.append(message.text)

    app = Typing()
    async with app.run_test() as pilot:
        area = app.query_one(TextArea)
        area.focus()
        await pilot.pause()
        _typed_at_once(app, ("a", "a"), ("b", "b"), ("enter", None), ("c", "c"))
        await until(pilot, lambda: area.text.endswith("c"), "the keys typed")
        app.post_message(events.Paste("one\r\ntwo"))
        await until(pilot, lambda: "two" in area.text, "the paste")
        return area.text, sent


async def test_the_prompt_sees_each_key_before_the_text_area() -> None:
    """The documented difference: Enter sends what was typed before it (inserting no line), and
    the paste is one edit with its line endings made `\\n`; every other key as Textual types it."""
    stock_text, stock_sent = await prompt_typed(stock=True)
    text, sent = await prompt_typed(stock=False)
    assert (stock_text, stock_sent) == ("ab\ncone\ntwo", [])
    assert (text, sent) == ("cone\ntwo", ["ab"])


async def form_typed(stock: bool) -> list[str]:
    """`x`, enter, `y` typed at once into a stock `Input` or a `FormInput`: the values sent."""
    sent: list[str] = []

    class Form(App[None]):
        def compose(self) -> ComposeResult:
            yield Input() if stock else FormInput()

        def on_input_submitted(self, message: Input.Submitted) -> None:
            sent.append(message.value)

    app = Form()
    async with app.run_test() as pilot:
        field = app.query_one(Input)
        field.focus()
        await pilot.pause()
        _typed_at_once(app, ("x", "x"), ("enter", None), ("y", "y"))
        await until(pilot, lambda: bool(sent) and field.value == "xy", "the keys typed")
        return sent


async def test_a_form_field_sends_its_value_with_the_enter_key() -> None:
    """Textual's enter is a binding, run once the key bubbled to the app: the `y` typed after it
    is in the value by then. The form field sends the value as it was at the enter."""
    assert await form_typed(stock=True) == ["xy"]
    assert await form_typed(stock=False) == ["x"]


# --------------------------------------------------------------------------- quick scrollbar


class AskingScroll(VerticalScroll):
    """A scroll that asks for the quick bar (a stock app ignores it), its bar's gutter stable
    (the conversation's) or not."""

    QUICK_SCROLLBAR = True

    def compose(self) -> ComposeResult:
        yield Static("\n".join(f"line {index}" for index in range(200)))


@dataclass
class Scrolled:
    frames: list[list[list[Segment]]]
    """The whole screen at each position, each line's segments (text and style)."""
    styled_rows: int
    """Rows of the bar drawn through Textual's styles cache (a Rich render per pass)."""
    painted_lines: int
    """Lines the quick bar painted itself."""
    quick: bool


async def scroll_through(engine: bool, gutter: str, monkeypatch: pytest.MonkeyPatch) -> Scrolled:
    """Page down through 200 lines and back up with the keys, in a stock app or the engine's: what
    each position shows and the bar's lines drawn."""
    from textual._styles_cache import StylesCache

    from acp_tui.ui.markdown import screen_lines
    from acp_tui.ui.textual_internals import quick_scrollbar

    scrolled = Scrolled([], 0, 0, quick=False)
    render_widget = StylesCache.render_widget
    render_line = StylesCache.render_line
    rendering: list[Widget] = []

    def counting_widget(cache: StylesCache, widget: Widget, crop: Region) -> list[Strip]:
        rendering.append(widget)
        try:
            return render_widget(cache, widget, crop)
        finally:
            rendering.pop()

    def counting_line(cache: StylesCache, *args: Any, **kwargs: Any) -> Any:
        if rendering and isinstance(rendering[-1], ScrollBar):
            scrolled.styled_rows += 1
        return render_line(cache, *args, **kwargs)

    paint = screen_lines.paint  # (what the quick bar paints its lines with)

    def counting_paint(*args: Any) -> Strip:
        scrolled.painted_lines += 1
        return paint(*args)

    monkeypatch.setattr(StylesCache, "render_widget", counting_widget)
    monkeypatch.setattr(StylesCache, "render_line", counting_line)
    monkeypatch.setattr(quick_scrollbar, "paint", counting_paint)
    try:
        return await _scroll_through(engine, gutter, scrolled)
    finally:
        monkeypatch.undo()


async def _scroll_through(engine: bool, gutter: str, scrolled: Scrolled) -> Scrolled:
    class Scrolling((EngineApp if engine else App)[None]):  # type: ignore[misc]
        CSS = f"AskingScroll {{ scrollbar-gutter: {gutter}; }}"

        def compose(self) -> ComposeResult:
            yield AskingScroll()

    app = Scrolling()
    app.animation_level = "none"  # (a page down in one step: one position, one frame)
    async with app.run_test(size=(30, 12)) as pilot:
        scroll = app.query_one(AskingScroll)
        scroll.focus()
        await until(pilot, lambda: scroll.vertical_scrollbar.size.height == 12, "the bar")
        scrolled.quick = isinstance(scroll.vertical_scrollbar, QuickScrollBar)
        for key in ["pagedown"] * 6 + ["end", "pageup", "home"]:
            await pilot.press(key)
            await until(pilot, lambda: not scroll.is_scrolling, "scrolled")
            await pilot.pause()
            strips = app.screen._compositor.render_strips()
            scrolled.frames.append([list(strip) for strip in strips])
    return scrolled


@pytest.mark.parametrize("gutter", ["stable", "auto"])
async def test_the_quick_scrollbar_shows_what_textual_shows_painting_a_few_lines(
    gutter: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stock = await scroll_through(False, gutter, monkeypatch)
    ours = await scroll_through(True, gutter, monkeypatch)
    assert (stock.quick, ours.quick) == (False, True)
    assert ours.frames == stock.frames
    assert len({str(frame) for frame in ours.frames}) == 9  # (each position a new screen)
    positions = len(ours.frames)
    assert stock.styled_rows >= positions * 12  # Textual's own: every row of the bar, each time
    assert ours.styled_rows == 0
    assert 0 < ours.painted_lines <= positions * 4  # above, thumb's ends, below: its few lines


# ------------------------------------------------------------------------------- wrap layout

OPTIONS = ("Allow (a)", "Always allow edits (A)", "Reject (r)", "Always reject (R)")


async def buttons_shown(wrap: bool, width: int) -> tuple[list[list[Segment]], list[str]]:
    """A permission card's buttons in a `WrapRow` or a stock `Horizontal`, `width` columns wide:
    the screen's lines (segments, and text)."""

    class Row(App[None]):
        CSS = "Button { margin-right: 1; min-width: 12; } Horizontal { height: auto; }"

        def compose(self) -> ComposeResult:
            with WrapRow() if wrap else Horizontal():
                for label in OPTIONS:
                    yield Button(label)
            yield Static("below")

    app = Row()
    async with app.run_test(size=(width, 10)) as pilot:
        await until(pilot, lambda: any("below" in line for line in _shown(app)), "the row")
        await pilot.pause()
        strips = app.screen._compositor.render_strips()
        return [list(strip) for strip in strips], [strip.text for strip in strips]


async def test_a_wrap_row_that_fits_shows_what_a_horizontal_row_shows() -> None:
    stock, _ = await buttons_shown(wrap=False, width=100)
    ours, text = await buttons_shown(wrap=True, width=100)
    assert ours == stock
    assert "Always reject (R)" in text[1]


async def test_a_wrap_row_too_wide_goes_on_below_where_a_horizontal_row_is_clipped() -> None:
    """The documented difference: at 50 columns Textual's row runs off the edge (the last button
    is not on the screen); the wrap row puts the buttons that do not fit on the next line."""
    _, stock = await buttons_shown(wrap=False, width=50)
    _, ours = await buttons_shown(wrap=True, width=50)
    assert "Always reject" not in "".join(stock)
    fit = len(" Allow (a)    Always allow edits (A) ")  # the buttons that fit, as Textual's row
    assert [line[:fit] for line in ours[:3]] == [line[:fit] for line in stock[:3]]
    assert "Reject (r)" not in ours[1]
    assert "Reject (r)" in ours[4] and "Always reject (R)" in ours[4]
    assert "below" in ours[6]


# ------------------------------------------------------------------- a row that leaves keys out

KEYS = ("f1 help", "f6 model", "f2 changes", "^q quit", "^t new session")


class KeysRow(Widget):
    """A row laid out by `FitRowLayout`: the middle keys give way first, last to first."""

    DEFAULT_CSS = "KeysRow { height: 1; } KeysRow > Static { width: auto; margin-right: 1; }"

    def __init__(self) -> None:
        super().__init__()
        self._fit = FitRowLayout(self)
        self.out: list[list[str]] = []

    @property
    def layout(self) -> Layout:
        return self._fit

    def give_way_order(self, children: list[Widget]) -> list[Widget]:
        return list(reversed(children[1:-1]))

    def left_out(self, children: list[Widget]) -> bool:
        self.out.append([str(child.render()) for child in children])
        return False


async def keys_shown(fit: bool, width: int) -> tuple[list[str], list[list[str]]]:
    """The keys in a `KeysRow` or a stock `Horizontal`, `width` columns wide: the screen's
    lines, and what the fitting row was told it left out."""

    class Row(App[None]):
        CSS = "Horizontal { height: 1; } Horizontal > Static { width: auto; margin-right: 1; }"

        def compose(self) -> ComposeResult:
            row = KeysRow() if fit else Horizontal()
            with row:
                for key in KEYS:
                    yield Static(key)
            yield Static("below")

    app = Row()
    async with app.run_test(size=(width, 4)) as pilot:
        await until(pilot, lambda: any("below" in line for line in _shown(app)), "the row")
        await pilot.pause()
        out = app.query(KeysRow).first().out if fit else []
        return _shown(app), out


async def test_a_fit_row_that_fits_shows_what_a_horizontal_row_shows() -> None:
    stock, _ = await keys_shown(fit=False, width=80)
    ours, out = await keys_shown(fit=True, width=80)
    assert ours == stock
    assert out[-1] == []


async def test_a_fit_row_too_wide_leaves_keys_out_whole_where_a_horizontal_row_cuts_one() -> None:
    """The documented difference: at 40 columns Textual's row cuts "^t new session" at the
    edge; the fitting row leaves out whole the keys its container names first (here "^q
    quit", then "f2 changes": then the rest fits) and keeps the last key whole."""
    stock, _ = await keys_shown(fit=False, width=40)
    ours, out = await keys_shown(fit=True, width=40)
    assert stock[0] == "f1 help f6 model f2 changes ^q quit ^t n"  # (cut at the edge)
    assert ours[0].rstrip() == "f1 help f6 model ^t new session"
    assert out[-1] == ["^q quit", "f2 changes"]
    assert ours[1:] == stock[1:]
