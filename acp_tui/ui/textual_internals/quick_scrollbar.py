"""A vertical scrollbar that paints its own lines, the same lines Textual paints.

A fix Textual could take upstream: a `ScrollBar` could keep its lines while its thumb stays put.

Textual paints a `ScrollBar` as any widget: its `ScrollBarRender` goes through a Rich console
render, each line through the styles cache (a `Strip` and its caches per line and pass). That
cost 8.5 ms per paint of a 50-row bar, and the conversation's bar is painted again at every
layout of a streamed message (the thumb moves). `QuickScrollBar` builds the same segments with
`ScrollBarRender.render_bar` and paints them as `screen_lines.paint` paints a plain box (its
style, its width, the app's line filters), keeping them until the bar or its look changes.
A bar Textual must paint itself (a box that is not plain, a renderer of another class) is left
to Textual.

A widget asks for it with `QUICK_SCROLLBAR = True` on its class; `QuickScrollbars`, a step of
`EngineApp`, gives it the bar when the app registers the widget (`App._register`): the bar made
as Textual's `vertical_scrollbar` makes its own on first use (hidden, in the private
`_vertical_scrollbar`, started with `App._start_widget`), only made before that first use, at
the width its styles give a shown bar.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rich.segment import Segment
from textual.app import App
from textual.color import Color
from textual.geometry import Region
from textual.scrollbar import ScrollBar, ScrollBarRender
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.ui.markdown.screen_lines import LookCache, paint


class QuickScrollBar(ScrollBar):
    """A `ScrollBar` whose vertical lines are painted once per position, size and look."""

    def __init__(self, *, vertical: bool = True, name: str | None = None, thickness: int = 1):
        super().__init__(vertical=vertical, name=name, thickness=thickness)
        self._looks = LookCache()
        self._painted: tuple[object, list[Strip]] | None = None

    def render_lines(self, crop: Region) -> list[Strip]:
        look = self._looks.look(self) if self.vertical else None
        renderable = self.render() if look is not None else None
        if look is None or type(renderable) is not ScrollBarRender:
            return super().render_lines(crop)
        width, height = self.size
        style = renderable.style
        assert not isinstance(style, str)  # (ScrollBar.render passes a Style)
        key: tuple[object, ...] = (look, height, width, renderable.virtual_size, style)
        key += (renderable.window_size, renderable.position)
        if self._painted is None or self._painted[0] != key:
            bar = renderable.render_bar(
                size=height,
                virtual_size=renderable.virtual_size,
                window_size=renderable.window_size,
                position=renderable.position,
                thickness=width,
                vertical=True,
                back_color=style.bgcolor or Color.parse("#555555"),  # type: ignore[arg-type]
                bar_color=style.color or Color.parse("bright_magenta"),  # type: ignore[arg-type]
            )
            painted: dict[Segment, Strip] = {}  # a bar is a few segments, repeated
            lines = []
            for segment in bar.segments:
                line = painted.get(segment)
                if line is None:
                    line = painted[segment] = paint(Strip([segment], width), look)
                lines.append(line)
            self._painted = (key, lines)
        lines = self._painted[1]
        x1, x2 = crop.column_span
        strips = [lines[y] if y < len(lines) else Strip.blank(width) for y in crop.line_range]
        if (x1, x2) != (0, width):
            strips = [strip.crop(x1, x2) for strip in strips]
        return strips


def wants_quick_scrollbar(widget: Widget) -> bool:
    """Whether `widget`'s class asks for a `QuickScrollBar` (`QUICK_SCROLLBAR = True`)."""
    return getattr(type(widget), "QUICK_SCROLLBAR", False) is True


class QuickScrollbars:
    """The step of an app that gives each widget asking for it a `QuickScrollBar`."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app

    def registered(self, widgets: Iterable[Widget]) -> None:
        """`widgets` were registered (and started): the ones that ask get their bar, made and
        started as `Widget.vertical_scrollbar` makes Textual's."""
        for widget in widgets:
            if widget._vertical_scrollbar is None and wants_quick_scrollbar(widget):
                thickness = widget.styles.scrollbar_size_vertical  # (as once shown: Textual
                # reads `scrollbar_size_vertical`, 0 while a bar without a stable gutter is hidden)
                bar = QuickScrollBar(vertical=True, name="vertical", thickness=thickness)
                bar.display = False
                widget._vertical_scrollbar = bar
                self.app._start_widget(widget, bar)
