"""A tab switched back to shows the frame it kept, with only what changed composed anew.

A switch back to a tab painted its whole screen again: every widget asked for its visible lines
and each line cut into the screen's chops (about 10 ms on a loaded machine, most of a switch
once Textual's 50 ms delay was gone), although nothing on it had changed. A screen hidden by a
tab switch composes its frame once in the background, a moment after it was hidden
(`KeepFrameOnSwitch.keep_frame`, with `FrameCompositor.keep`), and from then on remembers each
widget that asks to be repainted (`Screen._on_update`). Its first full frame once shown again is
the kept one with the rows of the widgets repainted since (while hidden, or by the resume)
composed anew, if no layout was asked (`Screen._on_layout`) and its arrangement is the one the
frame was composed with (the same compositor map: no scroll, the same size); otherwise, and
always after that frame, it is composed as ever. A widget that asks to be repainted after that
frame is painted by the next one, as on any screen.

A layout asked while the screen is hidden (the end of the turn shown last settling after the
switch: its messages drawn from data, its entries frozen) is done in the background before the
frame is kept, not by the first switch back (a whole arrangement of a 200-turn conversation, the
slowest part of that switch); a layout asked after the frame was kept drops it and keeps a new
one a moment later, the same way. The work of a hidden screen waits while the screen shown is
busy (`keeping_waits`: its session streams), so that a visible stream never waits for it.

A step of `EngineScreen` (`engine.py`): the second of its paint steps, and the screen's resume,
layout and update messages.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from rich.console import Console
from textual import events
from textual._compositor import LayoutUpdate
from textual._context import visible_screen_stack
from textual.geometry import Region, Size
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.ui.textual_internals.row_compositor import RowCompositor

KEEP_AFTER = 0.3
"""Seconds after a tab switch (or a layout asked while hidden) before the hidden screen lays
itself out if it must and composes its frame (the screen shown paints first)."""
HIDDEN_LAYOUTS = 4
"""Layouts a hidden screen does in the background at most, from one switch to the next (a
screen that keeps asking for more is laid out once shown, as Textual does)."""


@dataclass
class KeptFrame:
    """A frame composed while its screen was hidden, for its first full update once shown."""

    arrangement: object
    """The compositor's map of visible widgets it was composed with (the object itself)."""
    size: Size
    chops: list[Mapping[int, Strip]]
    """Per row, the strips between the row's cuts (what a full update paints)."""


class FrameCompositor(RowCompositor):
    """A `RowCompositor` that can keep a composed frame for the next full update."""

    kept: KeptFrame | None = None
    _armed: set[Widget] | None = None
    """While the first full update after a show runs: the widgets repainted since the frame."""
    reused = 0
    """Full updates painted from a kept frame (for tests)."""

    def keep(self, console: Console) -> None:
        """Compose the whole frame as the screen alone would show it, its strips rendered for
        `console` (the terminal's), and keep it."""
        visible_screen_stack.set([])  # (the screen is the base of its stack: nothing behind)
        chops = self._render_chops(self.size.region, lambda _y: True)
        for line in chops:
            for strip in line.values():
                strip.render(console)  # (kept with the strip: writing the frame is a join)
        self.kept = KeptFrame(self.visible_widgets, self.size, list(chops))

    def render_full_update(self, simplify: bool = False) -> LayoutUpdate:
        kept, self.kept = self.kept, None  # (used once at most)
        armed = self._armed
        if (
            kept is None
            or armed is None
            or simplify
            or kept.size != self.size
            or kept.arrangement is not self.visible_widgets
        ):
            return super().render_full_update(simplify)
        self._dirty_regions.clear()
        chops = kept.chops
        rows: set[int] = set()
        visible = self.visible_widgets
        for widget in armed:
            placed = visible.get(widget)
            if placed is not None:
                rows.update(placed[0].intersection(placed[1]).line_range)
        rows &= set(range(self.size.height))
        if rows:
            top, bottom = min(rows), max(rows) + 1
            crop = Region(0, top, self.size.width, bottom - top)
            fresh = self._render_chops(crop, rows.__contains__)
            for row in rows:
                chops[row] = fresh[row]
        self.reused += 1
        return LayoutUpdate([line.values() for line in chops], self.size.region)

    def arm(self, repainted: set[Widget] | None) -> None:
        """The next full update may paint the kept frame, the rows of `repainted` composed
        anew (None: it may not)."""
        self._armed = repainted


