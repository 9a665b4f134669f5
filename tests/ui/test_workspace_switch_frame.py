"""A tab switched back to paints the frame it kept while hidden: its conversation renders no line
for that frame, and the frame is the one a full composition gives; a widget that changed while
the tab was hidden is drawn anew in it; a tab whose conversation catches up on turns that came
while it was hidden ends up on the terminal as a full composition shows it."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.textual_internals.kept_frame import FrameCompositor
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.status_bar import StatusBar
from bench.turns import chunks, complete_tool_call, feed_turn, start_turn
from tests.ui.app_harness import AppHarness
from tests.ui.workspace_support import open_tab, workspace_app


class Terminal:
    """What a terminal shows after the app's updates (full frames and rows' spans), as text."""

    def __init__(self, width: int, height: int) -> None:
        self.rows = [[" "] * width for _ in range(height)]

    def apply(self, update: Any) -> None:
        if hasattr(update, "strips"):  # a full frame
            for y, line in enumerate(update.strips):
                self.rows[y] = list(Strip.join(list(line)).text)
            return
        for y, x1, x2 in update.spans:  # the spans of rows a partial update paints
            for (x, strip), end in zip(update.chops[y].items(), update.chop_ends[y], strict=False):
                if strip is None or x >= x2 or end <= x1:
                    continue
                for offset, char in enumerate(strip.text):
                    if x1 <= x + offset < x2:
                        self.rows[y][x + offset] = char

    @property
    def text(self) -> list[str]:
        return ["".join(row) for row in self.rows]


def frame_text(update: Any) -> list[str]:
    """The text of a full update's rows."""
    return [Strip.join(list(line)).text for line in update.strips]


def composed_text(screen: Screen[Any]) -> list[str]:
    """The screen's rows as a full composition paints them now."""
    return [strip.text for strip in screen._compositor.render_strips()]


@contextlib.contextmanager
def painting(h: AppHarness, screen: Screen[Any], seen: Callable[[Any], object]) -> Iterator[None]:
    """While inside: every update painted for `screen` is handed to `seen`, then painted."""
    display = h.app._display

    def recording(shown: Screen[Any], renderable: Any) -> None:
        if shown is screen and renderable is not None:
            seen(renderable)
        display(shown, renderable)

    h.app._display = recording  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        h.app._display = display  # type: ignore[method-assign]


def full_frames(painted: list[Any]) -> Callable[[Any], None]:
    """A `painting` handler that keeps the full frames (not the partial updates) in `painted`."""
    return lambda update: painted.append(update) if hasattr(update, "strips") else None


async def switch_back(h: AppHarness, screen: MainScreen) -> Any:
    """alt+1 to `screen`'s tab; the first full update painted for it."""
    painted: list[Any] = []
    with painting(h, screen, full_frames(painted)):
        await h.pilot.press("alt+1")
        await h.until(lambda: painted, "the tab's first frame")
    return painted[0]


async def hide_until_kept(h: AppHarness, screen: MainScreen) -> None:
    """alt+2, then until the hidden screen kept its frame (a screen that keeps none: one
    frame)."""
    await h.pilot.press("alt+2")
    await h.until(lambda: h.app.screen is not screen, "alt+2")
    if hasattr(screen._compositor, "kept"):
        await h.until(lambda: getattr(screen._compositor, "kept", None), "the kept frame")
    await h.pilot.pause()


async def test_a_tab_shown_again_paints_its_kept_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        await open_tab(h)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        await h.pilot.pause()
        await hide_until_kept(h, screen)

        conversation = screen.query_one(ConversationView)
        rendered: list[Widget] = []
        for widget in [conversation, *conversation.walk_children(Widget)]:
            render_lines = widget.render_lines

            def counting(crop: Region, widget: Widget = widget, render: Any = render_lines) -> Any:
                rendered.append(widget)
                return render(crop)

            monkeypatch.setattr(widget, "render_lines", counting)
        frame = await switch_back(h, screen)
        assert rendered == [], "the conversation rendered lines for the frame of a switch"
        assert frame_text(frame) == composed_text(screen)


async def test_a_widget_changed_while_hidden_is_drawn_anew_in_the_kept_frame(
    tmp_path: Path,
) -> None:
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        await open_tab(h)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        await h.pilot.pause()
        await hide_until_kept(h, screen)
        screen.query_one(StatusBar).title = "RENAMED-WHILE-HIDDEN"
        await h.pilot.pause()
        frame = await switch_back(h, screen)
        assert any("RENAMED-WHILE-HIDDEN" in row for row in frame_text(frame))
        assert frame_text(frame) == composed_text(screen)


