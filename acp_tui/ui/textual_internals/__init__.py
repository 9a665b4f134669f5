"""The one door to Textual's private parts.

acp-tui uses a few things Textual does not promise to keep. Every such use lives in this package
and nowhere else (`tests/ui/test_textual_internals.py` checks each use against the installed
Textual, failing with a message naming what changed, and scans the rest of `acp_tui` for private
Textual names); `pyproject.toml` bounds Textual to the major version those tests ran on.

What acp-tui changes in a screen or the app is done by one screen class and one app class,
`EngineScreen` and `EngineApp` (`engine.py`): each private hook overridden once, running its
steps (one small module each) in the order written there. `tests/ui/test_engine.py` runs each
step against stock Textual: the same widgets and events, the same screen, the work counted.

- `App._driver`: write escape sequences Textual has no API for (OSC 52 copy, OSC 9/777).
- `App._keymap`: the key the user's keymap binds to a binding id, to show it on a button.
- `App._handle_exception`: report an error raised in a loop callback as Textual does its own.
- `App._register`: mount an installed screen in the background (as `push_screen` does).
- `Screen._compositor`: install `FrameCompositor`, a `RowCompositor` (`row_compositor.py`, a
  subclass of `textual._compositor.Compositor`).
- `Screen._refresh_layout`, `Reactive._layout`: one layout per growth (`layout_once.py`);
  `Screen._compositor_refresh`, `Compositor._dirty_regions`, `Widget._repaint_required` and
  `Widget._repaint_regions`: one frame per layout (the repaints it already painted dropped).
- `Widget._set_dirty`, `Widget._layout_cache`, `Widget._rich_style_cache`,
  `Screen._dirty_widgets`, `Screen._update_timer`, `App._batch_count`: a streamed line repainted
  without the three messages `refresh` costs (`quick_repaint.py`, a step of `EngineScreen`).
- `Widget._repaint_required`, `Widget._layout_required`, `Screen._dirty_widgets`,
  `Screen._layout_required`: whether what a widget asked for is drawn yet (`repaint_pending`:
  a streamed message is redrawn from its data only once its last lines are on the screen).
- `App._register`, `Widget._vertical_scrollbar`, `App._start_widget`: the conversation's
  scrollbar paints its own lines (`quick_scrollbar.py`, a step of `EngineApp`, with
  `ScrollBarRender.render_bar`).
- `Screen._refresh_layout`, `Screen._compositor_refresh`, `Widget._anchored`,
  `Widget._anchor_released`, `Compositor.widgets`: a layout that changed the height of a
  container anchored to its bottom is arranged again before it is painted (`anchor_layout.py`).
- `Screen._screen_resized`: no layout on a switch back to a screen of the same size
  (`resume_layout.py`);
  `Screen._on_screen_suspend`/`_on_screen_resume`, `textual._context.NoActiveAppError`: no
  restyle of a resumed screen, the first showing too, unless what styles come from changed: the
  theme, the unscoped CSS, the app's classes (`resume_styles.py`); `Screen._css_update_count`,
  `App._css_update_count`: a screen built takes the app's count, so that its first showing
  refreshes the app's CSS only if the theme changed since (`resume_styles.py`).
- `Compositor._render_chops`, `LayoutUpdate`, `textual._context.visible_screen_stack`,
  `Screen._on_update` and `Screen._compositor_refresh`: a tab shown again paints the frame it
  composed while hidden, with the widgets repainted since drawn anew (`kept_frame.py`).
- `Screen._update_timer`, `Screen._on_timer_update`, `Timer._run`, `Timer._interval`,
  `Timer._active`, `Timer._reset`, `Timer._tick`, `Timer._start`, `MessagePump._timers`: a
  frame asked for is drawn once one frame's time has passed since the last began, not a tick
  later (`frame_pacing.py`).
- `textual._resolve.resolve_box_models` and `Widget.layout` overridden: a row of buttons that
  wraps within the layout itself (`wrap_layout.py`: a permission card's options at 80 columns).
- `Widget.layout` overridden and `Widget._clear_arrangement_cache`: a row that leaves out, within
  the layout itself, the children that do not fit (`fit_row.py`: the footer's keys at 80 columns).
- `App.delay_update` as `App.switch_mode` calls it (50 ms of no frames): not on a switch to a
  screen that is built (`switch_at_once.py`).
- `RenderStyles._cache_key`: whether a widget's look changed, without walking its styles.
- `Widget._check_refresh`: a layout a widget asked for told to its screen at once, not at the
  widget's next idle (`tell_screen_now`: the tab bar shown while its tab is hidden).
- `textual._styles_cache.StylesCache.get_inner_outer`: an `lru_cache(1024)` on a method, so
  its keys hold the widgets' style caches (and every line they rendered) after the widgets are
  gone; a long session kept up to 1,024 dead widgets' lines. Cleared when a turn settles.
- `Widget._clear_arrangement_cache`: a parent's last four arrangements hold the children it
  removed (`release_removed_children`, before the turn end's collection).
- A node's ``__watchers`` (what `data_bind` and `watch` add to the watched node) and
  `MessagePump._closing`/`_closed`: the watchers closed widgets left, forgotten
  (`forget_closed_watchers`: the footer's old keys).
- `Widget._styles_cache`, `Widget._vertical_scrollbar` (and the horizontal one, the corner):
  the lines a widget rendered, dropped before the turn end's collection (`drop_rendered_lines`).
- `textual._spatial_map.SpatialMap` (subclassed) and `DockArrangeResult._spatial_map`: the
  conversation's frozen history kept out of the grid that finds the children on the screen
  (`tall_regions.py`: filling it grew with the history, at each arrangement).
- `textual._ansi_sequences.ANSI_SEQUENCES_KEYS`: ESC + a digit read as alt+digit
  (`read_alt_digits`).
- `Screen._modal_binding_chain`: the bindings Textual reads a key against, the keymap applied
  (`priority_bindings`: the app's priority keys, which the footer shows as the app's).
- `Footer._bindings_ready`: a footer builds its keys in its first compose, with its screen
  (`build_keys_at_once`), not in a rebuild after the first frame.
"""

