"""The main screen's footer, left alone while another screen covers it.

Textual's `Footer` rebuilds its keys whenever its screen's bindings change, and a screen's
bindings "change" when another screen is pushed over it: the hidden footer was rebuilt (and its
screen laid out again) on every push, ~20 ms of work nobody sees (a third of what opening the
traffic inspector may take). This footer skips that; when its screen comes back Textual
refreshes the bindings again and the keys are rebuilt then, as they were.

The footer draws the screen's `active_bindings` in their order, and Textual orders them by the
focus chain: a key the focused widget also binds (the prompt's TextArea binds f6) is listed
where that widget lists it. So the keys moved when the focus did (a permission question taking
the focus as a turn starts sent `f6 model` from first to eighth). `in_stable_order` gives a
screen one order whatever has the focus: the focused widget's own keys first, then the
screen's in the order it declares them, then the app's.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.binding import ActiveBinding, Binding, BindingType
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
        """Follow the screen's bindings unless another screen covers it."""
        if not covered(screen):
            super().bindings_changed(screen)


def in_stable_order(
    active: dict[str, ActiveBinding], screen: Screen[object], declared: Sequence[BindingType]
) -> dict[str, ActiveBinding]:
    """`active` (a screen's active bindings) in an order that does not depend on the focus:
    the focused widget's keys first (as Textual lists them), then the screen's in the order of
    `declared` (its BINDINGS; by action, so a remapped key keeps its place), then the rest of
    the screen's and the app's."""
    actions = [b.action for b in declared if isinstance(b, Binding)]

    def rank(item: tuple[int, tuple[str, ActiveBinding]]) -> tuple[int, int]:
        position, (_, found) = item
        if found.node is screen:
            action = found.binding.action
            return (1, actions.index(action)) if action in actions else (2, position)
        if found.node is screen.app:
            return (3, position)
        return (0, position)

    return dict(pair for _, pair in sorted(enumerate(active.items()), key=rank))
