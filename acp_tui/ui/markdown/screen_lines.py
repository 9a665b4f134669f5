"""Screen lines of a Line-API widget, painted once per line and reused.

Textual paints a widget's lines through its styles cache, which drops every line whenever the
widget's size changes (a streaming message grows by a line several times a second) and pays
per line for the widget's styles (padding, background, the app's line filters) again. A widget
whose box is plain (no border, outline, tint, opacity or vertical padding) can paint its own
lines instead: `Look` is what a painted line depends on besides its text, `paint` builds the
line (styled, padded left and right, filtered) and the widget keeps each painted line for as
long as its source strip and the look stay the same.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter
from textual.strip import Strip
from textual.widget import Widget

from acp_tui.ui.textual_internals import styles_key


class Look(NamedTuple):
    style: Style  # the widget's text style
    pad_style: Style  # its background, for the padding
    width: int  # the whole line
    content_width: int
    pad_left: int
    pad_right: int
    filters: tuple[LineFilter, ...]
    background: Color  # what the filters blend against


class LookCache:
    """A widget's `plain_look`, worked out again only when its size, the app's line filters or
    the styles of the widget or of an ancestor changed (working it out walks every ancestor's
    styles: more than painting the few lines a frame changes)."""

    def __init__(self) -> None:
        self._key: object = None
        self._look: Look | None = None

    def look(self, widget: Widget) -> Look | None:
        """The widget's look (sizes, filters, styles of it and its ancestors), cached until one
        of them changes.
        """
        key = (
            widget.outer_size,
            widget.size,
            tuple(widget.get_line_filters()),
            tuple(styles_key(node.styles) for node in widget.ancestors_with_self),
        )
        if key != self._key:
            self._key, self._look = key, plain_look(widget)
        return self._look


def plain_look(widget: Widget) -> Look | None:
    """The look of ``widget``'s lines, or None when its box needs Textual's own painting."""
    styles = widget.styles
    pad_top, pad_right, pad_bottom, pad_left = styles.padding
    if (
        pad_top
        or pad_bottom
        or styles.gutter != styles.padding  # a border
        or any(edge[0] for edge in styles.outline)
        or styles.tint.a
        or styles.opacity != 1.0
        or styles.text_opacity != 1.0
        or (styles.has_rule("hatch") and styles.hatch != "none")
    ):
        return None
    base_background, background = widget.background_colors
    width = widget.outer_size.width
    return Look(
        style=widget.rich_style,
        pad_style=Style(bgcolor=(base_background + background).rich_color),
        width=width,
        content_width=widget.size.width,
        pad_left=pad_left,
        pad_right=pad_right,
        filters=tuple(widget.get_line_filters()),
        background=background,
    )


def paint(source: Strip, look: Look) -> Strip:
    """``source`` (a content line) as it shows on the screen with ``look``."""
    style = look.style
    line = source.apply_style(style).crop_extend(0, look.content_width, style)
    if look.pad_left or look.pad_right:
        segments = list(line)
        if look.pad_left:
            segments.insert(0, Segment(" " * look.pad_left, look.pad_style))
        if look.pad_right:
            segments.append(Segment(" " * look.pad_right, look.pad_style))
        line = Strip(segments, look.width)
    for line_filter in look.filters:
        line = line.apply_filter(line_filter, look.background)
    return line
