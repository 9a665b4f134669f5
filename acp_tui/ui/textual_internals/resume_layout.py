"""A screen shown again is laid out only if it must be; at a new size, laid out right at once.

`App.switch_mode` lays the screen it switches to out again (`Screen._screen_resized`, a full
arrangement of every widget) even when the terminal kept its size: on a tab holding a long
conversation that was the largest part of a switch. A screen keeps its arrangement while
suspended, and whatever changed in it meanwhile asked for a layout that is still pending (done
by the screen's next update once it is current), so only a new size needs one here.

At a new size one arrangement is not enough: the compositor keeps a container anchored to its
bottom (the conversation following its end) by scrolling it to its content's bottom less its
`container_size`, which is still the one of the previous arrangement (it is updated after the
reflow). The first arrangement at a new height is scrolled by the change (grown: content moved
up, blank rows at the bottom; shrunk: the end cut off), and it was painted at once (a tab
switched to after the terminal was resized while it was hidden showed that frame). So at a new
size the screen is arranged twice with no frame painted between: the second arrangement
anchors with the container sizes of the first.
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.screen import Screen


class KeepLayoutOnSwitch(Screen[Any]):
    """Lay out on a switch to this screen only when the terminal's size changed (then twice,
    painting once)."""

    _arranged_for: Size | None = None
    """The size of the last layout asked through `_screen_resized` (None: none yet)."""

    def _screen_resized(self, size: Size) -> None:
        if self.is_attached and size == self._arranged_for:
            return
        if not (self.is_attached and self.stack_updates):
            super()._screen_resized(size)
            return
        resized = self._arranged_for is not None
        self._arranged_for = size
        if not resized:
            super()._screen_resized(size)
            return
        with self.app.batch_update():  # (frames are painted after both arrangements)
            super()._screen_resized(size)
            super()._screen_resized(size)
