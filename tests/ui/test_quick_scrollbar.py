"""The conversation's scrollbar paints its own lines: the lines Textual paints for any position,
crop and mouse state, and a repaint at a new position paints the bar's few distinct lines, not
each of its rows through the styles cache."""

from __future__ import annotations

import pytest
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Offset, Region
from textual.scrollbar import ScrollBar
from textual.strip import Strip
from textual.widgets import Static

from acp_tui.ui.markdown import screen_lines
from acp_tui.ui.markdown.screen_lines import Look
from acp_tui.ui.textual_internals import quick_scrollbar
from acp_tui.ui.textual_internals.engine import EngineApp
from acp_tui.ui.textual_internals.quick_scrollbar import QuickScrollBar
from acp_tui.ui.widgets.conversation import ConversationView
from tests.ui.headless_app import headless_app, until


class Scroll(VerticalScroll):
    QUICK_SCROLLBAR = True


class ScrollApp(EngineApp[None]):
    def compose(self) -> ComposeResult:
        with Scroll():
            yield Static("\n".join(f"line {index}" for index in range(200)))


def segments(strips: list[Strip]) -> list[list[object]]:
    return [list(strip) for strip in strips]


async def test_the_bar_paints_what_textual_paints() -> None:
    app = ScrollApp()
    async with app.run_test(size=(40, 20)) as pilot:
        scroll = app.query_one(Scroll)
        bar = scroll.vertical_scrollbar
        assert isinstance(bar, QuickScrollBar)
        await until(pilot, lambda: bar.size.height == 20, "the bar shown")
        width, height = bar.size
        for y in (0, 3, 7, 90, 180):
            scroll.scroll_to(y=y, animate=False, immediate=True)
            await pilot.pause()
            for hover, grabbed in ((False, None), (True, None), (False, Offset(0, 1))):
                bar.mouse_over, bar.grabbed = hover, grabbed
                for crop in (Region(0, 0, width, height), Region(1, 4, 1, 7)):
                    textual = ScrollBar.render_lines(bar, crop)  # Textual's own painting
                    assert segments(bar.render_lines(crop)) == segments(textual), (y, crop)


async def test_a_new_position_paints_a_few_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    app = ScrollApp()
    async with app.run_test(size=(40, 20)) as pilot:
        scroll = app.query_one(Scroll)
        bar = scroll.vertical_scrollbar
        await until(pilot, lambda: bar.size.height == 20, "the bar shown")
        painted: list[Strip] = []
        paint = screen_lines.paint

        def counting(source: Strip, look: Look) -> Strip:
            painted.append(source)
            return paint(source, look)

        monkeypatch.setattr(quick_scrollbar, "paint", counting)
        scroll.scroll_to(y=50, animate=False, immediate=True)
        await pilot.pause()
        lines = bar.render_lines(Region(0, 0, *bar.size))
        assert len(lines) == 20
        assert 0 < len(painted) <= 5  # above, thumb ends, thumb, below: not 20 rows


async def test_the_conversation_has_the_quick_bar() -> None:
    async with headless_app((80, 24)) as (app, _pilot):
        conversation = app.screen.query_one(ConversationView)
        assert isinstance(conversation.vertical_scrollbar, QuickScrollBar)
