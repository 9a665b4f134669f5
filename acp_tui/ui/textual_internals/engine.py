"""The one screen class and the one app class through which acp-tui changes Textual.

`EngineScreen` overrides each private hook of `Screen` it needs once, and runs in it the steps
that change it, in the order written here and nowhere else (no order of base classes):

- `_refresh_layout` (a layout): `AnchorAtNewHeight`, then `LayoutOnce`, around Textual's layout.
  The anchor's second arrangement runs the whole layout again, its frame painted once.
- `_compositor_refresh` (a frame painted): `AnchorAtNewHeight` (a layout that moved an anchored
  container is done again instead, which paints), then `KeepFrameOnSwitch` (the kept frame may
  be painted), then `LayoutOnce` (notes what the frame paints), around Textual's paint.
- `_update_timer`: `PacedFrames` (frames paced from when the last began).
- `_screen_resized`: `KeepLayoutOnSwitch` (no layout on a switch back at the same size).
- `_on_screen_suspend`: `KeepStylesOnResume` (the CSS variables remembered).
- `_on_screen_resume`: `KeepStylesOnResume` (no restyle unless what styles come from changed
  since the screen was built or suspended: its first showing too), then
  `KeepFrameOnSwitch` (which reads whether the resume restyles), before Textual's handler.
- `_on_layout`, `_on_update`: `KeepFrameOnSwitch` (a kept frame dropped, repaints counted),
  before Textual's handler.
- The compositor: a `FrameCompositor` (a `RowCompositor` that can keep a frame).
- Quick repaint: `QuickRepaint` (`quick_repaint.py`), which a widget reaches with
  `repaint_soon(widget, region)` instead of `refresh`: the region marked dirty for the next frame
  without the messages `refresh` costs. It runs on its own, read by no other step; it leaves to
  `refresh` a screen whose kept frame counts the repaints (`KeepFrameOnSwitch` reads `Update`).

`EngineApp` overrides two private hooks of `App`, once each:

- `delay_update`: `SwitchAtOnce` (`switch_to_built`, `switch_in_mount`).
- `_register` (widgets mounted): `QuickScrollbars`, after Textual's registration, gives each new
  widget whose class says `QUICK_SCROLLBAR = True` a `QuickScrollBar` (`quick_scrollbar.py`),
  made as Textual makes its vertical bar, only at mount instead of first use.

Each step is a plain object in its own module, holding its own state; a screen or app built on
these owns them (`engine`). What stays with a widget: `WrapRow` (`wrap_layout.py`), a container
whose layout wraps its children. A layout belongs to the container it arranges: the widget's
public `layout` property, which `WrapRow` overrides (the `layout` style names one of the layouts
in Textual's process-wide map, which acp-tui does not write to), so it is no step of the screen
or the app, and has no order to keep. It reads the private `textual._resolve.resolve_box_models`
(each child's box at a width, as Textual's layouts read them) and is tested against a stock
`Horizontal`; `FitRowLayout` (`fit_row.py`), the footer's row, leaves out whole the keys that do not
fit, in the same way. So does the conversation's arrangement, through the public `Widget.arrange` it
overrides: `tall_regions_apart` (`tall_regions.py`) keeps its frozen history out of Textual's
spatial grid, tested against Textual's own `SpatialMap`.

Not here, because it changes nothing in Textual: keys first. The prompt (`PromptInput`) and a
form's text field (`FormInput`) see each key and paste before the text area or field acts on it
with their own public `on_key`/`on_paste`: Textual calls a subclass's handler before its base
classes' and `prevent_default` skips theirs (`tests/ui/test_engine.py` runs both against the stock
widgets).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from textual import events, messages
from textual._context import NoActiveAppError
from textual.app import App
from textual.css.styles import RulesMap
from textual.dom import DOMNode
from textual.geometry import Size
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import AwaitMount, Widget

from acp_tui.ui.textual_internals.anchor_layout import AnchorAtNewHeight
from acp_tui.ui.textual_internals.frame_pacing import PacedFrames
from acp_tui.ui.textual_internals.kept_frame import FrameCompositor, KeepFrameOnSwitch
from acp_tui.ui.textual_internals.layout_once import LayoutOnce
from acp_tui.ui.textual_internals.quick_repaint import QuickRepaint
from acp_tui.ui.textual_internals.quick_scrollbar import QuickScrollbars
from acp_tui.ui.textual_internals.resume_layout import KeepLayoutOnSwitch
from acp_tui.ui.textual_internals.resume_styles import KeepStylesOnResume
from acp_tui.ui.textual_internals.switch_at_once import SwitchAtOnce

ReturnType = TypeVar("ReturnType")

Run = Callable[[], None]


def _wrapped(steps: tuple[Callable[[Run], None], ...], innermost: Run) -> Run:
    """`innermost` run inside each of `steps`, the first step outermost."""
    run = innermost
    for step in reversed(steps):
        run = _bind(step, run)
    return run


def _bind(step: Callable[[Run], None], inner: Run) -> Run:
    return lambda: step(inner)


class ScreenEngine:
    """The steps of an `EngineScreen`, in the order they run (see the module docstring)."""

    def __init__(self, screen: Screen[Any], waits: Callable[[], bool]) -> None:
        self.compositor = FrameCompositor()
        self.anchor = AnchorAtNewHeight(screen)
        self.layout_once = LayoutOnce(screen)
        self.kept_frame = KeepFrameOnSwitch(screen, self.compositor, waits)
        self.pacing = PacedFrames(screen)
        self.resume_layout = KeepLayoutOnSwitch(screen)
        self.resume_styles = KeepStylesOnResume(screen)
        self.quick_repaint = QuickRepaint(screen, lambda: self.kept_frame.keeps_frame)
        self.layout_steps: tuple[Callable[[Run], None], ...] = (
            self.anchor.around_layout,
            self.layout_once.around_layout,
        )
        """Around a layout, outermost first."""
        self.paint_steps: tuple[Callable[[Run], None], ...] = (
            self.anchor.around_paint,
            self.kept_frame.around_paint,
            self.layout_once.around_paint,
        )
        """Around a frame painted, outermost first."""


class EngineScreen(Screen[Any]):
    """A screen with acp-tui's changes to Textual (see the module docstring): its steps are
    `engine`'s."""

    def __init__(
        self, name: str | None = None, id: str | None = None, classes: str | None = None
    ) -> None:
        super().__init__(name, id, classes)
        self.engine = ScreenEngine(self, self.keeping_waits)
        self._compositor = self.engine.compositor
        try:
            app: App[Any] | None = self.app
        except NoActiveAppError:
            app = None
        self.engine.resume_styles.built(app)

    def keeping_waits(self) -> bool:
        """Whether the frame of this hidden screen waits to be kept (the screen shown is busy);
        a subclass says when (the default: never)."""
        return False

    @property
    def _update_timer(self) -> Timer:
        return self.engine.pacing.timer

    def _refresh_layout(self, size: Size | None = None, scroll: bool = False) -> None:
        layout = super()._refresh_layout
        _wrapped(self.engine.layout_steps, lambda: layout(size, scroll))()

    def _compositor_refresh(self) -> None:
        _wrapped(self.engine.paint_steps, super()._compositor_refresh)()

    def _screen_resized(self, size: Size) -> None:
        if self.engine.resume_layout.needs_layout(size):
            super()._screen_resized(size)

    def _on_screen_suspend(self) -> None:
        # (Textual's own handler runs after this one: each class's handler is called)
        self.engine.resume_styles.suspended()

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        engine = self.engine
        engine.resume_styles.resumed(event)
        engine.kept_frame.resumed(event)

    async def _on_layout(self, message: messages.Layout) -> None:
        self.engine.kept_frame.layout_asked()

    async def _on_update(self, message: messages.Update) -> None:
        self.engine.kept_frame.repaint_asked(message.widget)


class EngineApp(App[ReturnType]):
    """An app with acp-tui's changes to Textual (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.switch_at_once = SwitchAtOnce(self)
        self.quick_scrollbars = QuickScrollbars(self)

    def delay_update(self, delay: float = 0.05) -> None:
        if self.switch_at_once.delays():
            super().delay_update(delay)

    def _register(
        self,
        parent: DOMNode,
        *widgets: Widget,
        before: int | None = None,
        after: int | None = None,
        cache: dict[tuple[Any, ...], RulesMap] | None = None,
    ) -> list[Widget]:
        registered = super()._register(parent, *widgets, before=before, after=after, cache=cache)
        self.quick_scrollbars.registered(widgets)
        return registered

    def switch_to_built(self, mode: str) -> AwaitMount:
        """`switch_mode` to `mode`, whose screens are mounted: painted at the next frame."""
        return self.switch_at_once.switch_to_built(mode)

    def switch_in_mount(self, mode: str) -> AwaitMount:
        """`switch_mode` from the app's `on_mount` (awaited there): painted at the next frame
        after it returns."""
        return self.switch_at_once.switch_in_mount(mode)
