"""Pilot tests of the traffic inspector: pairing, grouping, filters, search, marks, safety."""

from __future__ import annotations

from typing import Any

from textual.widgets import Static, TextArea

from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.protocol.traffic_raw import RawFrames
from acp_tui.ui.inspector.frame_list import FrameList
from acp_tui.ui.inspector.screen import InspectorScreen
from tests.ui.headless_app import until
from tests.ui.inspector_support import InspectorApp, chunk, frame, sample_store

SIZE = (140, 40)


def rows(screen: InspectorScreen) -> list[tuple[int, int]]:
    index = screen.frame_list.index
    return [index.row(i) for i in range(len(index))]


def line_text(frames: FrameList, y: int) -> str:
    return "".join(segment.text for segment in frames.render_line(y))


def header_text(screen: InspectorScreen) -> str:
    return str(screen.query_one("#inspector-header", Static).render())


def view_text(screen: InspectorScreen) -> str:
    return screen.query_one("#frame-view", TextArea).text


async def test_opens_on_the_last_row_with_runs_grouped_and_pairs_linked() -> None:
    app = InspectorApp(sample_store())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        # 17 frames; the two runs of message chunks are one row each
        assert rows(screen) == [
            (0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (5, 5),
            (10, 1), (11, 1), (12, 1), (13, 3), (16, 1),
        ]  # fmt: skip
        frames = screen.frame_list
        assert frames.selected_frame is not None and frames.selected_frame.index == 16
        assert "answers frame 4 after 2000 ms" in view_text(screen)
        await pilot.press("p")
        assert frames.selected_frame.index == 4
        assert "answered by frame 16" in view_text(screen)
        # the group row shows its size; the error response its code and its request's method
        assert "×5" in line_text(frames, 5)  # noqa: RUF001
        error_line = line_text(frames, 7)
        assert "fs/read_text_file" in error_line and "E-32002" in error_line


async def test_filters_direction_errors_marks_method_and_grouping() -> None:
    app = InspectorApp(sample_store())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        await pilot.press("d")  # received only
        assert [first for first, _ in rows(screen)] == [1, 3, 5, 10, 12, 13, 16]
        await pilot.press("d")  # sent only
        assert [first for first, _ in rows(screen)] == [0, 2, 4, 11]
        await pilot.press("d", "e")  # all directions, errors only
        assert rows(screen) == [(11, 1)]
        await pilot.press("e", "x")  # marked only
        assert [first for first, _ in rows(screen)] == [10, 12]
        await pilot.press("x", "g")  # everything, ungrouped
        assert len(rows(screen)) == 17
        await pilot.press("g", "m", *"read", "enter")
        assert [first for first, _ in rows(screen)] == [10, 11]
        header = str(screen.query_one("#inspector-header", Static).render())
        assert "method~read" in header


async def test_marks_are_shown_on_the_frame_and_counted_in_the_summary() -> None:
    app = InspectorApp(sample_store())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        summary = str(screen.query_one("#summary", Static).render())
        assert "1  relative path" in summary and "1  unknown variant" in summary
        await pilot.press("x")
        frames = screen.frame_list
        frames.cursor = 0
        await pilot.pause()
        assert "⚠ relative path: fs/read_text_file path 'notes.txt'" in view_text(screen)
        assert "⚠1" in line_text(frames, 0)
        await pilot.press("down")
        assert "unknown variant: tool_call kind 'fly'" in view_text(screen)


async def test_search_finds_a_frame_inside_a_group_and_wraps() -> None:
    app = InspectorApp(sample_store())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        await pilot.press("slash", *"more 2", "enter")
        assert screen.frame_list.index.row(screen.frame_list.cursor) == (13, 3)
        await pilot.press("n")  # the only match: wraps to itself
        assert screen.frame_list.index.row(screen.frame_list.cursor) == (13, 3)


async def test_live_frames_extend_a_group_and_follow_the_tail() -> None:
    store = sample_store()
    app = InspectorApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        for i in range(4):
            store.record(frame("in", 104.0 + i, chunk(f"late {i}")))
        # the list polls the store (every 0.1 s) and says so in the header
        await until(pilot, lambda: "21 frames" in header_text(screen), "the list's poll")
        frames = screen.frame_list
        assert rows(screen)[-1] == (17, 4)
        assert frames.selected_frame is not None and frames.selected_frame.index == 17


async def test_agent_bytes_are_drawn_inert() -> None:
    store = sample_store()
    store.record(TrafficEvent("in", 105.0, "[bold]x[/bold]\x1b[2J\x9b31m\u202e"))
    app = InspectorApp(store)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        frames = screen.frame_list
        last = line_text(frames, frames.cursor - int(frames.scroll_offset.y))
        assert "[bold]x[/bo" in last  # not parsed as markup (the line is cropped)
        for bad in ("\x1b", "\x9b", "\u202e"):
            assert bad not in last and bad not in view_text(screen)
        assert "␛[2J" in view_text(screen)


async def test_frames_whose_text_was_dropped_say_so_where_they_show() -> None:
    """Past the budget of kept text the oldest frames keep their row but lose their text: the
    header counts them, their row, the frame view, the copy key and a search that finds
    nothing say it."""
    store = sample_store(RawFrames(budget=1, block_frames=4))  # 4 blocks: 12 frames dropped
    assert store.dropped_texts == 12
    app = InspectorApp(store)
    notified: list[str] = []
    original = app.notify

    def notify(message: str, *args: Any, **kwargs: Any) -> None:
        notified.append(message)
        original(message, *args, **kwargs)

    app.notify = notify  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, InspectorScreen)
        header = str(screen.query_one("#inspector-header", Static).render())
        assert "17 frames" in header and "12 older frames' text not kept" in header
        frames = screen.frame_list
        assert '"stopReason"' in view_text(screen)  # the newest frame: kept
        await pilot.press("home")
        assert frames.selected_frame is not None and frames.selected_frame.index == 0
        assert "(not kept)" in line_text(frames, 0) and "initialize" in line_text(frames, 0)
        assert "text not kept" in view_text(screen) and "was not kept" in view_text(screen)
        await pilot.press("y")
        assert notified[-1] == "frame 0's text was not kept"
        await pilot.press("slash", *"part 1", "enter")  # in a dropped frame
        assert notified[-1] == "not found (the text of the 12 oldest frames was not kept)"
        await pilot.press("slash", *"more 2", "enter")  # in a kept one
        assert frames.index.row(frames.cursor) == (13, 3)
