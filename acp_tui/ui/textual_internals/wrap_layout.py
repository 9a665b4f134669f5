"""A row of widgets that wraps: each child at its own width, left to right, and the next line when
one does not fit (Textual's horizontal layout runs off the edge instead).

A fix Textual could take upstream: a `wrap` layout beside `horizontal`, `grid` and `stream`.

A permission card's buttons at 80 columns showed "Allow (a)" and a clipped "Always allow edi":
the Reject buttons were off the screen. The wrap is part of the layout itself, at the width the
layout is given, so no resize handler lays the card out a second time after a frame was painted
(a tab shown again after a resize paints the card as composed).

Private: `textual._resolve.resolve_box_models` (each child's box at a width, as Textual's own
layouts read them); `Widget.layout` is overridden to give the container this layout (Textual
names its layouts in a registry the `layout` style reads).
"""

from __future__ import annotations

from textual._resolve import resolve_box_models
from textual.geometry import NULL_OFFSET, Region, Size
from textual.layout import ArrangeResult, Layout, WidgetPlacement
from textual.widget import Widget


class WrapLayout(Layout):
    """Children left to right at their own widths (and margins), wrapped onto new lines."""

    name = "wrap"

    def arrange(
        self, parent: Widget, children: list[Widget], size: Size, greedy: bool = True
    ) -> ArrangeResult:
        parent.pre_layout(self)
        viewport = parent.app.viewport_size
        boxes = resolve_box_models(
            [child.styles.width for child in children],
            children,
            size,
            viewport,
            Size(0, 0),
            resolve_dimension="width",
            greedy=False,
        )
        placements: list[WidgetPlacement] = []
        x = y = line_height = 0
        for child, (width, height, margin) in zip(children, boxes, strict=True):
            cells = min(int(width), max(1, size.width - margin.left - margin.right))
            needed = margin.left + cells + margin.right
            if x and x + needed > size.width:  # a new line (a line always takes one child)
                x, y, line_height = 0, y + line_height, 0
            region = Region(x + margin.left, y + margin.top, cells, int(height))
            placements.append(WidgetPlacement(region, NULL_OFFSET, margin, child))
            x += needed
            line_height = max(line_height, margin.top + int(height) + margin.bottom)
        return placements


class WrapRow(Widget):
    """A container whose children wrap (`WrapLayout`); its height follows its lines."""

    DEFAULT_CSS = "WrapRow { height: auto; }"

    _wrap = WrapLayout()

    @property
    def layout(self) -> Layout:
        """Always the wrapping layout."""
        return self._wrap
