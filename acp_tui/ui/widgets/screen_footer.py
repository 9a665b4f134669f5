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

Textual also rebuilds the keys every time a screen's bindings are refreshed, even when the keys
shown stay the same: while the app starts the focus lands on the prompt and the session opens,
and the footer was built three times over (a few dozen widgets, their styles and a layout each
time) before the prompt was ready. `ScreenFooter` rebuilds only when what it shows changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from textual.app import ComposeResult
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
    """A `Footer` that does not rebuild its keys while its screen is covered, nor when the keys
    it would show are the ones it shows."""

    _composed: tuple[object, ...] | None = None
    """What the keys shown were built from (None: none built yet)."""

    def bindings_changed(self, screen: Screen[object]) -> None:
        """Follow the screen's bindings unless another screen covers it."""
        if not covered(screen):
            super().bindings_changed(screen)

    def compose(self) -> ComposeResult:
        self._composed = self.shown_keys() if self._bindings_ready else None
        yield from super().compose()

    async def recompose(self) -> None:
        if not self.is_attached:  # (removed meanwhile: Textual's recompose does nothing)
            return
        if self._composed is not None and self.shown_keys() == self._composed:
            return  # the same keys: nothing to rebuild
        await super().recompose()

    def shown_keys(self) -> tuple[object, ...]:
        """Everything `Footer.compose` builds the keys from, as one comparable value."""
        active = self.screen.active_bindings
        keys: Iterable[tuple[object, ...]] = (
            (
                binding.key,
                self.app.get_key_display(binding),
                binding.description,
                binding.action,
                enabled,
                tooltip,
                binding.group,
            )
            for (_, binding, enabled, tooltip) in active.values()
            if binding.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        shows_palette = self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE
        palette_key = palette[1:] if palette is not None and shows_palette else None
        return (*keys, palette_key, self.combine_groups)


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
