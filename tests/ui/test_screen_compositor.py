"""RowCompositor: a partial update renders only the rows each widget shows in it, and paints
what Textual's own compositor paints."""

from __future__ import annotations

from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.screen_compositor import RowCompositor
from tests.ui.test_markdown_stream import wait_until


class CountingStatic(Static):
    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(text, id=id)
        self.rendered_rows = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        self.rendered_rows += crop.height
        return super().render_lines(crop)


class Streaming(Screen[None]):
    CSS = "#side { width: 20; height: 1fr; } #head { height: 3; }"

    def __init__(self, rows: bool) -> None:
        super().__init__()
        if rows:
            self._compositor = RowCompositor()

    def compose(self) -> ComposeResult:
        yield CountingStatic("a header line", id="head")
        with Horizontal():
            with VerticalScroll():
                yield StreamingMarkdown(id="md")
            yield CountingStatic("side\n" * 30, id="side")


class StreamingApp(App[None]):
    def __init__(self, rows: bool) -> None:
        super().__init__()
        self.rows = rows

    def on_mount(self) -> None:
        self.push_screen(Streaming(self.rows))


async def stream(rows: bool) -> tuple[list[str], int]:
    app = StreamingApp(rows)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, Streaming))
        md = app.screen.query_one("#md", StreamingMarkdown)
        md.append("one two three\n\nfour")
        await wait_until(pilot, lambda: "four" in md.rendered_text)
        side = app.screen.query_one("#side", CountingStatic)
        head = app.screen.query_one("#head", CountingStatic)
        settled = -1  # until the layouts after the growth have painted (nothing renders)
        while settled != side.rendered_rows + head.rendered_rows:
            settled = side.rendered_rows + head.rendered_rows
            await pilot.pause(0.05)
        side.rendered_rows = head.rendered_rows = 0
        for word in ["five", "six", "seven", "eight"]:  # same height: partial updates
            md.append(f" {word}")
            await wait_until(pilot, lambda word=word: word in md.rendered_text)  # type: ignore[misc]
            await pilot.pause()
        others = side.rendered_rows + head.rendered_rows
        compositor = app.screen._compositor
        assert isinstance(compositor, RowCompositor) == rows
        return [strip.text for strip in Compositor.render_strips(compositor)], others


async def test_a_streamed_line_renders_no_row_of_widgets_beside_or_above_it() -> None:
    shown, others = await stream(rows=True)
    assert others == 0
    assert any("four five six seven eight" in line for line in shown)


async def test_the_screen_shows_what_textuals_compositor_shows() -> None:
    rows, _ = await stream(rows=True)
    textual, others = await stream(rows=False)
    assert others > 0  # Textual's own compositor renders the side and the header each frame
    assert rows == textual
