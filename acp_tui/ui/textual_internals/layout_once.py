"""One layout per change of size, not two, and one frame for it, not two.

A fix Textual could take upstream: a layout should not ask for another layout by the sizes it sets.

A layout (`Screen._refresh_layout`) arranges every widget and then tells each one its new size
and virtual size. Textual sets the virtual size through a reactive declared ``layout=True``, so
every widget whose content grew (a streaming message, its message view, the conversation that
scrolls it) asks for *another* layout of a screen that was just laid out with exactly those
sizes: each growth of a streamed message cost two full layouts (4.4 ms and 2.7 ms on a 120x40
screen). `LayoutOnce` sets the virtual sizes during its own layout without asking for a
layout; everything else that reactive does stays (the widgets still repaint), and a scrollbar
that appears or goes still asks for the layout it needs (its own reactive).

Those repaints come one frame late: the layout paints every region it changed at once, then
each widget it resized (and the scrollbar it moved) asks to be painted again, and the next
frame paints the same area a second time (a streamed message taller than the screen: the whole
conversation, ~28 KB written to the terminal, twice per growth). A repaint a widget asked for
*during* a layout whose frame was painted right away, of a widget lying wholly inside an area
that frame painted, is dropped: the frame already showed it (its lines were marked dirty when
it asked, so the layout's frame rendered them anew). Repaints asked for before or after the
layout, or of widgets outside what it painted, are kept.

A step of `EngineScreen` (`engine.py`): the last of its layout and of its paint steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

_VIRTUAL_SIZE: Reactive[Size] = Widget.__dict__["virtual_size"]


class LayoutOnce:
    """Layouts that do not ask for a second layout, nor a second frame (see the module
    docstring)."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._painted: list[Region] | None = None
        """While a layout runs: the regions its frame painted (None: no frame painted yet)."""

    def around_layout(self, layout: Callable[[], None]) -> None:
        """Run `layout` with the virtual sizes asking for no layout; then forget the repaints
        its frame already showed."""
        asked = {w for w in self._screen._compositor.widgets if w._repaint_required}
        self._painted = []
        asks, _VIRTUAL_SIZE._layout = _VIRTUAL_SIZE._layout, False
        try:
            layout()
        finally:
            _VIRTUAL_SIZE._layout = asks
            painted, self._painted = self._painted, None
        if painted:
            self._drop_repainted(asked, painted)

    def around_paint(self, paint: Callable[[], None]) -> None:
        """Note what a layout's frame paints, then paint."""
        painted = self._painted
        if painted is not None:
            screen = self._screen
            compositor = screen._compositor
            if screen is screen.app.screen and compositor._dirty_regions:
                painted.extend(compositor._dirty_regions)
        paint()

    def _drop_repainted(self, asked: set[Widget], painted: list[Region]) -> None:
        """Forget the repaints widgets asked for during the layout, where its frame painted
        them (`asked`: the widgets that had asked before the layout, left alone)."""
        for widget, (region, clip) in self._screen._compositor.visible_widgets.items():
            if not widget._repaint_required or widget in asked:
                continue
            shown = clip.intersection(region)
            if not any(area.contains_region(shown) for area in painted):
                continue
            widget._repaint_required = False
            widget._repaint_regions.clear()
