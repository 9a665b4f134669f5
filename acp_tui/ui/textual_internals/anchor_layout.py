"""A layout that changes the height of a container anchored to its bottom arranges it again before
its frame is painted.

The compositor keeps an anchored container (the conversation following its end) at its bottom
by scrolling it to its content's bottom less its `container_size`, which is still the one of the
previous arrangement (it is updated after the reflow). A layout in which the container itself
got taller or shorter (a sibling appeared or went, the terminal was resized) scrolls it by the
change: shorter, its last rows are cut off; taller, blank rows are shown below its end. That
arrangement was painted, and stayed until some later layout anchored it right (a tab shown for
the first time since a second tab opened: its tab bar appears, the conversation is one row
shorter, and its end moved up by a row a moment later, when the turn's end was frozen).

So a layout that changed the height of an anchored container (not released by the user) is
done again, with the heights the first one gave, and only that second arrangement is painted.
A screen that is not shown (a hidden tab laid out in the background) is arranged again at once.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.screen import Screen
from textual.widget import Widget


class AnchorAtNewHeight(Screen[Any]):
    """Arrange again, before painting, a layout that changed an anchored container's height
    (see the module docstring)."""

    _anchor_heights: dict[Widget, int] | None = None
    """While a layout runs, until its frame is painted: the container heights its anchored
    containers had before it."""
    _rearranging = False

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        if self._rearranging:
            super()._refresh_layout(size, scroll)
            return
        self._anchor_heights = {
            widget: widget.container_size.height
            for widget in self._compositor.widgets
            if widget._anchored and not widget._anchor_released
        }
        try:
            super()._refresh_layout(size, scroll)
        finally:
            heights, self._anchor_heights = self._anchor_heights, None
        if heights and self._anchors_moved(heights):  # (no frame painted: hidden, or a batch)
            self._rearrange()

    def _compositor_refresh(self) -> None:
        heights, self._anchor_heights = self._anchor_heights, None
        if heights and self._anchors_moved(heights):
            self._rearrange()  # (which paints)
            return
        super()._compositor_refresh()

    def _anchors_moved(self, heights: dict[Widget, int]) -> bool:
        """Whether the layout just done changed the height of a container it kept anchored."""
        return any(
            widget.container_size.height != height
            for widget, height in heights.items()
            if widget._anchored and not widget._anchor_released
        )

    def _rearrange(self) -> None:
        """The layout again, at the size of the one just done (its frame painted if shown)."""
        self._rearranging = True
        try:
            self._refresh_layout(self._compositor.size)
        finally:
            self._rearranging = False