from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from textual.app import App
    from textual.binding import Binding
    from textual.css.styles import RenderStyles
    from textual.dom import DOMNode
    from textual.screen import Screen
    from textual.widget import Widget
    from textual.widgets import Footer

    from acp_tui.ui.textual_internals.row_compositor import RowCompositor


def write_to_terminal(app: App[Any], sequence: str) -> bool:
    """Write `sequence` to the terminal as is; False when there is none (headless, quitting)."""
    driver = app._driver
    if driver is None:
        return False
    driver.write(sequence)
    return True


def bound_keys(app: App[Any], binding_id: str, default: str) -> str:
    """The keys the user's keymap binds to `binding_id` ("a,ctrl+a"), else `default`."""
    return app._keymap.get(binding_id, default)


def report_error(app: App[Any], error: Exception) -> None:
    """Report `error` as Textual reports an exception in a handler (logged, the app exits)."""
    app._handle_exception(error)


def register_screen(app: App[Any], screen: Screen[Any]) -> None:
    """Compose and mount an installed `screen` off the stack, as `push_screen` does first."""
    app._register(app, screen)


def repaint_pending(widget: Widget) -> bool:
    """Whether a repaint or layout `widget` asked for is still to be drawn by its screen."""
    if widget._repaint_required or widget._layout_required:
        return True
    screen = widget.screen
    return widget in screen._dirty_widgets or screen._layout_required


def tell_screen_now(widget: Widget) -> None:
    """Tell `widget`'s screen now what `widget` asked for (`refresh`, a change of `display`:
    a layout, a repaint), not at the widget's next idle.

    Textual's `refresh` only marks the widget; at its idle the widget clears its parents'
    arrangement caches and posts `Layout` to its screen. That idle may come after the screen's
    next frame (the widgets' queues are served in no set order): a frame painted meanwhile has
    the old arrangement, and a layout then would take the parent's cached one. Told now, the
    screen gets the message before any posted after (a switch to it: its resume)."""
    widget._check_refresh()


def use_compositor(screen: Screen[Any], compositor: RowCompositor) -> None:
    """Make `screen` arrange and paint with `compositor` (set before the screen is mounted)."""
    screen._compositor = compositor


def styles_key(styles: RenderStyles) -> object:
    """A value that changes whenever any rule of `styles` changes."""
    return styles._cache_key


def priority_bindings(screen: Screen[Any]) -> list[tuple[str, Binding]]:
    """The keys the app binds with priority as Textual reads them on `screen`: from the
    screen's binding chain, with the user's keymap applied (a remapped binding under its new
    key). Textual asks the app's priority bindings first, so on those keys the app's win."""
    app = screen.app
    return [
        (key, binding)
        for node, bindings in screen._modal_binding_chain
        if node is app
        for key, binding in bindings
        if binding.priority
    ]


