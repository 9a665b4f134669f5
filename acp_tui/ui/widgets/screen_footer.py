"""The main screen's footer, left alone while another screen covers it.

Textual's `Footer` rebuilds its keys whenever its screen's bindings change, and a screen's
bindings "change" when another screen is pushed over it: the hidden footer was rebuilt (and its
screen laid out again) on every push, ~20 ms of work nobody sees (a third of what opening the
traffic inspector may take). This footer skips that; when its screen comes back Textual
refreshes the bindings again and the keys are rebuilt then, as they were.
"""

from __future__ import annotations

from textual.screen import Screen
from textual.widgets import Footer


def covered(screen: Screen[object]) -> bool:
    """Whether an opaque screen is above `screen` on the app's stack (it cannot be seen; under a
    modal with a see-through background it can)."""
    stack = screen.app.screen_stack
    if screen not in stack:
        return False
    above = stack[stack.index(screen) + 1 :]
    return any(other.styles.background.a == 1 for other in above)


class ScreenFooter(Footer):
    """A `Footer` that does not rebuild its keys while its screen is covered."""

    def bindings_changed(self, screen: Screen[object]) -> None:
        if not covered(screen):
            super().bindings_changed(screen)
