"""Pilot tests of the StreamingMarkdown widget."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from rich.color import Color
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.geometry import Region
from textual.pilot import Pilot
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.textual_internals import quick_repaint


class StreamApp(App[None]):
    CSS = "#thread { scrollbar-gutter: stable; }"  # the width does not change with the scrollbar

    def __init__(self, count: int = 1) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="thread"):
            for i in range(self.count):
                yield StreamingMarkdown(id=f"md{i}")

    def on_mount(self) -> None:
        self.query_one("#thread", VerticalScroll).anchor()  # follow the end, like a chat view

    @property
    def md(self) -> StreamingMarkdown:
        return self.query_one(f"#md{self.count - 1}", StreamingMarkdown)


async def wait_until(pilot: Pilot[None], condition: Callable[[], bool], within: float = 5) -> None:
    """Let the app run frames until ``condition()`` holds (fails after ``within`` seconds)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not condition():
        assert loop.time() < deadline, "condition not reached"
        await pilot.pause(0.01)


def on_screen(app: App[None], text: str) -> bool:
    """Whether ``text`` is in what the screen's compositor paints now."""
    return any(text in strip.text for strip in app.screen._compositor.render_strips())


def screen_lines(md: StreamingMarkdown) -> list[str]:
    return [md.render_line(y).text.rstrip() for y in range(md.size.height)]


async def test_appended_text_is_shown_including_a_partial_line() -> None:
    app = StreamApp()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        for chunk in ["Hello **wor", "ld**, this is", " streaming"]:
            md.append(chunk)
        await wait_until(pilot, lambda: "Hello world, this is streaming" in md.rendered_text)
        await wait_until(pilot, lambda: md.size.height == 1)
        assert screen_lines(md) == ["Hello world, this is streaming"]
        assert md.source == "Hello **world**, this is streaming"
        bold = [s for s in md.render_line(0) if s.text == "world"]
        assert bold and bold[0].style is not None and bold[0].style.bold


async def test_finish_freezes_and_rejects_more_text() -> None:
    app = StreamApp()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        md.append("# Title\n\nlast paragraph without newline")
        md.finish()
        await wait_until(pilot, lambda: "last paragraph without newline" in md.rendered_text)
        assert md.finished
        document = md._document
        assert document.tail == [] and document.frozen_blocks == 2
        assert md.rendered_text == "Title\n\nlast paragraph without newline"
        passes = md.render_passes
        try:
            md.append("more")
        except RuntimeError:
            pass
        else:
            raise AssertionError("append after finish must fail")
        await pilot.pause()
        assert md.render_passes == passes


async def test_code_fence_is_highlighted_on_a_panel() -> None:
    app = StreamApp()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        source = "```python\ndef answer():\n    return 42\n```\n"
        for i in range(0, len(source), 5):
            md.append(source[i : i + 5])
        await wait_until(pilot, lambda: "return 42" in md.rendered_text and not md.plain_code)
        lines = md.rendered_text.splitlines()
        assert lines[0].strip() == "python"  # the panel's label line
        assert lines[1:3] == [" def answer():", "     return 42"]
        strip = md._document.line(1)
        keyword = next(s for s in strip if s.text == "def")
        name = next(s for s in strip if s.text == "answer")
        assert keyword.style is not None and name.style is not None
        assert keyword.style.color != name.style.color  # really highlighted
        assert keyword.style.bgcolor == Color.parse("#272822")  # panel background


async def test_table_has_borders_and_grows_row_by_row() -> None:
    app = StreamApp()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        md.append("| name | qty |\n|:-----|----:|\n| apple | 3 |\n")
        await wait_until(pilot, lambda: "apple" in md.rendered_text)
        md.append("| kiwi | 12 |\n")
        await wait_until(pilot, lambda: "kiwi" in md.rendered_text)
        assert md.rendered_text.splitlines() == [
            "┌───────┬─────┐",
            "│ name  │ qty │",
            "├───────┼─────┤",
            "│ apple │   3 │",
            "│ kiwi  │  12 │",
            "└───────┴─────┘",
        ]


