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

A step of `EngineScreen` (`engine.py`): the first of its layout and of its paint steps.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual.screen import Screen
from textual.widget import Widget


class AnchorAtNewHeight:
    """Arrange again, before painting, a layout that changed an anchored container's height
    (see the module docstring)."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._heights: dict[Widget, int] | None = None
        """While a layout runs, until its frame is painted: the container heights its anchored
        containers had before it."""
        self._rearranging = False

    def around_layout(self, layout: Callable[[], None]) -> None:
        """Run `layout`; arrange again if it moved an anchored container and painted nothing."""
        if self._rearranging:
            layout()
            return
        self._heights = {
            widget: widget.container_size.height
            for widget in self._screen._compositor.widgets
            if widget._anchored and not widget._anchor_released
        }
        try:
            layout()
        finally:
            heights, self._heights = self._heights, None
        if heights and self._anchors_moved(heights):  # (no frame painted: hidden, or a batch)
            self._rearrange()

    def around_paint(self, paint: Callable[[], None]) -> None:
        """Paint, unless the layout just done moved an anchored container: then arrange again
        (which paints)."""
        heights, self._heights = self._heights, None
        if heights and self._anchors_moved(heights):
            self._rearrange()
            return
        paint()

    @staticmethod
    def _anchors_moved(heights: dict[Widget, int]) -> bool:
        """Whether the layout just done changed the height of a container it kept anchored."""
        return any(
            widget.container_size.height != height
            for widget, height in heights.items()
            if widget._anchored and not widget._anchor_released
        )

    def _rearrange(self) -> None:
        """The layout again, at the size of the one just done (its frame painted if shown)."""
        screen = self._screen
        self._rearranging = True
        try:
            screen._refresh_layout(screen._compositor.size)
        finally:
            self._rearranging = False
