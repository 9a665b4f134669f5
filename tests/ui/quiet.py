"""Wait until a Textual app has nothing left to do: every message handled, nothing asked to be
laid out, scrolled or repainted on the screen shown.

A test that counts what a change costs (layouts, frames, rows rendered) or compares what is shown
reads it then, once whatever the change set off has run, instead of after a fixed pause that a
loaded machine may cut short (and that an idle one waits for nothing)."""

from __future__ import annotations

import asyncio
from typing import Any

from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget


async def until_quiet(
    pilot: Pilot[Any], screen: Screen[Any] | None = None, seconds: float = 30.0
) -> None:
    """Let the app run (`pilot.pause`: its messages handled, a frame due painted) until
    `quiet` for `screen` (default: the screen shown); fail after `seconds` (a deadline on a
    loaded machine, not a delay)."""
    try:
        async with asyncio.timeout(seconds):
            while True:
                await pilot.pause()
                if quiet(pilot.app, screen):
                    return
    except TimeoutError:
        raise AssertionError("the app never had nothing left to do") from None


def quiet(app: App[Any], screen: Screen[Any] | None = None) -> bool:
    """No message waits in the app or on `screen` (default: the screen shown), and none of
    its widgets is asked to be laid out, scrolled or repainted; shown, nothing waits for the
    screen's next frame either (a hidden screen keeps what it was asked until shown)."""
    shown = app.screen
    screen = shown if screen is None else screen
    if app.message_queue_size or screen.message_queue_size:
        return False
    if screen is shown and (_busy(screen) or screen._layout_required or screen._dirty_widgets):
        return False
    return not any(_busy(widget) for widget in screen.walk_children(Widget))


def _busy(widget: Widget) -> bool:
    return bool(
        widget.message_queue_size
        or widget._layout_required
        or widget._scroll_required
        or widget._repaint_required
    )