def release_dead_widget_renders() -> None:
    """Let the lines that removed widgets rendered be freed.

    Textual caches `StylesCache.get_inner_outer` with `lru_cache(1024)` on the method, so each
    key holds a widget's `StylesCache` (with every strip it rendered) alive after the widget
    was removed. Clearing it costs the live widgets one small recomputation each.
    A fix Textual could take upstream: a cache per `StylesCache`, not one on the method."""
    from textual._styles_cache import StylesCache

    StylesCache.get_inner_outer.cache_clear()


def release_removed_children(parent: Widget) -> None:
    """Let the children removed from `parent` be freed before its next layout.

    Until then Textual still holds them: the parent's arrangement cache (its last four
    layouts) and its list of displayed children (recomputed when next read). A turn end's
    collection would find them alive and freeze them, to die later as garbage no collection
    walks (a removed widget is full of cycles). Costs the parent one arrangement."""
    parent._clear_arrangement_cache()
    _ = parent.displayed_children  # (read again: the list of the removed ones is dropped)


def forget_closed_watchers(node: DOMNode) -> None:
    """Forget the watchers that closed widgets left on `node`'s reactives.

    `data_bind` and `watch` add (widget, callback) to a list kept on the watched node, and
    Textual drops the closed widgets' entries only when that reactive next changes. A `Footer`'s
    keys bind its `compact`, which never changes: every rebuild of the keys (a turn starts, a
    turn ends) kept the old keys alive for good, about seven widgets a turn."""
    watchers: dict[str, list[tuple[Any, Any]]] = getattr(node, "__watchers", {})
    for entries in watchers.values():
        entries[:] = [
            (reactable, callback)
            for reactable, callback in entries
            if not (reactable._closing or reactable._closed)
        ]


def build_keys_at_once(footer: Footer) -> None:
    """Let `footer` build its keys when it is first composed.

    Textual's `Footer` composes nothing until its screen first refreshes its bindings (after
    the focus is set), and then rebuilds: its keys mounted in a second pass, after the first
    frame, the screen laid out and painted again for them. A footer that skips a rebuild to
    the keys it shows (acp-tui's `ScreenFooter`, which draws them in one order whatever has
    the focus) can build them with the screen: the refresh then rebuilds them only if the
    focus set meanwhile changed them."""
    from textual.widgets import Footer

    footer.set_reactive(Footer._bindings_ready, True)


def drop_rendered_lines(screen: Widget) -> None:
    """Drop the lines the widgets of `screen` (and their scrollbars) rendered: drawn again when
    next painted.

    A Textual `Strip` refers to itself through its caches (divided at its own length it caches
    ``[self]``), so only a collection frees it. Kept over the turn end's collection, the
    strips on the screen would be frozen with it and, replaced on the next turn, stay there as
    garbage no collection walks (about 80 strips a turn, each with its caches)."""
    from textual.widget import Widget

    for widget in screen.walk_children(Widget, with_self=True):
        widget._styles_cache.clear()
        for bar in (
            widget._vertical_scrollbar,
            widget._horizontal_scrollbar,
            widget._scrollbar_corner,
        ):
            if bar is not None:
                bar._styles_cache.clear()


class _AltDigit(Enum):
    """Key names for ESC + a digit, as `textual._ansi_sequences` maps a sequence to keys."""

    ALT_1 = "alt+1"
    ALT_2 = "alt+2"
    ALT_3 = "alt+3"
    ALT_4 = "alt+4"
    ALT_5 = "alt+5"
    ALT_6 = "alt+6"
    ALT_7 = "alt+7"
    ALT_8 = "alt+8"
    ALT_9 = "alt+9"


def read_alt_digits() -> None:
    """Make ESC + 1…9 (what xterm, tmux and most terminals send for alt+1…9) the keys
    `alt+1`…`alt+9`, as ESC + a letter is `alt+letter`.

    `textual._ansi_sequences.ANSI_SEQUENCES_KEYS` maps them to the characters WezTerm's macOS
    Option row types ("\\x1b1" is "¡", "\\x1b2" is "™"), so alt+N typed "¡" into the prompt and
    no binding saw it. A key name without a character is typed into no text area.
    Process-wide (Textual has one table): set once by the launch (`runtime.read_terminal_keys`)."""
    from textual._ansi_sequences import ANSI_SEQUENCES_KEYS

    sequences = cast("dict[str, object]", ANSI_SEQUENCES_KEYS)  # a dict typed as a Mapping
    for key in _AltDigit:
        sequences[f"\x1b{key.value[-1]}"] = (key,)
