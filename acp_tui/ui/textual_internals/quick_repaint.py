"""A region of a widget repainted by the next frame without the messages `Widget.refresh` posts.

`Widget.refresh(region)` marks the region and prompts the widget; at its idle it posts `Update`
to its screen, which adds it to the widgets to paint and prompts itself; at the screen's idle the
update timer resumes and the next frame paints the region. A streamed message repaints a line
every frame: three messages and two idle passes a frame, about 7% of the app's CPU while a reply
streams at 200 tokens a second. `repaint_soon` does what they end in at once: the region marked
(as `refresh` marks it), the widget added to its screen's dirty widgets, the update timer
resumed. The frame paints the same region as it would have, no sooner than the next tick.

Only for a widget shown on the current screen, outside a batch: otherwise (hidden, a screen that
keeps a frame and counts the widgets repainted since, `KeepFrameOnSwitch`) it is `refresh`.
"""

from __future__ import annotations

from textual.dom import NoScreen
from textual.geometry import Region
from textual.widget import Widget

from acp_tui.ui.textual_internals.engine import EngineScreen


def repaint_soon(widget: Widget, region: Region) -> None:
    """Repaint `region` of `widget` (content coordinates) in the next frame, as
    `widget.refresh(region)` would (see the module docstring)."""
    if not widget.is_mounted or not widget.display:
        widget.refresh(region)
        return
    app = widget.app
    try:
        screen = widget.screen
    except NoScreen:
        screen = None
    if (
        screen is None
        or screen is not app.screen
        or app._batch_count
        or (isinstance(screen, EngineScreen) and screen.engine.kept_frame.keeps_frame)
    ):
        widget.refresh(region)
        return
    widget._layout_cache.clear()  # what `refresh` does for a repaint
    widget._set_dirty(region)
    widget.clear_cached_dimensions()
    widget._rich_style_cache.clear()
    screen._dirty_widgets.add(widget)  # what the screen's `Update` handler does
    screen._update_timer.resume()  # what its idle does with a dirty widget
