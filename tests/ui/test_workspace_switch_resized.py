"""A tab switched back to after the terminal grew while it was hidden: every frame painted for it
is the tab as a full composition shows it (seen in tmux: a hidden tab, `tmux resize-window` to a
larger size, alt+N: the conversation was painted scrolled by the growth, blank rows at the
bottom, or, for a tab with a running turn and a waiting permission, a blank conversation for
most of a second, before the right frame came).

Known defect, not fixed yet (the first frame after such a switch is composed with the
conversation's scroll offset of the old height): marked xfail until it is. It came with
32d2ecd (a switch lays out nothing that did not change): the test passes at its parent. Not
fixed by laying out twice at a new size (`KeepLayoutOnSwitch`), nor by Textual's own
`switch_mode` (its 50 ms delay) plus a layout asked after the switch."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen

from acp_tui.ui.screens.main import MainScreen
from bench.turns import feed_turn
from tests.ui.app_harness import AppHarness
from tests.ui.test_workspace_switch_frame import composed_text, frame_text, hide_until_kept
from tests.ui.workspace_support import open_tab, workspace_app


async def frames_of_switch(h: AppHarness, screen: MainScreen, key: str) -> list[list[str]]:
    """Press `key`; the text of every full frame painted for `screen` until the app settled."""
    painted: list[list[str]] = []
    display = h.app._display

    def recording(shown: Screen[Any], renderable: Any) -> None:
        if shown is screen and hasattr(renderable, "strips"):
            painted.append(frame_text(renderable))
        display(shown, renderable)

    h.app._display = recording  # type: ignore[method-assign,assignment]
    try:
        await h.pilot.press(key)
        await h.until(lambda: painted, "the tab's first frame")
        await h.settle()
    finally:
        h.app._display = display  # type: ignore[method-assign]
    return painted


@pytest.mark.xfail(reason="known defect: a stale first frame after a resize while hidden")
async def test_a_tab_hidden_while_the_terminal_grew_is_painted_as_composed(
    tmp_path: Path,
) -> None:
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        for turn in range(1, 4):
            feed_turn(h.app.tabs[0].session, turn)
        await open_tab(h)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        await h.settle()
        await hide_until_kept(h, screen)
        width, height = h.app.size
        await h.pilot.resize_terminal(width + 10, height + 5)
        await h.settle()
        frames = await frames_of_switch(h, screen, "alt+1")
        final = composed_text(screen)
        assert "Done." in "\n".join(final), "the last turn's end is shown"
        for index, frame in enumerate(frames):
            assert frame == final, f"frame {index} of the switch is not the tab as composed"


async def test_a_tab_hidden_while_the_size_stayed_is_painted_as_composed(
    tmp_path: Path,
) -> None:
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        for turn in range(1, 4):
            feed_turn(h.app.tabs[0].session, turn)
        await open_tab(h)
        await h.pilot.press("alt+1")
        await h.until(lambda: h.app.screen is screen, "alt+1")
        await h.settle()
        await hide_until_kept(h, screen)
        frames = await frames_of_switch(h, screen, "alt+1")
        final = composed_text(screen)
        assert "Done." in "\n".join(final), "the last turn's end is shown"
        for index, frame in enumerate(frames):
            assert frame == final, f"frame {index} of the switch is not the tab as composed"
