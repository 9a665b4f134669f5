"""LayoutOnce (an `EngineScreen` step): a widget that grows costs one layout, not a second one
asked for by the virtual sizes the first one set, and one frame, not a second one repainting what
the layout painted."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Static

from acp_tui.ui.textual_internals.engine import EngineScreen
from tests.ui.quiet import until_quiet
from tests.ui.test_markdown_stream import wait_until


class Plain(Screen[None]):
    layouts = 0
    frames = 0

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        self.layouts += 1
        super()._refresh_layout(size, scroll)

    def _compositor_refresh(self) -> None:
        self.frames += 1
        super()._compositor_refresh()

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("one", id="text")


class Once(Plain, EngineScreen):
    """The same screen through the engine (its counts taken around all of the engine's steps)."""


class GrowApp(App[None]):
    def __init__(self, screen: Screen[None]) -> None:
        super().__init__()
        self.first = screen

    def on_mount(self) -> None:
        self.push_screen(self.first)


async def layouts_for_growth(screen: Plain, lines: int) -> tuple[int, list[str]]:
    app = GrowApp(screen)
    async with app.run_test(size=(30, 8)) as pilot:
        await wait_until(pilot, lambda: app.screen is screen)
        text = screen.query_one("#text", Static)
        await wait_until(pilot, lambda: bool(text.size))
        await until_quiet(pilot)
        before = screen.layouts
        text.update("\n".join(f"line {index}" for index in range(1, lines + 1)))
        await wait_until(pilot, lambda: text.size.height == lines)
        await until_quiet(pilot)  # whatever layout would follow
        layouts = screen.layouts - before
        scroll = screen.query_one(VerticalScroll)
        scroll.scroll_end(animate=False)
        await until_quiet(pilot)
        shown = [strip.text for strip in app.screen._compositor.render_strips()]
        return layouts, shown


async def test_a_growing_widget_costs_one_layout_and_shows_the_same() -> None:
    once, shown_once = await layouts_for_growth(Once(), 5)
    plain, shown_plain = await layouts_for_growth(Plain(), 5)
    assert plain == 2  # Textual's own: the layout, then the one the virtual sizes ask for
    assert once == 1
    assert shown_once == shown_plain
    assert any("line 5" in line for line in shown_once)


async def test_a_scrollbar_that_appears_still_gets_its_layout() -> None:
    once, shown_once = await layouts_for_growth(Once(), 12)
    plain, shown_plain = await layouts_for_growth(Plain(), 12)
    assert once == plain - 1
    assert shown_once == shown_plain
    assert any("line 12" in line for line in shown_once)  # scrolled to the end


async def frames_for_growth(screen: Plain) -> tuple[int, list[str]]:
    """Frames painted for a widget growing inside a scrolled container (as a streamed message
    grows in the conversation): its size, its parent's virtual size and the scrollbar change."""
    app = GrowApp(screen)
    async with app.run_test(size=(30, 8)) as pilot:
        await wait_until(pilot, lambda: app.screen is screen)
        text = screen.query_one("#text", Static)
        text.update("\n".join(f"line {index}" for index in range(1, 13)))
        await wait_until(pilot, lambda: text.size.height == 12)
        await until_quiet(pilot)
        before = screen.frames
        text.update("\n".join(f"line {index}" for index in range(1, 17)))
        await wait_until(pilot, lambda: text.size.height == 16)
        await until_quiet(pilot)  # whatever frame would follow
        frames = screen.frames - before
        shown = [strip.text for strip in app.screen._compositor.render_strips()]
        return frames, shown


async def test_a_layout_paints_once() -> None:
    once, shown_once = await frames_for_growth(Once())
    plain, shown_plain = await frames_for_growth(Plain())
    assert plain == 2  # Textual's own: the layout's frame, then the resized widgets again
    assert once == 1
    assert shown_once == shown_plain


async def test_a_repaint_asked_after_the_layout_still_comes() -> None:
    screen = Once()
    app = GrowApp(screen)
    async with app.run_test(size=(30, 8)) as pilot:
        await wait_until(pilot, lambda: app.screen is screen)
        text = screen.query_one("#text", Static)
        text.update("\n".join(f"line {index}" for index in range(1, 17)))
        await wait_until(pilot, lambda: text.size.height == 16)
        before = screen.frames
        text.update("\n".join(f"changed {index}" for index in range(1, 17)))  # same size
        await wait_until(pilot, lambda: screen.frames > before)  # painted, not dropped
        assert any("changed 1" in strip.text for strip in screen._compositor.render_strips())