class KeepFrameOnSwitch:
    """Keeps the frame of a screen that a tab switch hides (see the module docstring); the
    screen's compositor is a `FrameCompositor`."""

    def __init__(
        self, screen: Screen[Any], compositor: FrameCompositor, waits: Callable[[], bool]
    ) -> None:
        self._screen = screen
        self._compositor = compositor
        self._waits = waits
        """Whether the frame waits to be kept (the screen shown is busy)."""
        self._repainted: set[Widget] | None = None
        """Since the kept frame was composed: the widgets that asked to be repainted (None: no
        frame kept)."""
        self._keep_pending = False
        """A `keep_frame` is due (one timer at a time)."""
        self.laid_out_hidden = 0
        """Layouts done while hidden since the screen was last shown."""

    def keep_frame_soon(self) -> None:
        """Hidden by a tab switch: compose the frame in a moment (`KEEP_AFTER`)."""
        if not self._keep_pending:
            self._keep_pending = True
            self._screen.set_timer(KEEP_AFTER, self.keep_frame)

    def keep_frame(self) -> None:
        """Compose and keep the frame now, unless the screen is shown; a layout it must have
        first is done now, and the frame kept a moment later (once the widgets it resized
        have taken their new size)."""
        self._keep_pending = False
        screen, compositor = self._screen, self._compositor
        if screen.is_current or screen._compositor is not compositor:
            return
        if not screen.is_attached or not compositor.visible_widgets:
            return
        if self._waits():
            self.keep_frame_soon()  # (the screen shown first)
            return
        if screen._layout_required or screen._scroll_required:
            if self.laid_out_hidden >= HIDDEN_LAYOUTS:
                return
            self._lay_out_hidden()
            self.keep_frame_soon()
            return
        compositor.keep(screen.app.console)
        self._repainted = set()

    @property
    def keeps_frame(self) -> bool:
        """Whether a frame is kept (the widgets asking to be repainted are being counted)."""
        return self._repainted is not None

    def _lay_out_hidden(self) -> None:
        """The layout the screen's update would do once shown, done now (nothing is painted:
        the screen is not current)."""
        screen = self._screen
        screen._refresh_layout(scroll=screen._scroll_required)
        screen._layout_required = False
        screen._scroll_required = False
        self.laid_out_hidden += 1

    def resumed(self, event: events.ScreenResume) -> None:
        """The screen resumes (before Textual's handler): a restyle (the theme changed) means
        the screen is composed as ever; the widgets repainted while hidden (its tab's session
        changed them) and those the resume repaints are drawn anew in the kept frame."""
        self._keep_pending = False  # (a timer still due finds the screen shown: it does nothing)
        self.laid_out_hidden = 0
        if event.refresh_styles:
            self.drop_frame()

    def drop_frame(self) -> None:
        """Compose the next frame as ever (what the kept frame shows has changed)."""
        self._repainted = None
        self._compositor.kept = None

    def layout_asked(self) -> None:
        """A widget asked for a layout (before Textual's handler): the kept frame is dropped,
        and laid out and kept again in the background while hidden."""
        kept = self._repainted is not None
        self.drop_frame()
        if kept and not self._screen.is_current:
            self.keep_frame_soon()

    def repaint_asked(self, widget: object) -> None:
        """A widget asked to be repainted (before Textual's handler): counted, if a frame is
        kept."""
        if self._repainted is not None and isinstance(widget, Widget):
            self._repainted.add(widget)

    def around_paint(self, paint: Callable[[], None]) -> None:
        """Paint; the first full update after a show from the kept frame if it may."""
        repainted, self._repainted = self._repainted, None
        screen, compositor = self._screen, self._compositor
        if repainted is None or screen is not screen.app.screen:
            compositor.kept = None  # (not shown alone: composed as ever)
            paint()
            return
        compositor.arm(repainted)
        try:
            paint()
        finally:
            compositor.arm(None)
