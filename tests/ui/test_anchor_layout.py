"""AnchorAtNewHeight (an `EngineScreen` step): a layout that makes a container anchored to its
bottom shorter or taller paints it at its bottom, not scrolled by the change (Textual anchors
with the container's height of the previous arrangement: the end cut off, or blank rows below
it, until a later layout)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from acp_tui.ui.textual_internals.engine import EngineScreen
from tests.ui.quiet import until_quiet
from tests.ui.test_markdown_stream import wait_until

LINES = 30


class Painting(Screen[None]):
    """Records the screen as composed at each frame painted (after the engine's steps, on an
    engine screen)."""

    frames: list[list[str]]

    def __init__(self) -> None:
        super().__init__()
        self.frames = []

    def compose(self) -> ComposeResult:
        yield Static("header\nheader", id="header")
        with VerticalScroll():
            yield Static("\n".join(f"line {index}" for index in range(1, LINES + 1)))
        yield Static("footer", id="footer")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).anchor()

    def _compositor_refresh(self) -> None:
        super()._compositor_refresh()
        if self is self.app.screen:
            self.frames.append([strip.text.rstrip() for strip in self._compositor.render_strips()])


class Anchored(Painting, EngineScreen):
    pass


class ShowApp(App[None]):
    def __init__(self, screen: Painting) -> None:
        super().__init__()
        self.first = screen

    def on_mount(self) -> None:
        self.push_screen(self.first)


async def frames_after(screen: Painting, header_shown: bool) -> list[list[str]]:
    """The header shown (or hidden) on a settled screen: every frame painted after."""
    app = ShowApp(screen)
    async with app.run_test(size=(30, 12)) as pilot:
        await wait_until(pilot, lambda: app.screen is screen)
        header = screen.query_one("#header")
        header.display = not header_shown
        await until_quiet(pilot)
        scroll = screen.query_one(VerticalScroll)
        await wait_until(pilot, lambda: scroll.scroll_y == scroll.max_scroll_y > 0)
        before = len(screen.frames)
        header.display = header_shown
        await until_quiet(pilot)
        return screen.frames[before:]


def ends_at_its_bottom(frame: list[str]) -> bool:
    """The scroll's last line right above the footer."""
    return frame[frame.index("footer") - 1] == f"line {LINES}"


async def test_a_container_made_shorter_is_painted_at_its_bottom() -> None:
    plain = await frames_after(Painting(), header_shown=True)
    assert plain and not ends_at_its_bottom(plain[0])  # Textual's own: the end cut off
    anchored = await frames_after(Anchored(), header_shown=True)
    assert anchored and all(ends_at_its_bottom(frame) for frame in anchored)


async def test_a_container_made_taller_is_painted_at_its_bottom() -> None:
    plain = await frames_after(Painting(), header_shown=False)
    assert plain and not ends_at_its_bottom(plain[0])  # Textual's own: blank rows below
    anchored = await frames_after(Anchored(), header_shown=False)
    assert anchored and all(ends_at_its_bottom(frame) for frame in anchored)
