"""A compositor that renders, for a partial update, only the rows each widget shows in it.

Textual's compositor asks every widget whose *clip* (its container's viewport) overlaps the
updated area for all of its visible lines, then keeps the few it needs: when one streamed line
changes, the screen, the sidebar, the body and the conversation each render their whole height
(~330 lines a frame on a 120x40 screen). `RowCompositor` asks only the widgets whose visible
area meets the updated area, and only for the rows inside it.

It also skips what cannot show: Textual paints front to back and the first strip for a cut wins,
so where widgets in front already cover a widget's columns, nothing of it lands on the screen (a
streamed line's message, conversation, body and screen backgrounds are all behind the line's
widget; after a layout, most of the conversation's rows are covered by its messages). A widget
is asked only for the rows from its first to its last row not covered in front.

What ends up on the screen is the same: a line is still painted front to back from every widget
that covers it.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip

Spans = list[tuple[int, int]]
"""The columns [x1, x2) painted on a row: sorted, apart (touching spans are joined)."""


def add_span(spans: Spans, x1: int, x2: int) -> None:
    """Add the columns [x1, x2) to `spans`."""
    if x1 >= x2:
        return
    index = 0
    while index < len(spans) and spans[index][1] < x1:
        index += 1
    end = index
    while end < len(spans) and spans[end][0] <= x2:
        x1, x2 = min(x1, spans[end][0]), max(x2, spans[end][1])
        end += 1
    spans[index:end] = [(x1, x2)]


def covers(spans: Spans, x1: int, x2: int) -> bool:
    """True if the columns [x1, x2) are all in `spans`."""
    for span_x1, span_x2 in spans:
        if span_x1 <= x1:
            if span_x2 >= x2:
                return True
        else:
            break
    return False


class RowCompositor(Compositor):
    skipped = 0
    """Widgets not rendered because widgets in front covered them (for tests)."""

    def _get_renders(
        self, crop: Region | None = None
    ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if not crop:
            yield from super()._get_renders(crop)
            return
        crop_x1, crop_y1, crop_x2, crop_y2 = crop.corners
        painted: list[Spans] = [[] for _ in range(crop_y2 - crop_y1)]  # per row of the crop
        for widget, (region, clip) in self.visible_widgets.items():
            _, region_y, _, region_height = region
            if region_y >= crop_y2 or region_y + region_height <= crop_y1:
                continue  # not on the updated rows (what shows of it lies in its region)
            x, y, width, height = region.intersection(clip)
            top, bottom = max(y, crop_y1), min(y + height, crop_y2)
            x1, x2 = max(x, crop_x1), min(x + width, crop_x2)
            if top >= bottom or x1 >= x2:
                continue  # shows nothing in the updated area
            # from its first to its last row not covered in front
            while top < bottom and covers(painted[top - crop_y1], x1, x2):
                top += 1
            while bottom > top and covers(painted[bottom - 1 - crop_y1], x1, x2):
                bottom -= 1
            if top >= bottom:
                self.skipped += 1
                continue
            for row in range(top - crop_y1, bottom - crop_y1):
                add_span(painted[row], x1, x2)
            rows = Region(x, top, width, bottom - top)
            # the caller paints the strips over region & clip: pass the rows as the clip
            yield region, rows, widget.render_lines(rows.translate(-region.offset))
