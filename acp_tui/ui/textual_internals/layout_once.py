"""One layout per change of size, not two, and one frame for it, not two.

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
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

_VIRTUAL_SIZE: Reactive[Size] = Widget.__dict__["virtual_size"]


class LayoutOnce(Screen[Any]):
    """A screen whose layouts do not ask for a second layout, nor a second frame (see the
    module docstring)."""

    _painted: list[Region] | None = None
    """While a layout runs: the regions its frame painted (None: no frame painted yet)."""

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        asked = {widget for widget in self._compositor.widgets if widget._repaint_required}
        self._painted = []
        asks, _VIRTUAL_SIZE._layout = _VIRTUAL_SIZE._layout, False
        try:
            super()._refresh_layout(size, scroll)
        finally:
            _VIRTUAL_SIZE._layout = asks
            painted, self._painted = self._painted, None
        if painted:
            self._drop_repainted(asked, painted)

    def _compositor_refresh(self) -> None:
        painted = self._painted
        if painted is not None:
            compositor = self._compositor
            if self is self.app.screen and compositor._dirty_regions:
                painted.extend(compositor._dirty_regions)
        super()._compositor_refresh()

    def _drop_repainted(self, asked: set[Widget], painted: list[Region]) -> None:
        """Forget the repaints widgets asked for during the layout, where its frame painted
        them (`asked`: the widgets that had asked before the layout, left alone)."""
        for widget, (region, clip) in self._compositor.visible_widgets.items():
            if not widget._repaint_required or widget in asked:
                continue
            shown = clip.intersection(region)
            if not any(area.contains_region(shown) for area in painted):
                continue
            widget._repaint_required = False
            widget._repaint_regions.clear()
