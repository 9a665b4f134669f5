"""A tab switched back to after the terminal was resized while it was hidden: every frame painted
for it is the tab as a full composition shows it (seen in tmux: a hidden tab, `tmux
resize-window` to a larger size, alt+N: the conversation was painted scrolled by the growth,
blank rows at the bottom, before the right frame came).

The cause: the compositor keeps the conversation anchored to its bottom with the container
height of the previous arrangement, so the first arrangement at a new height was scrolled by
the change, and it was painted (`AnchorAtNewHeight` now arranges such a layout again before
painting). Grown, shrunk, only wider, only taller; a finished tab and a tab whose turn runs with
a permission request waiting; a tab whose conversation got shorter as its tab bar appeared."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.workspace.tab_bar import TabBar
from bench.turns import feed_turn
from tests.ui.app_harness import AppHarness
from tests.ui.test_workspace_switch_frame import (
    composed_text,
    frame_text,
    full_frames,
    hide_until_kept,
    painting,
)
from tests.ui.workspace_support import open_tab, workspace_app

RESIZES = {"grow": (10, 5), "shrink": (-10, -5), "wider": (12, 0), "taller": (0, 6)}


async def frames_of_switch(
    h: AppHarness, screen: MainScreen, key: str, settled: Callable[[], Awaitable[None]]
) -> list[list[str]]:
    """Press `key`; the text of every full frame painted for `screen` until `settled()`."""
    painted: list[Any] = []
    with painting(h, screen, full_frames(painted)):
        await h.pilot.press(key)
        await h.until(lambda: painted, "the tab's first frame")
        await settled()
    return [frame_text(update) for update in painted]


async def switch_back_resized(
    h: AppHarness,
    screen: MainScreen,
    grow: tuple[int, int],
    settled: Callable[[], Awaitable[None]],
) -> tuple[list[list[str]], list[str]]:
    """Hide `screen`'s tab (alt+2), resize the terminal by `grow`, alt+1: the frames painted
    for it, and the tab as composed at the end."""
    await hide_until_kept(h, screen)
    width, height = h.app.size
    await h.pilot.resize_terminal(width + grow[0], height + grow[1])
    await h.until(lambda: h.app.size == (width + grow[0], height + grow[1]), "the new size")
    frames = await frames_of_switch(h, screen, "alt+1", settled)
    return frames, composed_text(screen)


async def first_tab_with_turns(h: AppHarness) -> MainScreen:
    """Three finished turns in the first tab, a second tab opened, the first shown again and
    settled: its screen."""
    screen = h.app.screen
    assert isinstance(screen, MainScreen)
    for turn in range(1, 4):
        feed_turn(h.app.tabs[0].session, turn)
    await open_tab(h)
    await h.pilot.press("alt+1")
    await h.until(lambda: h.app.screen is screen, "alt+1")
    await h.settle()
    return screen


def without_row(rows: list[str], y: int) -> list[str]:
    return rows[:y] + rows[y + 1 :]


@pytest.mark.parametrize("resize", RESIZES)
async def test_a_tab_hidden_while_the_terminal_was_resized_is_painted_as_composed(
    tmp_path: Path, resize: str
) -> None:
    async with workspace_app(tmp_path) as h:
        screen = await first_tab_with_turns(h)
        frames, final = await switch_back_resized(h, screen, RESIZES[resize], h.settle)
        assert "Done." in "\n".join(final), "the last turn's end is shown"
        for index, frame in enumerate(frames):
            assert frame == final, f"frame {index} of the switch is not the tab as composed"


@pytest.mark.parametrize("resize", ["grow", "shrink"])
async def test_a_running_tab_with_a_waiting_permission_is_painted_as_composed(
    tmp_path: Path, resize: str
) -> None:
    async with workspace_app(tmp_path) as h:
        screen = await first_tab_with_turns(h)
        session = h.app.tabs[0].session
        await h.type_prompt("/edit")
        await h.until(session.thread.waiting_permission, "the demo agent's permission request")

        async def drawn() -> None:
            await h.until(lambda: not screen._layout_required, "the layout")
            for _ in range(5):
                await h.pilot.pause()

        await drawn()
        frames, final = await switch_back_resized(h, screen, RESIZES[resize], drawn)
        assert session.thread.turn_running and session.thread.waiting_permission()
        assert "Allow" in "\n".join(final), "the permission request is shown"
        clock = screen.query_one(StatusBar).region.y  # (its spinner and elapsed time move on)
        for index, frame in enumerate(frames):
            assert without_row(frame, clock) == without_row(final, clock), (
                f"frame {index} of the switch is not the tab as composed"
            )


async def test_a_tab_hidden_while_the_size_stayed_is_painted_as_composed(
    tmp_path: Path,
) -> None:
    async with workspace_app(tmp_path) as h:
        screen = await first_tab_with_turns(h)
        await hide_until_kept(h, screen)
        frames = await frames_of_switch(h, screen, "alt+1", h.settle)
        final = composed_text(screen)
        assert "Done." in "\n".join(final), "the last turn's end is shown"
        for index, frame in enumerate(frames):
            assert frame == final, f"frame {index} of the switch is not the tab as composed"


async def test_a_tab_shown_first_since_a_second_tab_opened_is_painted_at_its_end(
    tmp_path: Path,
) -> None:
    """The first tab gets its tab bar once a second tab is open: shown again, its conversation
    is a row shorter, and every frame shows it at its end (it was anchored with its old height:
    the blank row under its last entry cut off, until a later layout moved it up a row)."""
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        for turn in range(1, 4):
            feed_turn(h.app.tabs[0].session, turn)
        await h.settle()
        conversation = screen.query_one(ConversationView)
        height = conversation.size.height
        await open_tab(h)
        frames = await frames_of_switch(h, screen, "alt+1", h.settle)
        final = composed_text(screen)
        assert conversation.size.height == height - 1, "the tab bar took a row"
        assert conversation.scroll_y == conversation.max_scroll_y, "at the conversation's end"
        assert "Done." in "\n".join(final), "the last turn's end is shown"
        for index, frame in enumerate(frames):
            assert frame == final, f"frame {index} of the switch is not the tab as composed"


async def test_a_tab_bar_shown_while_hidden_is_in_the_first_frame_however_late_its_idle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same switch, the bar's own idle (where Textual's `refresh` tells the screen of the
    layout a widget asked for) coming only after the tab's first frame, as it can under load:
    that frame was the frame kept while hidden, with no bar, and the bar came a frame later."""
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        for turn in range(1, 4):
            feed_turn(h.app.tabs[0].session, turn)
        await h.settle()
        await open_tab(h)
        await h.until(lambda: getattr(screen._compositor, "kept", None), "the kept frame")
        bar = screen.query_one(TabBar)
        held: list[bool] = [True]

        async def late_idle(self: TabBar, event: Any) -> None:
            if self is bar and held[0]:
                event.prevent_default()  # (Widget's idle, which tells the screen, waits)

        def release() -> None:
            if held[0]:
                held[0] = False
                bar.check_idle()

        monkeypatch.setattr(TabBar, "_on_idle", late_idle, raising=False)
        painted: list[Any] = []

        def first_then_release(update: Any) -> None:
            if hasattr(update, "strips"):
                painted.append(update)
            release()

        with painting(h, screen, first_then_release):
            await h.pilot.press("alt+1")
            await h.until(lambda: painted, "the tab's first frame")
            await h.settle()
        final = composed_text(screen)
        assert bar.display and bar.region.height == 1, "the bar is shown"
        assert "Done." in "\n".join(final), "the last turn's end is shown"
        for index, update in enumerate(painted):
            assert frame_text(update) == final, f"frame {index} of the switch is not as composed"
