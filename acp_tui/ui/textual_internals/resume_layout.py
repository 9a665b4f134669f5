"""A screen shown again is laid out only if it must be; at a new size, laid out right at once.

`App.switch_mode` lays the screen it switches to out again (`Screen._screen_resized`, a full
arrangement of every widget) even when the terminal kept its size: on a tab holding a long
conversation that was the largest part of a switch. A screen keeps its arrangement while
suspended, and whatever changed in it meanwhile asked for a layout that is still pending (done
by the screen's next update once it is current), so only a new size needs one here.

At a new size one arrangement is enough: the conversation, anchored to its bottom, gets a new
height, and `AnchorAtNewHeight` (`anchor_layout.py`) arranges it again before the frame is
painted (Textual anchors it with its height of the previous arrangement: a tab switched to after
the terminal was resized while it was hidden was painted scrolled by the change, blank rows at
the bottom or its end cut off).

A step of `EngineScreen` (`engine.py`, its `_screen_resized`).
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.screen import Screen


class KeepLayoutOnSwitch:
    """Lay out on a switch to the screen only when the terminal's size changed."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._arranged_for: Size | None = None
        """The size of the last layout asked through `_screen_resized` (None: none yet)."""

    def needs_layout(self, size: Size) -> bool:
        """Whether the screen, told the terminal's size is `size`, must be laid out."""
        screen = self._screen
        if screen.is_attached and size == self._arranged_for:
            return False
        if screen.is_attached and screen.stack_updates:
            self._arranged_for = size
        return True
