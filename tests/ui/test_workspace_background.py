"""A session in the background costs no timers: its status bar's clock and its prompt's cursor
stop while another tab is shown, and go again when it is shown (the workspace's idle CPU); a tab
shown again is not restyled node by node unless the theme changed (switching to a long
session); nor laid out again, nor its footer rebuilt, unless the terminal's size or its keys
changed; and it is painted at the next frame, not after Textual's 50 ms of no frames. The
conversation's clock (the running cards' elapsed time) runs only while a card's call runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets import conversation_card_clock
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.screen_footer import ScreenFooter
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from bench.turns import complete_tool_call, start_turn
from tests.ui.headless_app import headless_app, until
from tests.ui.workspace_support import open_tab, workspace_app


def ticking(screen: MainScreen) -> tuple[bool, bool]:
    """(the status bar's clock runs, the prompt's cursor blinks) on this screen."""
    status = screen.query_one(StatusBar)
    prompt = screen.query_one(PromptInput)
    # Textual's Timer says whether it runs only in private state
    clock = any(timer._active.is_set() for timer in status._timers)
    return clock, prompt.cursor_blink and prompt.blink_timer._active.is_set()


async def test_a_background_tab_neither_ticks_nor_blinks(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        first_screen = h.app.screen
        assert isinstance(first_screen, MainScreen)
        await h.until(lambda: ticking(first_screen) == (True, True), "the shown tab ticks")
        second = await open_tab(h)
        await h.until(lambda: h.app.current_tab is second, "the second tab shown")
        second_screen = h.app.screen
        assert isinstance(second_screen, MainScreen) and second_screen is not first_screen
        await h.until(lambda: ticking(first_screen) == (False, False), "the first tab stops")
        assert ticking(second_screen) == (True, True)

        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first, "alt+1")
        await h.until(lambda: ticking(first_screen) == (True, True), "the first tab goes again")
        await h.until(lambda: ticking(second_screen) == (False, False), "the second stops")


async def test_a_tab_shown_again_keeps_its_styles(tmp_path: Path) -> None:
    """Switching back does not restyle the whole screen (thousands of nodes on a long session):
    only a change of the app's CSS variables (the theme) does."""
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        first_screen = h.app.screen
        assert isinstance(first_screen, MainScreen)
        await open_tab(h)
        restyled: list[object] = []
        stylesheet = h.app.stylesheet
        update_nodes = stylesheet.update_nodes

        def counting(nodes: Any, animate: bool = False) -> None:
            nodes = list(nodes)
            restyled.extend(nodes)
            update_nodes(nodes, animate=animate)

        stylesheet.update_nodes = counting  # type: ignore[method-assign]
        conversation = first_screen.query_one(ConversationView)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first and h.app.screen is first_screen, "alt+1")
        await h.pilot.pause()
        assert conversation not in restyled, "the conversation was restyled on the switch"

        await h.pilot.press("alt+2")
        await h.until(lambda: h.app.current_tab is not first, "alt+2")
        h.app.theme = "textual-light" if h.app.theme != "textual-light" else "nord"
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is first_screen, "alt+1 again")
        await h.pilot.pause()
        assert conversation in restyled, "a theme changed meanwhile: the screen is restyled"


async def test_a_tab_shown_again_is_not_laid_out_again_nor_its_footer_rebuilt(
    tmp_path: Path,
) -> None:
    """Switching back arranges the screen again only when the terminal's size changed while
    it was hidden; its footer keeps its key widgets (the same keys)."""
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        footer = screen.query_one(ScreenFooter)
        await h.until(lambda: footer.children, "the footer's keys")
        await open_tab(h)
        await h.pilot.press("alt+1")  # (its tab bar shows now: two tabs)
        await h.until(lambda: h.app.screen is screen, "alt+1")
        await h.pilot.press("alt+2")
        await h.until(lambda: h.app.current_tab is not first, "alt+2")
        keys = list(footer.children)
        layouts: list[object] = []
        refresh_layout = screen._refresh_layout

        def counting(size: Any = None, scroll: bool = False) -> None:
            if size is not None:  # the switch's own full arrangement (`_screen_resized`); a
                layouts.append(size)  # widget's own layout request (size None) may come any time
            refresh_layout(size, scroll)

        screen._refresh_layout = counting  # type: ignore[method-assign]
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first and h.app.screen is screen, "alt+1")
        await h.pilot.pause()
        await h.pilot.pause()
        assert layouts == [], "the screen was laid out again on the switch"
        assert list(footer.children) == keys, "the footer was rebuilt with the same keys"

        await h.pilot.press("alt+2")
        await h.until(lambda: h.app.current_tab is not first, "alt+2")
        await h.pilot.resize_terminal(120, 40)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1 again")
        await h.pilot.pause()
        assert layouts, "the terminal's size changed meanwhile: the screen is laid out"
        assert screen.size.width == 120


async def test_a_tab_switched_back_to_is_painted_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`App.switch_mode` holds every frame for 50 ms (`delay_update`) to hide a screen being
    built: a tab whose screen is built is not held (it was most of a switch); a tab shown for
    the first time still is."""
    delays: list[float] = []
    delay_update = App.delay_update

    def recording(app: App[Any], delay: float = 0.05) -> None:
        delays.append(delay)
        delay_update(app, delay)

    monkeypatch.setattr(App, "delay_update", recording)
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        await open_tab(h)
        assert delays, "a new tab's screen is built behind Textual's delay"
        delays.clear()
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.current_tab is first and h.app.screen is screen, "alt+1")
        assert delays == [], "frames were held on a switch to a built screen"
        await h.pilot.press("alt+2")
        await h.until(lambda: h.app.current_tab is not first, "alt+2")
        assert delays == []


def card_clock(conversation: ConversationView) -> bool:
    """Whether the conversation's clock of running cards runs (Textual's `Timer` says so only
    in private state)."""
    clocks = [
        timer for timer in conversation._timers if timer._callback == conversation.card_clock.tick
    ]
    assert len(clocks) == 1, "one clock per conversation"
    return clocks[0]._active.is_set()


async def test_the_cards_clock_runs_only_while_a_call_runs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(conversation_card_clock, "TICK", 0.05)
    async with headless_app((120, 40)) as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        await pilot.pause()
        assert not card_clock(conversation), "the clock ticks with no card running"
        start_turn(app.session, 1)  # a tool call in progress
        await until(pilot, lambda: conversation.query(ToolCallCard), "the running card")
        assert card_clock(conversation), "a card runs: its elapsed time ticks"
        card = conversation.query_one(ToolCallCard)
        await until(pilot, lambda: card.head.is_mounted, "the card's lines")
        await pilot.pause()
        drawn = card.header
        await until(pilot, lambda: card.header != drawn, "the elapsed time to tick")
        complete_tool_call(app.session, 1)
        await until(pilot, lambda: not card_clock(conversation), "the clock to stop")
        start_turn(app.session, 2)
        await until(pilot, lambda: card_clock(conversation), "the clock to go again")
