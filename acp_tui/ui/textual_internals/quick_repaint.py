"""A region of a widget repainted by the next frame without the messages `Widget.refresh` posts.

A fix Textual could take upstream: `refresh` of a shown widget could mark its screen at once.

`Widget.refresh(region)` marks the region and prompts the widget; at its idle it posts `Update`
to its screen, which adds it to the widgets to paint and prompts itself; at the screen's idle the
update timer resumes and the next frame paints the region. A streamed message repaints a line
every frame: three messages and two idle passes a frame, about 7% of the app's CPU while a reply
streams at 200 tokens a second. `QuickRepaint`, a step of `EngineScreen`, does what they end in
at once: the region marked (as `refresh` marks it), the widget added to its screen's dirty
widgets, the update timer resumed. The frame paints the same region as it would have, no sooner
than the next tick.

A widget calls `repaint_soon` instead of `refresh`. It is `refresh` for a widget that is hidden
or not on an engine's screen, and the step leaves to `refresh` a screen that is not the current
one, a batch (no frames until it ends) and a screen that keeps a frame and counts the widgets
repainted since (`KeepFrameOnSwitch`, which reads `Update`).

Private: `Widget._layout_cache`, `Widget._set_dirty`, `Widget._rich_style_cache`,
`Screen._dirty_widgets`, `Screen._update_timer`, `App._batch_count`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from textual.dom import NoScreen
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget


class QuickRepaint:
    """The step of a screen that repaints a widget's region without `refresh`'s messages."""

    def __init__(self, screen: Screen[Any], keeps_frame: Callable[[], bool]) -> None:
        self._screen = screen
        self._keeps_frame = keeps_frame

    def repaint(self, widget: Widget, region: Region) -> None:
        """Repaint `region` of `widget` (shown on this screen) in the next frame."""
        screen = self._screen
        app = screen.app
        if screen is not app.screen or app._batch_count or self._keeps_frame():
            widget.refresh(region)
            return
        widget._layout_cache.clear()  # what `refresh` does for a repaint
        widget._set_dirty(region)
        widget.clear_cached_dimensions()
        widget._rich_style_cache.clear()
        screen._dirty_widgets.add(widget)  # what the screen's `Update` handler does
        screen._update_timer.resume()  # what its idle does with a dirty widget


def repaint_soon(widget: Widget, region: Region) -> None:
    """Repaint `region` of `widget` (content coordinates) in the next frame, as
    `widget.refresh(region)` would (see the module docstring)."""
    step = None
    if widget.is_mounted and widget.display:
        with contextlib.suppress(NoScreen):
            step = getattr(getattr(widget.screen, "engine", None), "quick_repaint", None)
    if isinstance(step, QuickRepaint):
        step.repaint(widget, region)
    else:
        widget.refresh(region)
