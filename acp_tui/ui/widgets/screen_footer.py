"""The main screen's footer, left alone while another screen covers it.

Textual's `Footer` rebuilds its keys whenever its screen's bindings change, and a screen's
bindings "change" when another screen is pushed over it: the hidden footer was rebuilt (and its
screen laid out again) on every push, ~20 ms of work nobody sees (a third of what opening the
traffic inspector may take). This footer skips that; when its screen comes back Textual
refreshes the bindings again and the keys are rebuilt then, as they were.

A screen shown again (its tab switched to) refreshes its bindings too, and the footer was
rebuilt each time with the same keys (new key widgets styled and the screen laid out again, the
largest part of a switch): it is rebuilt only when the keys it would draw differ from the ones
it shows. The keys it removes are let go (Textual kept every key it ever built alive, through
the `compact` each key binds to).

A turn's start shows the cancel key and its end hides it again: the footer rebuilt its keys
twice a turn, new widgets whose old ones were garbage of every turn (and, caught alive by a
turn end's freeze, garbage for good). When every key to show is one the footer has built, in
its order, the keys not to show are hidden instead (`display`), and the same widgets serve
every turn.

The footer draws the screen's `active_bindings` in their order, and Textual orders them by the
focus chain: a key the focused widget also binds (the prompt's TextArea binds f6) is listed
where that widget lists it. So the keys moved when the focus did (a permission question taking
the focus as a turn starts sent `f6 model` from first to eighth). `in_stable_order` gives a
screen one order whatever has the focus: the focused widget's own keys first, then the
screen's in the order it declares them, then the app's.

Keys that do not fit the footer's width were cut off at its right edge (at 80 columns "^t new
session" lost its half under the palette's key). The footer's layout (`FitRowLayout`) leaves
out, whole, the keys that do not fit: those its screen names in `FOOTER_DROPPED_FIRST`, in that
order, then the others from the right, except those in `FOOTER_KEPT` (help, quit, new session,
the keys a turn needs); and the help key, which lists every key, then reads "f1 more".

Textual's footer builds no key until its screen first refreshes its bindings, then rebuilds:
the keys came after the first frame, and the screen was laid out and painted again for them
on the way to ready. This one builds them with the screen (`build_keys_at_once`); the refresh
then finds the keys it shows and leaves them.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import ActiveBinding, Binding, BindingType
from textual.layout import Layout
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer

from acp_tui.ui.textual_internals import build_keys_at_once, forget_closed_watchers
from acp_tui.ui.textual_internals.fit_row import FitRowLayout


def covered(screen: Screen[object]) -> bool:
    """Whether an opaque screen is above `screen` on the app's stack (it cannot be seen; under a
    modal with a see-through background it can)."""
    stack = screen.app.screen_stack
    if screen not in stack:
        return False
    above = stack[stack.index(screen) + 1 :]
    return any(other.styles.background.a == 1 for other in above)


Keys = tuple[tuple[object, ...], ...]
ShownKey = tuple[str, str, str, str, bool, str, bool]
"""A footer key as built: key, key shown, description, action, disabled, tooltip, palette's."""
KEY_WIDGET = "FooterKey"
"""The class of the key widgets Textual's `Footer` builds."""
COMPACT_CLASS = "-compact"
"""The class a compact key has (`FooterKey.compact`)."""
HELP_ACTION = "help"
MORE_KEYS = "more"
"""The help key's description while the footer leaves out keys that do not fit."""


def shown_key(key: Widget) -> ShownKey:
    """What `key` (a `FooterKey` the footer built) shows and does."""

    def text(name: str) -> str:
        value = getattr(key, name, "")
        return value if isinstance(value, str) else ""

    disabled, palette = key.has_class("-disabled"), key.has_class("-command-palette")
    return (text("key"), text("key_display"), text("description"), text("action"), disabled,
            text("tooltip"), palette)  # fmt: skip