async def test_refreshes_are_coalesced_per_frame() -> None:
    app = StreamApp()
    async with app.run_test(size=(80, 30)) as pilot:
        md = app.md
        refreshes = 0
        original = md.refresh

        def counting_refresh(*args, **kwargs):
            nonlocal refreshes
            refreshes += 1
            return original(*args, **kwargs)

        md.refresh = counting_refresh  # type: ignore[method-assign]
        text = "word " * 1000
        for i in range(1000):  # 1,000 appends with no frame in between
            md.append(text[i * 5 : i * 5 + 5])
        await wait_until(pilot, lambda: md.rendered_text.count("word") == 1000)
        assert md.render_passes <= 3
        assert refreshes <= 3


async def test_finished_messages_do_no_work_when_another_streams() -> None:
    app = StreamApp(count=30)
    async with app.run_test(size=(80, 30)) as pilot:
        old = list(app.query(StreamingMarkdown))[:-1]
        for md in old:
            md.append("Some *finished* message\n\n- with\n- a list\n")
            md.finish()
        await wait_until(pilot, lambda: all(md.line_count == 4 for md in old))
        passes = [md.render_passes for md in old]
        live = app.md
        for i in range(50):
            live.append(f"chunk {i} ")
            await pilot.pause()
        await wait_until(pilot, lambda: "chunk 49" in live.rendered_text)
        assert [md.render_passes for md in old] == passes


async def test_resize_rewraps() -> None:
    app = StreamApp()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        md.append("alpha beta gamma delta epsilon zeta eta theta iota kappa")
        md.finish()
        await wait_until(pilot, lambda: md.line_count == 1)
        await pilot.resize_terminal(24, 20)
        await wait_until(pilot, lambda: md.line_count > 1)
        assert all(len(line) <= 24 for line in md.rendered_text.splitlines())
        assert " ".join(md.rendered_text.split()) == (
            "alpha beta gamma delta epsilon zeta eta theta iota kappa"
        )


async def test_a_layout_pass_between_append_and_frame_does_not_lose_the_repaint() -> None:
    app = StreamApp()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        md.append("first line\n")
        await wait_until(pilot, lambda: on_screen(app, "first line"))
        md.append("second")
        # Something else triggers a layout before our frame timer fires.
        md.get_content_height(app.size, app.size, md.size.width)
        await wait_until(pilot, lambda: on_screen(app, "second"))


async def test_streamed_table_ends_up_on_screen() -> None:
    app = StreamApp()
    async with app.run_test(size=(60, 12)) as pilot:
        md = app.md
        rows = "".join(f"| {i} | item-{i} |\n" for i in range(30))
        source = "| n | name |\n|---|---|\n" + rows + "| 99 | LAST-ROW |\n"
        for i in range(0, len(source), 8):
            md.append(source[i : i + 8])
            if i % 64 == 0:
                await pilot.pause()
        await wait_until(pilot, lambda: on_screen(app, "LAST-ROW"))


