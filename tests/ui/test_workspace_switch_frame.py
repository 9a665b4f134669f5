"""A tab switched back to paints the frame it kept while hidden: its conversation renders no line
for that frame, and the frame is the one a full composition gives; a widget that changed while
the tab was hidden is drawn anew in it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.geometry import Region
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.status_bar import StatusBar
from tests.ui.app_harness import AppHarness
from tests.ui.workspace_support import open_tab, workspace_app


def frame_text(update: Any) -> list[str]:
    """The text of a full update's rows."""
    return [Strip.join(list(line)).text for line in update.strips]


def composed_text(screen: Screen[Any]) -> list[str]:
    """The screen's rows as a full composition paints them now."""
    return [strip.text for strip in screen._compositor.render_strips()]


async def switch_back(h: AppHarness, screen: MainScreen) -> Any:
    """alt+1 to `screen`'s tab; the first full update painted for it."""
    painted: list[Any] = []
    display = h.app._display

    def recording(shown: Screen[Any], renderable: Any) -> None:
        if shown is screen and hasattr(renderable, "strips"):
            painted.append(renderable)
        display(shown, renderable)

    h.app._display = recording  # type: ignore[method-assign,assignment]
    try:
        await h.pilot.press("alt+1")
        await h.until(lambda: painted, "the tab's first frame")
    finally:
        h.app._display = display  # type: ignore[method-assign]
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