async def test_a_tab_catching_up_ends_as_composed(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        session = h.app.tabs[0].session
        await open_tab(h)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        await h.pilot.pause()
        await hide_until_kept(h, screen)
        for turn in range(1, 4):  # turns come while the tab is hidden
            feed_turn(session, turn)
        await h.pilot.pause()
        terminal = Terminal(*h.app.size)
        with painting(h, screen, terminal.apply):
            await h.pilot.press("alt+1")
            conversation = screen.query_one(ConversationView)
            await h.until(lambda: h.app.screen is screen, "alt+1")
            await h.until(
                lambda: all(view.is_mounted for view in conversation.views.values()),
                "the catch-up",
            )
            for _ in range(5):
                await h.pilot.pause()
        assert "Turn " in "\n".join(composed_text(screen)), "the turns are shown"
        assert terminal.text == composed_text(screen), "the terminal shows stale rows"


async def test_a_tab_streaming_while_hidden_ends_as_composed(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        session = h.app.tabs[0].session
        thread = session.thread
        await open_tab(h)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        for turn in range(1, 3):
            feed_turn(session, turn)
        start_turn(session, 3)
        complete_tool_call(session, 3)
        parts = chunks(3, 40) * 4
        third = len(parts) // 3
        for notification in parts[:third]:  # streaming while shown
            thread.apply_notification(notification)
        await h.pilot.pause()
        await hide_until_kept(h, screen)
        for notification in parts[third : 2 * third]:  # and while hidden
            thread.apply_notification(notification)
        await h.pilot.pause()
        terminal = Terminal(*h.app.size)
        with painting(h, screen, terminal.apply):
            await h.pilot.press("alt+1")
            for index, notification in enumerate(parts[2 * third :]):  # and once shown again
                thread.apply_notification(notification)
                if index % 10 == 0:
                    await h.pilot.pause()
            thread.end_turn("end_turn")
            conversation = screen.query_one(ConversationView)
            await h.until(
                lambda: all(view.is_mounted for view in conversation.views.values()),
                "the turn end",
            )
            for _ in range(5):
                await h.pilot.pause()
        assert terminal.text == composed_text(screen), "the terminal shows stale rows"


async def first_switch_back(
    h: AppHarness, screen: MainScreen, monkeypatch: pytest.MonkeyPatch
) -> tuple[Terminal, list[bool]]:
    """alt+1 to `screen`'s tab, every update it paints applied to a `Terminal`, until the
    screen's conversation is all mounted and a few frames passed; with, for each full frame
    painted, whether it was the kept one, up to the first."""
    terminal = Terminal(*h.app.size)
    compositor = screen._compositor
    reused_before = getattr(compositor, "reused", 0)
    full: list[bool] = []
    laid_out: list[bool] = []
    relayout = screen._refresh_layout

    def counting(size: Any = None, scroll: bool = False) -> None:
        if not full:
            laid_out.append(scroll)
        relayout(size, scroll)

    def seen(update: Any) -> None:
        if hasattr(update, "strips") and not full:
            full.append(getattr(compositor, "reused", 0) > reused_before)
        terminal.apply(update)

    monkeypatch.setattr(screen, "_refresh_layout", counting)
    with painting(h, screen, seen):
        await h.pilot.press("alt+1")
        conversation = screen.query_one(ConversationView)
        await h.until(lambda: full, "the tab's first frame")
        await h.until(lambda: all(v.is_mounted for v in conversation.views.values()), "the views")
        for _ in range(5):
            await h.pilot.pause()
    assert laid_out == [], "the first switch back laid the screen out before its first frame"
    return terminal, full


async def test_a_layout_asked_while_hidden_is_done_before_the_first_switch_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent crashes while its tab is hidden: the banner's layout is done in the background
    and the frame kept again, so the first switch back paints the kept frame (the banner in it),
    no layout first, and the terminal ends as a full composition."""
    import os
    import signal

    from acp_tui.client.events import SessionState
    from acp_tui.ui.widgets.crash_banner import CrashBanner

    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        session = h.app.tabs[0].session
        await open_tab(h)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        for turn in range(1, 4):
            feed_turn(session, turn)
        await h.caught_up()
        await hide_until_kept(h, screen)
        process = session.connector.process
        assert process is not None
        os.kill(process.pid, signal.SIGKILL)
        await h.until(lambda: session.state is SessionState.CRASHED, "the crash")
        banner = screen.query_one(CrashBanner)
        await h.until(lambda: banner.display, "the banner, while hidden")
        kept = screen._compositor
        assert isinstance(kept, FrameCompositor)
        await h.until(
            lambda: not screen._layout_required and kept.kept is not None,
            "the hidden screen laid out and its frame kept again",
            seconds=10,
        )
        terminal, full = await first_switch_back(h, screen, monkeypatch)
        assert full[:1] == [True], "the first frame was composed anew, not the kept one"
        assert "crashed" in "\n".join(terminal.text).lower()
        assert terminal.text == composed_text(screen), "the terminal shows stale rows"


async def test_a_turn_summary_changed_while_hidden_keeps_the_switch_fast(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A late change of a shown turn's files while its tab is hidden: its summary line is
    redrawn in place, and the first switch back paints the kept frame with that line anew."""
    from acp_tui.host.change_log import Observed
    from acp_tui.ui.widgets.turn_summary import TurnSummaryView

    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        session = h.app.tabs[0].session
        await open_tab(h)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        feed_turn(session, 1)
        start_turn(session, 2)
        turn = session.turn_changes.attribution.turn
        changes = session.turn_changes.changes  # (what the change monitor records into)
        cwd = Path(session.cwd)
        changes.add(cwd / "first.py", "a\n", "b\n", observed=Observed("agent", turn=turn))
        session.thread.end_turn("end_turn")
        await h.caught_up()
        await h.until(lambda: screen.query(TurnSummaryView), "the turn's summary line")
        await hide_until_kept(h, screen)
        late = cwd / "LATE-CHANGE.py"
        changes.add(late, None, "c\n", observed=Observed("agent", turn=turn))
        await h.pilot.pause()
        terminal, full = await first_switch_back(h, screen, monkeypatch)
        assert full[:1] == [True], "the first frame was composed anew, not the kept one"
        assert "LATE-CHANGE.py" in "\n".join(terminal.text)
        assert terminal.text == composed_text(screen), "the terminal shows stale rows"
