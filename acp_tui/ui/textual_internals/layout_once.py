"""One layout per change of size, not two.

A layout (`Screen._refresh_layout`) arranges every widget and then tells each one its new size
and virtual size. Textual sets the virtual size through a reactive declared ``layout=True``, so
every widget whose content grew (a streaming message, its message view, the conversation that
scrolls it) asks for *another* layout of a screen that was just laid out with exactly those
sizes: each growth of a streamed message cost two full layouts (4.4 ms and 2.7 ms on a 120x40
screen). `LayoutOnce` sets the virtual sizes during its own layout without asking for a
layout; everything else that reactive does stays (the widgets still repaint), and a scrollbar
that appears or goes still asks for the layout it needs (its own reactive).
"""

from __future__ import annotations

from typing import Any

from textual.geometry import Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.widget import Widget

_VIRTUAL_SIZE: Reactive[Size] = Widget.__dict__["virtual_size"]


class LayoutOnce(Screen[Any]):
    """A screen whose layouts do not ask for a second layout (see the module docstring)."""

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        asks, _VIRTUAL_SIZE._layout = _VIRTUAL_SIZE._layout, False
        try:
            super()._refresh_layout(size, scroll)
        finally:
            _VIRTUAL_SIZE._layout = asks
