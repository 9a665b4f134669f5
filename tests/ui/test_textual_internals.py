"""Every private Textual use lives in `acp_tui.ui.textual_internals`, and each still works with the
installed Textual: a Textual release that renames or reshapes one fails here, naming it."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from typing import Any

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.reactive import Reactive
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

import acp_tui.ui
from acp_tui.ui import textual_internals
from acp_tui.ui.textual_internals import (
    bound_keys,
    read_alt_digits,
    register_screen,
    report_error,
    styles_key,
    tell_screen_now,
    use_compositor,
    write_to_terminal,
)
from acp_tui.ui.textual_internals.engine import EngineScreen
from acp_tui.ui.textual_internals.quick_repaint import repaint_soon
from acp_tui.ui.textual_internals.row_compositor import RowCompositor

DOOR = Path(textual_internals.__file__).parent
UI = Path(acp_tui.ui.__file__).parent
PACKAGE = UI.parent


def _has(owner: object, name: str, what: str) -> Any:
    value = inspect.getattr_static(owner, name, None)
    assert value is not None, f"Textual changed: {what} ({owner!r}.{name}) is gone"
    return value


def _params(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)


class Plain(App[None]):
    BINDINGS = [Binding("ctrl+y", "noop", "noop", id="test.noop")]

    def compose(self) -> ComposeResult:
        yield Static("x")


async def test_driver_writes_to_the_terminal() -> None:
    app = Plain()
    async with app.run_test():
        assert app._driver is not None, "Textual changed: App._driver is gone"
        written: list[str] = []
        app._driver.write = written.append  # type: ignore[method-assign,assignment]
        assert write_to_terminal(app, "\x1b]9;hi\x07")
        assert written == ["\x1b]9;hi\x07"]


async def test_keymap_names_the_bound_key() -> None:
    app = Plain()
    async with app.run_test():
        assert bound_keys(app, "test.noop", "ctrl+y") == "ctrl+y"
        app.set_keymap({"test.noop": "f9"})
        assert bound_keys(app, "test.noop", "ctrl+y") == "f9", "Textual changed: App._keymap"


def test_handle_exception_takes_the_error() -> None:
    assert _params(_has(App, "_handle_exception", "App._handle_exception")) == ["self", "error"]
    assert callable(report_error)


async def test_register_mounts_an_installed_screen_off_the_stack() -> None:
    assert _params(_has(App, "_register", "App._register"))[:3] == ["self", "parent", "widgets"]

    class Other(Screen[None]):
        def compose(self) -> ComposeResult:
            yield Static("other", id="other")

    app = Plain()
    async with app.run_test() as pilot:
        app.install_screen(Other(), "other")
        other = app.get_screen("other")
        register_screen(app, other)
        await pilot.pause()
        assert other.query_one("#other").is_mounted
        assert other not in app.screen_stack


async def test_a_screen_paints_with_the_compositor_given() -> None:
    class Rows(Screen[None]):
        def __init__(self) -> None:
            super().__init__()
            use_compositor(self, RowCompositor())

        def compose(self) -> ComposeResult:
            yield Static("painted", id="painted")

    class WithRows(App[None]):
        def on_mount(self) -> None:
            self.push_screen(Rows())

    app = WithRows()
    async with app.run_test() as pilot:
        await pilot.pause()
        compositor = _has(app.screen, "_compositor", "Screen._compositor")
        assert isinstance(compositor, RowCompositor)
        assert "painted" in "".join(strip.text for strip in app.screen._compositor.render_strips())


def test_compositor_internals_row_compositor_overrides() -> None:
    from textual._compositor import Compositor

    assert _params(_has(Compositor, "_get_renders", "Compositor._get_renders")) == ["self", "crop"]
    assert isinstance(_has(Compositor, "visible_widgets", "Compositor.visible_widgets"), property)


def test_layout_once_internals() -> None:
    refresh = _has(Screen, "_refresh_layout", "Screen._refresh_layout")
    assert _params(refresh) == ["self", "size", "scroll"]
    virtual_size = Widget.__dict__.get("virtual_size")
    assert isinstance(virtual_size, Reactive), "Textual changed: Widget.virtual_size"
    assert virtual_size._layout is True, "Textual changed: Reactive._layout of virtual_size"
    assert Size(1, 1)  # the layout's size type is still there
    assert _params(_has(Screen, "_compositor_refresh", "Screen._compositor_refresh")) == ["self"]


def test_quick_scrollbar_internals() -> None:
    from textual.scrollbar import ScrollBarRender

    start = _has(App, "_start_widget", "App._start_widget")
    assert _params(start) == ["self", "parent", "widget"]
    register = _params(_has(App, "_register", "App._register"))
    assert register == ["self", "parent", "widgets", "before", "after", "cache"]
    _has(ScrollBarRender, "render_bar", "ScrollBarRender.render_bar")
    bar = _params(ScrollBarRender.render_bar)
    assert bar == [
        "size",
        "virtual_size",
        "window_size",
        "position",
        "thickness",
        "vertical",
        "back_color",
        "bar_color",
    ]


async def test_quick_scrollbar_replaces_the_private_scrollbar() -> None:
    app = Plain()
    async with app.run_test():
        static = app.query_one(Static)
        assert static._vertical_scrollbar is None, "Textual changed: Widget._vertical_scrollbar"


async def test_layout_once_repaint_internals() -> None:
    app = Plain()
    async with app.run_test():
        static = app.query_one(Static)
        assert isinstance(static._repaint_required, bool), "Textual changed: _repaint_required"
        assert isinstance(static._repaint_regions, set), "Textual changed: _repaint_regions"
        static.refresh()
        assert static._repaint_required, "Textual changed: refresh() sets _repaint_required"
        compositor = app.screen._compositor
        assert isinstance(compositor._dirty_regions, set), "Textual changed: _dirty_regions"


async def test_repaint_pending_until_the_screen_draws_it() -> None:
    app = Plain()
    async with app.run_test() as pilot:
        static = app.query_one(Static)
        await pilot.pause()
        assert not textual_internals.repaint_pending(static), "Textual changed: idle flags"
        static.refresh()
        assert textual_internals.repaint_pending(static), "Textual changed: _repaint_required"
        await pilot.pause()
        assert not textual_internals.repaint_pending(static), "Textual changed: the drawn flags"
        static.refresh(layout=True)
        assert textual_internals.repaint_pending(static), "Textual changed: _layout_required"
        await pilot.pause()
        assert not textual_internals.repaint_pending(static)
        screen = app.screen
        assert isinstance(screen._dirty_widgets, set), "Textual changed: _dirty_widgets"
        assert isinstance(screen._layout_required, bool), "Textual changed: _layout_required"


class Counted(Widget):
    """One line of text; counts the lines the compositor asks it for."""

    DEFAULT_CSS = "Counted { height: 3; }"
    text = "before"
    asked = 0

    def render_line(self, y: int) -> Strip:
        self.asked += 1
        return Strip([Segment(self.text if y == 0 else "")])


class CountedScreen(EngineScreen):
    def compose(self) -> ComposeResult:
        yield Counted()


class CountedApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(CountedScreen())


async def test_quick_repaint_paints_the_region_in_the_next_frame() -> None:
    """`repaint_soon` on an engine's screen (Widget._set_dirty, _layout_cache, _rich_style_cache,
    Screen._dirty_widgets, _update_timer, App._batch_count): the region painted by the next
    frame, not refreshed."""
    for name in ("_set_dirty", "_layout_cache", "_rich_style_cache"):
        assert hasattr(Widget, name) or name in Widget.__init__.__code__.co_names, name
    assert _params(_has(Widget, "_set_dirty", "Widget._set_dirty")) == ["self", "regions"]
    _has(Screen, "_update_timer", "Screen._update_timer")
    app = CountedApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        counted = app.screen.query_one(Counted)
        assert isinstance(app._batch_count, int), "Textual changed: App._batch_count"
        counted.text, counted.asked = "after", 0
        repaint_soon(counted, Region(0, 0, counted.size.width, 1))
        assert not counted._repaint_required, "refreshed (its idle would post an Update)"
        assert textual_internals.repaint_pending(counted)
        await pilot.pause()
        assert counted.asked == 1, "Textual changed: the region is not painted by the next frame"
        assert not textual_internals.repaint_pending(counted)


def test_frame_pacing_internals() -> None:
    """`PacedFrames` replaces `Screen._update_timer` (a property made with `set_interval`, paused
    by `Screen._on_timer_update` and resumed at the screen's idle); `PacedTimer` overrides
    `Timer._run` and uses `_interval`, `_active`, `_reset`, `_tick` and `_start`."""
    from textual.screen import UPDATE_PERIOD
    from textual.timer import Timer

    assert isinstance(_has(Screen, "_update_timer", "Screen._update_timer"), property)
    assert _params(_has(Screen, "_on_timer_update", "Screen._on_timer_update")) == ["self"]
    assert callable(getattr(Plain()._timers, "add", None)), "Textual changed: MessagePump._timers"
    assert isinstance(UPDATE_PERIOD, float)
    for name in ("_run", "_tick", "_start", "_run_timer", "_active"):
        _has(Timer, name, f"Timer.{name}")
    assert _params(Timer._tick) == ["self", "next_timer", "count"]
    timer = Timer(Plain(), 0.1, pause=True)
    assert (timer._interval, timer._reset) == (0.1, False), "Textual changed: Timer's fields"
    assert not timer._active.is_set(), "Textual changed: Timer._active (an asyncio.Event)"


def test_resume_layout_internals() -> None:
    """`KeepLayoutOnSwitch` is run by `Screen._screen_resized` (what it saves: `test_engine.py`)."""
    resized = _has(Screen, "_screen_resized", "Screen._screen_resized")
    assert _params(resized) == ["self", "size"]
    assert _params(_has(Screen, "_on_screen_suspend", "Screen._on_screen_suspend")) == ["self"]
    resume = _has(Screen, "_on_screen_resume", "Screen._on_screen_resume")
    assert _params(resume) == ["self", "event"]


async def test_resume_styles_internals() -> None:
    """`KeepStylesOnResume` reads these (what it saves: `test_engine.py`)."""
    from textual._context import NoActiveAppError
    from textual.css.stylesheet import CssSource

    with pytest.raises(NoActiveAppError):
        _ = Screen().app
    assert list(CssSource._fields) == ["content", "is_defaults", "tie_breaker", "scope"]
    app = Plain()
    async with app.run_test():
        sources = app.stylesheet.source
        assert all(isinstance(source, CssSource) for source in sources.values())
        scoped = [where for where, source in sources.items() if source.scope]
        assert any(name == "Static.DEFAULT_CSS" for _, name in scoped)
        assert app.theme_variables, "Textual changed: App.theme_variables"
        assert isinstance(app._css_update_count, int), "Textual changed: App._css_update_count"
        assert Screen()._css_update_count == -1, "Textual changed: Screen._css_update_count"


async def test_anchor_layout_internals() -> None:
    """`AnchorAtNewHeight` reads these (what it changes: `test_anchor_layout.py`)."""
    app = Plain()
    async with app.run_test() as pilot:
        await pilot.pause()
        static = app.query_one(Static)
        assert static._anchored is False, "Textual changed: Widget._anchored"
        assert static._anchor_released is False, "Textual changed: Widget._anchor_released"
        assert static in app.screen._compositor.widgets, "Textual changed: Compositor.widgets"


def test_kept_frame_internals() -> None:
    """`FrameCompositor` and `KeepFrameOnSwitch` use these, as Textual names and calls them."""
    from textual import _compositor, _context

    _has(_context, "visible_screen_stack", "textual._context.visible_screen_stack")
    chops = _has(_compositor.Compositor, "_render_chops", "Compositor._render_chops")
    assert _params(chops) == ["self", "crop", "is_rendered_line"]
    full = _has(_compositor.Compositor, "render_full_update", "Compositor.render_full_update")
    assert _params(full) == ["self", "simplify"]
    assert _params(_compositor.LayoutUpdate) == ["strips", "region"]
    assert _params(_has(Screen, "_on_update", "Screen._on_update")) == ["self", "message"]
    assert _params(_has(Screen, "_on_layout", "Screen._on_layout")) == ["self", "message"]
    refresh = _has(Screen, "_compositor_refresh", "Screen._compositor_refresh")
    assert _params(refresh) == ["self"]


def test_tall_regions_internals() -> None:
    from textual._spatial_map import SpatialMap
    from textual.layout import DockArrangeResult

    assert "_spatial_map" in DockArrangeResult.__dataclass_fields__, (
        "Textual changed: DockArrangeResult._spatial_map"
    )
    assert _params(_has(SpatialMap, "insert", "SpatialMap.insert")) == [
        "self",
        "regions_and_values",
    ]
    assert _params(_has(SpatialMap, "get_values_in_region", "SpatialMap.get_values_in_region")) == [
        "self",
        "region",
    ]


def test_switch_at_once_internals() -> None:
    """`EngineApp` overrides `App.delay_update` and reads `App._batch_count` (what it saves:
    `test_engine.py`)."""
    assert _params(_has(App, "delay_update", "App.delay_update")) == ["self", "delay"]
    assert isinstance(Plain()._batch_count, int), "Textual changed: App._batch_count"


async def test_styles_key_changes_with_a_style() -> None:
    app = Plain()
    async with app.run_test():
        static = app.query_one(Static)
        before = styles_key(static.styles)
        static.styles.padding = (1, 2)
        assert styles_key(static.styles) != before, "Textual changed: RenderStyles._cache_key"


class LateIdle(Static):
    """A line whose own idle never comes (as a widget whose idle comes after the next frame)."""

    DEFAULT_CSS = "LateIdle { height: 1; }"

    async def _on_idle(self, event: Any) -> None:
        event.prevent_default()


class TwoLines(App[None]):
    def compose(self) -> ComposeResult:
        yield LateIdle("first", id="first")
        yield Static("second", id="second")


@pytest.mark.parametrize("told", [False, True])
async def test_a_layout_asked_reaches_the_screen_without_the_widgets_idle(told: bool) -> None:
    """`tell_screen_now` (Widget._check_refresh): a widget hidden is laid out without it by the
    screen's next layout, its own idle not come (without it: still laid out as before)."""
    _has(Widget, "_check_refresh", "Widget._check_refresh")
    app = TwoLines()
    async with app.run_test() as pilot:
        await pilot.pause()
        first, second = app.query_one("#first"), app.query_one("#second")
        assert second.region.y == 1
        first.display = False
        if told:
            tell_screen_now(first)
        await pilot.pause()
        assert (second.region.y == 0) == told, "Textual changed: Widget._check_refresh"


def test_escape_digit_is_read_as_alt_digit() -> None:
    sequences = importlib.import_module("textual._ansi_sequences")
    keys = _has(sequences, "ANSI_SEQUENCES_KEYS", "textual._ansi_sequences.ANSI_SEQUENCES_KEYS")
    assert isinstance(keys, dict), "ANSI_SEQUENCES_KEYS is no longer a dict"
    read_alt_digits()
    parser = importlib.import_module("textual._xterm_parser").XTermParser()
    assert [(e.key, e.character) for e in parser.feed("\x1b2x")] == [("alt+2", None), ("x", "x")]


# ---------------------------------------------------------------------------------- the scan

PRIVATE_IMPORT = re.compile(r"^\s*(from|import)\s+textual\._", re.MULTILINE)
PRIVATE_CHAIN = re.compile(r"\.(app|screen|styles|driver|_driver)\._[a-z]\w*")


def _outside_the_door() -> list[Path]:
    return [p for p in PACKAGE.rglob("*.py") if DOOR not in p.parents]


def test_no_private_textual_import_or_attribute_outside_the_door() -> None:
    found = []
    for path in _outside_the_door():
        text = path.read_text(encoding="utf-8")
        for match in [*PRIVATE_IMPORT.finditer(text), *PRIVATE_CHAIN.finditer(text)]:
            line = text.count("\n", 0, match.start()) + 1
            found.append(f"{path.relative_to(PACKAGE.parent)}:{line}: {match.group(0).strip()}")
    assert found == [], "private Textual use outside acp_tui/ui/textual_internals:\n" + "\n".join(
        found
    )


def _textual_privates(cls: type) -> set[str]:
    names: set[str] = set()
    for base in cls.__mro__:
        if base.__module__.startswith("textual"):
            names |= _privates_of(base)
    return names


@functools.cache
def _privates_of(base: type) -> frozenset[str]:
    """The private names one Textual class defines or assigns (each class's source read once:
    the bases of every widget are the same few, and reading their source is the slow part)."""
    names = {n for n in vars(base) if n.startswith("_") and not n.startswith("__")}
    try:
        source = inspect.getsource(base)
    except (OSError, TypeError):
        return frozenset(names)
    return frozenset(names | set(re.findall(r"self\.(_[A-Za-z]\w*)\s*[:=]", source)))


def test_no_class_outside_the_door_uses_or_overrides_a_private_textual_name() -> None:
    """A subclass of a Textual class that sets or calls one of Textual's private names (often by
    accident: `self._layout = …`) depends on Textual's insides as much as a direct use."""
    clashes = []
    for info in pkgutil.walk_packages(acp_tui.ui.__path__, "acp_tui.ui."):
        if info.name.startswith(textual_internals.__name__):
            continue
        module = importlib.import_module(info.name)
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                continue
            if not any(base.__module__.startswith("textual") for base in cls.__mro__[1:]):
                continue
            source = inspect.getsource(cls)
            own = set(re.findall(r"self\.(_[A-Za-z]\w*)", source))
            own |= set(re.findall(r"def (_[A-Za-z]\w*)\(", source))
            for name in sorted(own & _textual_privates(cls)):
                if not name.startswith("__"):
                    clashes.append(f"{module.__name__}.{cls.__name__}: {name}")
    assert clashes == [], "private Textual names used outside the door:\n" + "\n".join(clashes)


@pytest.mark.parametrize("bound", ["textual>=8", "<9"])
def test_textual_is_bounded_to_the_tested_major(bound: str) -> None:
    import textual

    pyproject = (PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8")
    spec = re.search(r'"textual([^"]*)"', pyproject)
    assert spec is not None
    assert bound.removeprefix("textual") in spec.group(1), spec.group(1)
    assert textual.__version__.split(".")[0] == "8", "the tests ran on another major of Textual"


async def test_a_removed_widgets_rendered_lines_are_freed_once_released() -> None:
    """Textual's `StylesCache.get_inner_outer` cache keeps a removed widget's render cache (and
    every line it drew) alive; `release_dead_widget_renders` lets it go."""
    import gc
    import weakref

    from textual._styles_cache import StylesCache

    from acp_tui.ui.textual_internals import release_dead_widget_renders

    assert hasattr(StylesCache.get_inner_outer, "cache_clear"), "Textual changed get_inner_outer"
    app = Plain()
    async with app.run_test() as pilot:
        doomed = Static("drawn once", id="doomed")
        await app.screen.mount(doomed)
        await pilot.pause()
        cache = weakref.ref(doomed._styles_cache)
        await doomed.remove()
        await app.screen.mount(Static("next"))  # the screen's lists of children move on
        await pilot.pause()
        del doomed
        gc.collect()
        kept = cache() is not None
        release_dead_widget_renders()
        gc.collect()
        assert kept, "Textual no longer keeps removed widgets' caches: the release can go"
        assert cache() is None


async def test_a_removed_child_is_let_go_by_its_parents_caches_once_released() -> None:
    """A parent's arrangement cache and its list of displayed children keep a removed child
    alive until the next layout; `release_removed_children` lets it go at once."""
    import gc
    import weakref

    from textual.containers import Vertical

    from acp_tui.ui.textual_internals import release_removed_children

    app = Plain()
    async with app.run_test() as pilot:
        parent = Vertical()
        await app.screen.mount(parent)
        doomed = Static("drawn once")
        await parent.mount(doomed, Static("stays"))
        await pilot.pause()
        gone = weakref.ref(doomed)
        await doomed.remove()
        await pilot.pause()  # (a frame without it)
        del doomed
        gc.collect()
        kept = gone() is not None
        release_removed_children(parent)
        gc.collect()
        assert kept, "Textual no longer keeps removed children in its caches: the release can go"
        assert gone() is None


async def test_dropped_lines_are_drawn_again_alike() -> None:
    from acp_tui.ui.textual_internals import drop_rendered_lines

    app = Plain()
    async with app.run_test() as pilot:
        await pilot.pause()
        static = app.screen.query_one(Static)
        before: list[Strip] = list(static._styles_cache._cache.values())
        assert before, "Textual changed: StylesCache._cache holds no rendered lines"
        drop_rendered_lines(app.screen)
        assert not static._styles_cache._cache
        static.refresh()
        await pilot.pause()
        assert [s.text for s in static._styles_cache._cache.values()] == [s.text for s in before]


async def test_a_closed_widgets_data_binding_is_forgotten_once_asked() -> None:
    """Textual keeps a `data_bind` watcher on the watched node until that reactive changes, so a
    removed widget bound to a reactive that never changes stays alive; `forget_closed_watchers`
    lets it go."""
    import gc
    import weakref

    from textual.reactive import reactive

    from acp_tui.ui.textual_internals import forget_closed_watchers, release_removed_children

    class Bound(Static):
        value = reactive(1)

    class Source(Widget):
        value = reactive(1)

        def compose(self) -> ComposeResult:
            yield Bound("bound").data_bind(value=Source.value)

    app = Plain()
    async with app.run_test() as pilot:
        source = Source()
        await app.screen.mount(source)
        await pilot.pause()
        doomed = source.children[0]  # (not a query: its cache would hold it)
        gone = weakref.ref(doomed)
        await doomed.remove()
        await pilot.pause()  # (a frame without it)
        del doomed
        release_removed_children(source)
        gc.collect()
        kept = gone() is not None
        forget_closed_watchers(source)
        gc.collect()
        assert kept, "Textual no longer keeps closed widgets' watchers: the helper can go"
        assert gone() is None


@pytest.mark.parametrize("at_once", [False, True])
async def test_a_footer_builds_its_keys_in_its_first_compose_once_asked(at_once: bool) -> None:
    """Textual's `Footer` composes no key until its screen refreshes its bindings, then rebuilds
    (a second pass after the first frame); `build_keys_at_once` has it build them at once."""
    from textual.widgets import Footer

    from acp_tui.ui.textual_internals import build_keys_at_once

    first: list[int] = []

    class Counted(Footer):
        def compose(self) -> ComposeResult:
            if at_once:
                build_keys_at_once(self)
            built = list(super().compose())
            if not first:
                first.append(len(built))
            yield from built

    class WithFooter(Plain):
        def compose(self) -> ComposeResult:
            yield Static("x")
            yield Counted()

    async with WithFooter().run_test() as pilot:
        await pilot.pause()
        assert pilot.app.query("FooterKey")  # (built in the end either way)
    assert (first[0] > 0) is at_once, "Textual's Footer builds its keys at once now"


@pytest.mark.parametrize("remapped", [False, True])
async def test_the_apps_priority_keys_are_read_as_textual_dispatches_them(remapped: bool) -> None:
    """`priority_bindings` gives the keys the app binds with priority, the user's keymap
    applied, as Textual reads a pressed key: the key it lists runs the app's action."""
    from acp_tui.ui.textual_internals import priority_bindings

    ran: list[str] = []

    class Own(Screen[None]):
        BINDINGS = [Binding("f6", "own", "model", priority=True)]

        def compose(self) -> ComposeResult:
            yield Static("x")

        def action_own(self) -> None:
            ran.append("screen")

    class Keyed(App[None]):
        BINDINGS = [Binding("f6", "pause", "play/pause", priority=True, id="test.pause")]

        def on_mount(self) -> None:
            if remapped:
                self.set_keymap({"test.pause": "f12"})
            self.push_screen(Own())

        def action_pause(self) -> None:
            ran.append("app")

    async with Keyed().run_test() as pilot:
        await pilot.pause()
        keys = [key for key, binding in priority_bindings(pilot.app.screen) if binding.id]
        assert keys == (["f12"] if remapped else ["f6"])
        await pilot.press(keys[0])
        await pilot.press("f6")
    assert ran == (["app", "screen"] if remapped else ["app", "app"])
