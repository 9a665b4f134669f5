"""RowCompositor (an `EngineScreen`'s compositor): a partial update renders only the rows each
widget shows in it, and paints what Textual's own compositor paints."""

from __future__ import annotations

import itertools
import random
import re

from hypothesis import given
from hypothesis import strategies as st
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Static

from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.textual_internals.engine import EngineScreen
from acp_tui.ui.textual_internals.row_compositor import RowCompositor, Spans, add_span, covers
from tests.ui.quiet import until_quiet
from tests.ui.test_markdown_stream import wait_until


class CountingStatic(Static):
    def __init__(self, text: str, *, id: str) -> None:
        super().__init__(text, id=id)
        self.rendered_rows = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        self.rendered_rows += crop.height
        return super().render_lines(crop)


class CountingScroll(VerticalScroll):
    def __init__(self) -> None:
        super().__init__(id="scroll")
        self.rendered_rows = 0

    def render_lines(self, crop: Region) -> list[Strip]:
        self.rendered_rows += crop.height
        return super().render_lines(crop)


class Streaming(Screen[None]):
    """A streamed message beside and below other widgets, on a stock screen."""

    CSS = "#side { width: 20; height: 1fr; } #head { height: 3; }"

    def compose(self) -> ComposeResult:
        yield CountingStatic("a header line", id="head")
        with Horizontal():
            with CountingScroll():
                yield StreamingMarkdown(id="md")
            yield CountingStatic("side\n" * 30, id="side")


class EngineStreaming(EngineScreen):
    """The same widgets on an engine screen (its compositor a `RowCompositor`)."""

    CSS = Streaming.CSS
    compose = Streaming.compose


class StreamingApp(App[None]):
    def __init__(self, rows: bool) -> None:
        super().__init__()
        self.rows = rows

    def on_mount(self) -> None:
        self.push_screen(EngineStreaming() if self.rows else Streaming())


async def stream(rows: bool) -> tuple[list[str], int, int]:
    app = StreamingApp(rows)
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, (Streaming, EngineStreaming)))
        md = app.screen.query_one("#md", StreamingMarkdown)
        md.append("one two three\n\nfour")
        await wait_until(pilot, lambda: "four" in md.rendered_text)
        side = app.screen.query_one("#side", CountingStatic)
        head = app.screen.query_one("#head", CountingStatic)
        scroll = app.screen.query_one(CountingScroll)
        await until_quiet(pilot)  # the layouts after the growth painted
        side.rendered_rows = head.rendered_rows = scroll.rendered_rows = 0
        for word in ["five", "six", "seven", "eight"]:  # same height: partial updates
            md.append(f" {word}")
            await wait_until(pilot, lambda word=word: word in md.rendered_text)  # type: ignore[misc]
            await pilot.pause()
        others = side.rendered_rows + head.rendered_rows
        compositor = app.screen._compositor
        assert isinstance(compositor, RowCompositor) == rows
        behind = scroll.rendered_rows
        shown = [strip.text for strip in Compositor.render_strips(compositor)]  # renders all
        return shown, others, behind


async def test_a_streamed_line_renders_no_row_of_widgets_beside_above_or_behind_it() -> None:
    shown, others, behind = await stream(rows=True)
    assert others == 0
    assert behind == 0  # the scroll container's rows are covered by the streamed lines
    assert any("four five six seven eight" in line for line in shown)


async def test_the_screen_shows_what_textuals_compositor_shows() -> None:
    rows, _, _ = await stream(rows=True)
    textual, others, behind = await stream(rows=False)
    assert others > 0  # Textual's own compositor renders the side and the header each frame
    assert behind > 0  # and the container behind the streamed lines
    assert rows == textual


MOVE_TO_NOTHING = re.compile(r"\x1b\[\d+;\d+H(?=\x1b\[\d+;\d+H|\r?\n|$)")


class Back(CountingStatic):
    DEFAULT_CSS = "Back { layer: below; width: 1fr; height: 1fr; }"


class Front(Static):
    DEFAULT_CSS = "Front { layer: above; width: 10; height: 2; offset: 5 1; }"


class Layered(Screen[None]):
    CSS = "Layered { layers: below above; }"

    def __init__(self, rows: bool) -> None:
        super().__init__()
        if rows:
            self._compositor = RowCompositor()

    def compose(self) -> ComposeResult:
        yield Back("back " * 200, id="back")
        yield Front("front", id="front")