async def test_a_growing_message_takes_its_height_in_steps_and_lays_out_only_per_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_tui.ui.markdown import stream_view
    from acp_tui.ui.markdown.stream_view import GROW_STEP

    app = StreamApp()
    async with app.run_test(size=(60, 40)) as pilot:
        md = app.md
        layouts: list[bool] = []
        original = md.refresh

        def refresh(*regions: object, **kwargs: object) -> object:
            layouts.append(bool(kwargs.get("layout")))
            return original(*regions, **kwargs)  # type: ignore[arg-type]

        md.refresh = refresh  # type: ignore[method-assign,assignment]
        repaint = quick_repaint.repaint_soon

        def repaint_soon(widget: Widget, region: Region) -> None:
            layouts.append(False)  # (a repaint without `refresh`)
            repaint(widget, region)

        monkeypatch.setattr(stream_view, "repaint_soon", repaint_soon)
        for i in range(GROW_STEP + 1):
            md.append(f"line {i}\n\n")
        await wait_until(pilot, lambda: f"line {GROW_STEP}" in md.rendered_text)
        lines = md.line_count  # paragraphs with blank lines between them
        room = -(-lines // GROW_STEP) * GROW_STEP
        assert lines + 2 <= room  # this test's numbers leave room for one more paragraph
        await wait_until(pilot, lambda: md.size.height == room)  # laid out ahead, blank for now
        layouts.clear()
        md.append("one more\n\n")  # lands in the room already laid out
        await wait_until(pilot, lambda: "one more" in md.rendered_text)
        await wait_until(pilot, lambda: on_screen(app, "one more"))
        assert layouts and not any(layouts)  # repainted, never laid out
        assert md.size.height == room and md.line_count == lines + 2
        md.finish()
        await wait_until(pilot, lambda: md.size.height == md.line_count)
        assert screen_lines(md)[-1] == "one more"


class FakeClock:
    """`time.monotonic` for the widget, advanced by the test; each read moves it on by a hair
    (as a real clock does between two reads)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        self.now += 1e-4
        return self.now


async def test_a_burst_of_height_changes_lays_out_at_most_20_times_a_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_tui.ui.markdown import stream_view

    clock = FakeClock()
    monkeypatch.setattr(stream_view, "time", clock)
    app = StreamApp()
    async with app.run_test(size=(60, 40)) as pilot:
        md = app.md
        timers: list[tuple[float, Callable[[], None]]] = []

        def set_timer(delay: float, callback: Callable[[], None], **kwargs: object) -> object:
            assert delay >= 0  # Textual's timer never ends with a negative interval
            timers.append((clock.now + delay, callback))
            return object()

        md.set_timer = set_timer  # type: ignore[method-assign,assignment]
        md.append("start\n\n")
        await wait_until(pilot, lambda: "start" in md.rendered_text)
        layouts, frames = md.layouts, 120
        for frame in range(frames):  # two seconds of frames, each growing the message
            clock.now += 1 / 60
            for due, callback in [timer for timer in timers if timer[0] <= clock.now]:
                timers.remove((due, callback))
                callback()
            md.append("".join(f"frame {frame} line {i}\n\n" for i in range(5)))
            md._flush()  # the frame (the test's clock decides what is due)
        assert "frame 119 line 4" in md.rendered_text
        assert 30 <= md.layouts - layouts <= 2 * 20 + 1  # not one per frame (120)


async def test_the_end_of_a_message_is_laid_out_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from acp_tui.ui.markdown import stream_view

    clock = FakeClock()
    monkeypatch.setattr(stream_view, "time", clock)
    app = StreamApp()
    async with app.run_test(size=(60, 40)) as pilot:
        md = app.md
        stopped: list[bool] = []

        class Pending:
            def stop(self) -> None:
                stopped.append(True)

        md.set_timer = lambda *args, **kwargs: Pending()  # type: ignore[method-assign,assignment]
        md.append("start\n\n")
        await wait_until(pilot, lambda: "start" in md.rendered_text)
        clock.now += 1
        md.append("".join(f"line {i}\n\n" for i in range(12)))
        md._flush()  # grown, laid out (the last layout was long ago)
        layouts = md.layouts
        md.append("".join(f"more {i}\n\n" for i in range(12)))
        md._flush()  # grown again within the layout interval: the layout waits
        assert md.layouts == layouts and not stopped
        md.append("END")
        md.finish()
        md._flush()
        assert md.layouts == layouts + 1 and stopped  # at once, the waiting layout dropped
        await wait_until(pilot, lambda: on_screen(app, "END"))


async def test_padding_is_drawn_in_the_streaming_lines_and_unchanged_lines_are_not_repainted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_tui.ui.markdown import screen_lines, stream_view

    painted: list[str] = []
    original = screen_lines.paint

    def counting_paint(source: Strip, look: screen_lines.Look) -> Strip:
        painted.append(source.text.strip())
        return original(source, look)

    monkeypatch.setattr(stream_view, "paint", counting_paint)

    class PaddedApp(StreamApp):
        CSS = StreamApp.CSS + "StreamingMarkdown { padding: 0 2; }"

    app = PaddedApp()
    async with app.run_test(size=(40, 30)) as pilot:
        md = app.md
        md.append("alpha\n\nbeta ")
        await wait_until(pilot, lambda: on_screen(app, "beta"))
        row = next(s.text for s in app.screen._compositor.render_strips() if "alpha" in s.text)
        assert row.startswith("  alpha")  # the padding, drawn by the streaming widget
        lines = md.render_lines(Region(0, 0, md.outer_size.width, md.outer_size.height))
        assert {strip.cell_length for strip in lines} == {md.outer_size.width}
        painted.clear()
        md.append("gamma\n\ndelta\n\nepsilon")  # grows: a layout
        await wait_until(pilot, lambda: on_screen(app, "epsilon"))
        assert "alpha" not in painted  # laid out again, yet painted once
        assert "beta gamma" in painted


async def test_messages_without_a_border_paint_their_own_lines_as_blank() -> None:
    from acp_tui.thread.entries import MessageEntry
    from acp_tui.ui.widgets.message_view import AgentMessageView

    class Messages(App[None]):
        CSS = ".-framed { border-left: outer red; }"

        def compose(self) -> ComposeResult:
            yield AgentMessageView(MessageEntry("agent"))
            framed = AgentMessageView(MessageEntry("agent"))
            framed.add_class("-framed")
            yield framed

    async with Messages().run_test() as pilot:
        plain, framed = pilot.app.query(AgentMessageView)
        assert plain.BLANK and not framed.BLANK


async def test_finishing_a_message_paints_again_only_its_last_lines(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The end of a message takes its exact height (a layout, the whole message repainted)
    without painting its lines again: they are not packed away at the end (that cost 17-26 ms
    for a long message, and the repaint of every line shown, before its end reached the
    screen)."""
    from acp_tui.ui.markdown import screen_lines, stream_view

    painted: list[str] = []
    original = screen_lines.paint

    def counting_paint(source: Strip, look: screen_lines.Look) -> Strip:
        painted.append(source.text.strip())
        return original(source, look)

    monkeypatch.setattr(stream_view, "paint", counting_paint)
    app = StreamApp()
    async with app.run_test(size=(60, 30)) as pilot:
        md = app.md
        md.append("".join(f"para {i}\n\n" for i in range(6)) + "the end")
        await wait_until(pilot, lambda: on_screen(app, "the end"))
        assert md.size.height > md.line_count  # (a step taller while it streams)
        painted.clear()
        md.finish()
        await wait_until(pilot, lambda: md.size.height == md.line_count)
        await pilot.pause()
        assert on_screen(app, "the end")
        assert "para 0" not in painted


async def test_a_message_replaced_at_its_end_draws_its_end_without_a_layout() -> None:
    """A message the conversation replaces once its end is drawn keeps the height it streamed
    at: its end is drawn in place (a layout moves and repaints everything on the screen)."""
    app = StreamApp()
    async with app.run_test(size=(60, 30)) as pilot:
        md = app.md
        md.append("".join(f"para {i}\n\n" for i in range(6)) + "the e")
        await wait_until(pilot, lambda: on_screen(app, "the e"))
        height, layouts = md.size.height, md.layouts
        assert height > md.line_count  # (a step taller while it streams)
        md.append("nd")
        md.finish(replaced=True)
        drawn: list[bool] = []
        md.when_drawn(lambda: drawn.append(True))
        await wait_until(pilot, lambda: bool(drawn))
        assert on_screen(app, "the end")
        assert md.layouts == layouts and md.size.height == height


def reaches(root: object, target: object) -> bool:
    """Whether ``target`` can be reached from ``root`` by references (not through a module's
    globals, where everything is)."""
    import gc
    import types

    seen, todo = {id(root)}, [root]
    while todo:
        for referent in gc.get_referents(todo.pop()):
            if referent is target:
                return True
            if id(referent) in seen or isinstance(referent, type | types.ModuleType):
                continue
            if isinstance(referent, dict) and "__builtins__" in referent:
                continue  # a module's globals
            seen.add(id(referent))
            todo.append(referent)
    return False


async def test_a_finished_document_handed_over_does_not_keep_its_widget_alive() -> None:
    """The conversation hands a finished message's document to the view that replaces it; the
    document's source used to be a closure over the streaming widget, so the removed widget
    (full of cycles) lived as long as the document, and died later in the permanent generation
    of the turn-end `gc.freeze`, never collected (about 0.2 MB a turn in a long session)."""
    app = StreamApp()
    async with app.run_test(size=(60, 20)) as pilot:
        md = app.md
        md.append("# Title\n\nSome *text*\n\n- one\n- two\n")
        md.finish()
        await wait_until(pilot, lambda: on_screen(app, "two"))
        document = md.document
        assert not reaches(document, md)
        assert "two" in document.text
