"""The inspector's screen is built in the background after start-up, never drawn, and opening
it then is a screen switch; the main screen's footer is not rebuilt while it is covered; the
inspector's key line."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.screen import ModalScreen, Screen
from textual.widgets import Footer, Input, Label

from acp_tui.client.events import SessionState
from acp_tui.ui import app as app_module
from acp_tui.ui.app import AcpApp
from acp_tui.ui.inspector.frame_list import FrameList
from acp_tui.ui.inspector.key_bar import KeyBar
from acp_tui.ui.inspector.screen import InspectorScreen
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.screen_footer import ScreenFooter
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario
from tests.ui.app_harness import fixed_cwd, run_app
from tests.ui.headless_app import headless_app, until
from tests.ui.inspector_support import InspectorApp, frame, sample_store

SIZE = (120, 40)


def inspector(app: AcpApp) -> InspectorScreen:
    screen = app.get_screen("inspector")
    assert isinstance(screen, InspectorScreen)
    return screen


async def test_start_up_builds_it_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "INSPECTOR_PREPARE_DELAY", 0.05)
    async with headless_app(SIZE) as (app, pilot):
        await until(pilot, lambda: app.is_screen_installed("inspector"), "the background build")
        built = inspector(app)
        await until(pilot, lambda: built.query(FrameList), "the inspector mounted")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and app.screen.query_one(PromptInput).has_focus


async def test_built_in_the_background_then_opened_as_is_with_the_frames_since(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(app_module, "INSPECTOR_PREPARE_DELAY", 60)  # built below, by hand
    async with headless_app(SIZE) as (app, pilot):
        prompt = app.screen.query_one(PromptInput)
        footer = app.screen.query_one(Footer)
        await until(pilot, lambda: footer.children, "the footer's keys")
        await pilot.pause()
        keys = list(footer.children)
        app.prepare_inspector()
        built = inspector(app)
        await until(pilot, lambda: built.query(FrameList), "the inspector mounted")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen) and prompt.has_focus  # nothing changed
        assert list(footer.children) == keys  # not even the footer: main saw no event
        assert not built.polling  # hidden: nothing polled
        store = app.session.traffic_store
        store.record(frame("out", 5.0, {"id": 0, "method": "initialize", "params": {}}))
        store.record(frame("in", 5.5, {"id": 0, "result": {"protocolVersion": 1}}))
        await pilot.press("f12")
        assert app.screen_stack[-1] is built
        listed = built.query_one(FrameList)
        await until(pilot, lambda: len(listed.index) == 2, "the frames recorded while hidden")
        assert listed.selected_frame is not None and listed.selected_frame.index == 1
        assert built.polling
        await pilot.press("f12")
        assert isinstance(app.screen, MainScreen) and app.screen.query_one(PromptInput).has_focus
        assert not built.polling


class Dialog(ModalScreen[None]):
    def compose(self) -> Any:
        yield Input(id="answer")


async def test_built_under_a_dialog_the_screens_on_the_stack_see_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(app_module, "INSPECTOR_PREPARE_DELAY", 60)  # built below, by hand
    async with headless_app(SIZE) as (app, pilot):
        footer = app.screen.query_one(Footer)
        await until(pilot, lambda: footer.children, "the footer's keys")
        dialog = Dialog()
        await app.push_screen(dialog)
        await pilot.pause()
        answer = dialog.query_one(Input)
        assert answer.has_focus
        keys = list(footer.children)
        stack = app.screen_stack
        app.prepare_inspector()  # as the start-up timer does
        built = inspector(app)
        await until(pilot, lambda: built.query(FrameList), "the inspector mounted")
        await pilot.pause()
        assert app.screen_stack == stack and answer.has_focus
        assert list(footer.children) == keys  # main was not suspended/resumed either
        await pilot.press("x")
        assert answer.value == "x"  # keys still go to the dialog


def key_displays(footer: Footer) -> list[str]:
    return [str(getattr(key, "key_display", "")) for key in footer.query("FooterKey")]


class Cover(Screen[None]):
    def compose(self) -> Any:
        yield Label("covering")


async def test_main_footer_is_not_rebuilt_while_covered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(app_module, "INSPECTOR_PREPARE_DELAY", 60)  # no push of its own
    async with headless_app(SIZE) as (app, pilot):
        main = app.screen
        footer = main.query_one(Footer)
        assert isinstance(footer, ScreenFooter)
        await until(pilot, lambda: footer.children, "the footer's keys")
        await pilot.pause()
        keys = list(footer.children)
        await app.push_screen(Cover())
        app.set_keymap({"main.changes": "f9"})  # a key the footer shows changes meanwhile
        await pilot.pause()
        await pilot.pause()
        assert list(footer.children) == keys  # the same widgets: not recomposed
        app.pop_screen()
        await until(pilot, lambda: "f9" in key_displays(footer), "the footer rebuilt on return")
        assert "f2" not in key_displays(footer)


async def test_main_footer_under_a_see_through_dialog_is_rebuilt_when_its_keys_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(app_module, "INSPECTOR_PREPARE_DELAY", 60)  # no push of its own
    async with headless_app(SIZE) as (app, pilot):
        main = app.screen
        footer = main.query_one(Footer)
        await until(pilot, lambda: footer.children, "the footer's keys")
        await pilot.pause()
        keys = list(footer.children)
        await app.push_screen(Dialog())
        await pilot.pause()
        assert list(footer.children) == keys  # nothing of its keys changed
        app.set_keymap({"main.changes": "ctrl+n"})
        main.refresh_bindings()
        await until(pilot, lambda: list(footer.children) != keys, "the footer rebuilt")
        assert "^n" in {str(getattr(key, "key_display", "")) for key in footer.query("FooterKey")}


async def test_key_bar_lists_the_screen_keys_and_a_press_on_one_presses_it() -> None:
    app = InspectorApp(sample_store())
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        bar = screen.query_one(KeyBar)
        text = bar.render().plain
        assert "esc close" in text and "d direction" in text and "y copy" in text
        assert text.rstrip().endswith("palette")
        start = next(start for _line, start, _end, key in bar._spans if key == "d")
        await pilot.click(KeyBar, offset=(start + 1, 0))
        await until(pilot, lambda: screen.row_filter.direction == "in", "direction: received")


async def test_it_is_built_once_the_session_is_open_not_while_it_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Timed from the app's mount, it was built before "ready" whenever the agent took longer
    than the delay (a loaded machine, a slow agent), on the way of the frame that says it."""
    monkeypatch.setattr(app_module, "INSPECTOR_PREPARE_DELAY", 0.01)
    states: list[SessionState] = []
    prepare = AcpApp.prepare_inspector

    def recording(app: AcpApp) -> None:
        states.append(app.session.state)
        prepare(app)

    monkeypatch.setattr(AcpApp, "prepare_inspector", recording)
    cwd = fixed_cwd(tmp_path)
    agent = write_scenario(tmp_path, [initialize_ok(), {"wait_file": "go"}, new_session_ok()])
    async with run_app(agent.argv, cwd, wait_ready=False) as h:
        await h.until(lambda: h.sent_methods("session/new"), "the session asked for")
        await h.pilot.pause()
        assert h.session.state is SessionState.STARTING
        assert states == []
        (cwd / "go").write_text("")
        await h.ready()
        await h.until(lambda: h.app.is_screen_installed("inspector"), "the background build")
        assert states == [SessionState.READY]


async def test_key_bar_at_80_columns_wraps_its_keys_instead_of_losing_them() -> None:
    """At 80 columns the keys take two lines: copy and summary still show, and a press on
    a key of the second line presses it."""
    app = InspectorApp(sample_store())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        bar = screen.query_one(KeyBar)
        lines = bar.render().plain.split("\n")
        assert bar.size.height == len(lines) == 2
        assert all(len(line) <= 80 for line in lines)
        shown = " ".join(lines)
        for words in ("esc close", "p pair", "y copy", "s summary", "palette"):
            assert words in shown
        summary = screen.query_one("#summary")
        was = summary.display
        line, start = next((line, start) for line, start, _end, key in bar._spans if key == "s")
        assert line == 1
        await pilot.click(KeyBar, offset=(start + 1, line))
        await until(pilot, lambda: summary.display != was, "the summary toggled")