class ScreenFooter(Footer):
    """A `Footer` that does not rebuild its keys while its screen is covered, nor when they are
    the keys it shows already (its screen shown again: a tab switched to)."""

    _drawn: Keys | None = None
    """The keys the footer shows (None: none drawn yet)."""
    _help_said: tuple[Widget, str] | None = None
    """The help key and its own description (it reads "more" while keys are left out)."""

    def __init__(self, *, compact: bool = False) -> None:
        super().__init__(compact=compact)
        self._fit_row = FitRowLayout(self)

    @property
    def layout(self) -> Layout:
        """The keys in a row that leaves out those that do not fit (`FitRowLayout`)."""
        return self._fit_row

    def give_way_order(self, children: list[Widget]) -> list[Widget]:
        """The screen's `FOOTER_DROPPED_FIRST`, in that order, then the keys not in its
        `FOOTER_KEPT` from the right (none on a screen that names neither)."""
        dropped_first: tuple[str, ...] = getattr(self.screen, "FOOTER_DROPPED_FIRST", ())
        kept: tuple[str, ...] = getattr(self.screen, "FOOTER_KEPT", ())
        if not (dropped_first or kept):
            return []
        first = [key for action in dropped_first for key in children if _action(key) == action]
        return first + [key for key in reversed(children)
                        if _action(key) not in kept and key not in first]  # fmt: skip

    def left_out(self, children: list[Widget]) -> bool:
        """The help key reads "more" while keys are left out (the same width as "help"); True
        if it changed."""
        help_key = next(
            (key for key in self.query_children("FooterKey") if _action(key) == HELP_ACTION),
            None,
        )
        if help_key is None:
            return False
        said = self._said(help_key)
        self._help_said = (help_key, said)
        description = MORE_KEYS if children else said
        if _description(help_key) == description:
            return False
        help_key.description = description  # type: ignore[attr-defined]
        help_key.refresh()
        return True

    def _said(self, help_key: Widget) -> str:
        """The help key's own description (the layout may have made it "more")."""
        if self._help_said is not None and self._help_said[0] is help_key:
            return self._help_said[1]
        return _description(help_key)

    def _as_built(self, key: Widget) -> ShownKey:
        """`shown_key(key)`, the help key with its own description."""
        shown = shown_key(key)
        if self._help_said is not None and self._help_said[0] is key:
            shown = (shown[0], shown[1], self._help_said[1], *shown[3:])
        return shown

    def bindings_changed(self, screen: Screen[object]) -> None:
        if covered(screen):
            return
        keys = self._keys(screen)
        if self._drawn is not None and self._drawn == keys:
            return
        if self._drawn is not None and screen is self.screen and self._show_only(screen):
            self._drawn = keys
            return
        super().bindings_changed(screen)

    async def recompose(self) -> None:
        """Rebuild the keys, unless they are the ones drawn by now: a change of the bindings asks
        for a rebuild after the next refresh, and several changes before it (the focus set, the
        session's state, while the app starts) each asked for one, of the same keys."""
        if self._drawn is not None and self.is_attached and self._drawn == self._keys(self.screen):
            return
        await super().recompose()

    def _show_only(self, screen: Screen[object]) -> bool:
        """Show the built keys `screen` binds now and hide the others, if all of them are built
        and in the order to show them; False (nothing changed) otherwise."""
        built = list(self.query_children("FooterKey"))
        if len(built) != len(self.children):  # (binding groups: labels, keys in a group)
            return False
        where = {self._as_built(key): index for index, key in enumerate(built)}
        wanted = self._wanted(screen)
        if any(key not in where for key in wanted):
            return False
        places = [where[key] for key in wanted]
        if places != sorted(places):
            return False
        shown = set(wanted)
        for key in built:
            key.display = self._as_built(key) in shown
        return True

    def _wanted(self, screen: Screen[object]) -> list[ShownKey]:
        """The keys `Footer.compose` would build for `screen` (no binding groups), as
        `shown_key` describes a built one."""
        app = self.app
        first: dict[str, tuple[Binding, bool, str]] = {}
        active = screen.active_bindings
        for _, binding, enabled, tooltip in active.values():
            if binding.show:
                first.setdefault(binding.action, (binding, enabled, tooltip))
        wanted = [
            (binding.key, app.get_key_display(binding), binding.description, binding.action,
             not enabled, tooltip or "", False)
            for binding, enabled, tooltip in first.values()
        ]  # fmt: skip
        palette = active.get(app.COMMAND_PALETTE_BINDING)
        if palette is not None and self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            _, binding, enabled, _ = palette
            tip = binding.tooltip or binding.description
            wanted.append(
                (binding.key, app.get_key_display(binding), binding.description, binding.action,
                 not enabled, tip, True)
            )  # fmt: skip
        return wanted

    def compose(self) -> ComposeResult:
        forget_closed_watchers(self)  # (the keys removed for this rebuild: else kept for good)
        build_keys_at_once(self)  # (with the screen, not in a rebuild after the first frame)
        keys = self._keys(self.screen)
        drawn = False
        for child in super().compose():
            drawn = True
            if type(child).__name__ == KEY_WIDGET:
                # (a new key's `compact` starts True, and its watcher adds this class once the
                # key is mounted: each key was styled twice. Given at once, styled once; a
                # footer that is not compact takes the class away through the binding, as then)
                child.add_class(COMPACT_CLASS, update=False)
            yield child
        self._drawn = keys if drawn else None

    def _keys(self, screen: Screen[object]) -> Keys:
        """What the footer draws of `screen`'s bindings (see `Footer.compose`)."""
        app = self.app
        shown = [
            (binding.key, app.get_key_display(binding), binding.description, binding.action,
             binding.show, enabled, tooltip, binding.group)
            for key, (_, binding, enabled, tooltip) in screen.active_bindings.items()
            if binding.show or key == app.COMMAND_PALETTE_BINDING
        ]  # fmt: skip
        palette = (self.show_command_palette, app.ENABLE_COMMAND_PALETTE, self.compact)
        return (palette, *shown)


def _action(key: Widget) -> str:
    value = getattr(key, "action", "")
    return value if isinstance(value, str) else ""


def _description(key: Widget) -> str:
    value = getattr(key, "description", "")
    return value if isinstance(value, str) else ""


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