class LayeredApp(App[None]):
    def __init__(self, rows: bool) -> None:
        super().__init__()
        self.rows = rows

    def on_mount(self) -> None:
        self.push_screen(Layered(self.rows))


async def partial_update(rows: bool, region: Region) -> tuple[str, int]:
    """What a partial update of `region` writes to the terminal, and how many rows the widget
    behind rendered for it."""
    app = LayeredApp(rows)
    async with app.run_test(size=(30, 6)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, Layered))
        front = app.screen.query_one(Front)
        await wait_until(pilot, lambda: front in app.screen._compositor.visible_widgets)
        back = app.screen.query_one(Back)
        back.rendered_rows = 0
        app.screen._compositor._dirty_regions.add(region)
        update = app.screen._compositor.render_partial_update()
        assert update is not None
        # a cursor move with nothing written after it changes nothing on the screen (Textual
        # moves to a chop of the widget behind that starts where the update ends)
        written = MOVE_TO_NOTHING.sub("", update.render_segments(app.console))
        return written, back.rendered_rows


async def test_a_widget_in_front_hides_only_the_columns_it_covers() -> None:
    # the update spans the front widget exactly: the back is not asked for those rows
    covered = Region(5, 1, 10, 2)
    written, behind = await partial_update(True, covered)
    assert behind == 0
    assert "front" in written
    assert written == (await partial_update(False, covered))[0]
    # wider than the front widget: the back paints the columns beside it
    wider = Region(3, 1, 14, 2)
    written, behind = await partial_update(True, wider)
    assert behind == 2
    assert written == (await partial_update(False, wider))[0]


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=8), st.data())
def test_spans_hold_exactly_the_columns_added(
    added: list[tuple[int, int]], data: st.DataObject
) -> None:
    spans: Spans = []
    columns: set[int] = set()
    for x1, x2 in added:
        add_span(spans, x1, x2)
        columns.update(range(x1, x2))
    assert all(a < b for a, b in spans)
    assert all(first[1] < second[0] for first, second in itertools.pairwise(spans))
    assert {x for a, b in spans for x in range(a, b)} == columns
    x1 = data.draw(st.integers(0, 30))
    x2 = data.draw(st.integers(x1 + 1, 31))
    assert covers(spans, x1, x2) == columns.issuperset(range(x1, x2))


class Stacked(Screen[None]):
    """Widgets over widgets: a scrolled column of blocks with margins, beside a panel."""

    CSS = """
    #column { width: 2fr; }
    #column CountingStatic { margin: 0 0 1 0; height: auto; }
    #panel { width: 1fr; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._compositor = RowCompositor()

    def compose(self) -> ComposeResult:
        yield CountingStatic("title", id="title")
        with Horizontal():
            with VerticalScroll(id="column"):
                for index in range(8):
                    yield CountingStatic(f"block {index}\n" * (index % 3 + 1), id=f"b{index}")
            yield CountingStatic("panel\n" * 20, id="panel")


class StackedApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(Stacked())


async def test_any_partial_update_writes_what_textuals_compositor_writes() -> None:
    rng = random.Random(7)
    app = StackedApp()
    async with app.run_test(size=(50, 16)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, Stacked))
        compositor = app.screen._compositor
        assert isinstance(compositor, RowCompositor)
        block = app.screen.query_one("#b3")
        await wait_until(pilot, lambda: block in compositor.visible_widgets)
        skipped = compositor.skipped
        for _ in range(60):
            regions = []
            for _ in range(rng.randint(1, 3)):
                x, y = rng.randrange(50), rng.randrange(16)
                regions.append(Region(x, y, rng.randint(1, 50 - x), rng.randint(1, 16 - y)))
            written = []
            classes: tuple[type[Compositor], ...] = (RowCompositor, Compositor)
            for cls in classes:
                compositor.__class__ = cls  # type: ignore[assignment]
                compositor._dirty_regions.update(regions)
                update = compositor.render_partial_update()
                assert update is not None
                written.append(MOVE_TO_NOTHING.sub("", update.render_segments(app.console)))
            compositor.__class__ = RowCompositor
            assert written[0] == written[1]
        assert compositor.skipped > skipped  # the test covers the skipping
