"""A compositor that renders, for a partial update, only the rows each widget shows in it.

Textual's compositor asks every widget whose *clip* (its container's viewport) overlaps the
updated area for all of its visible lines, then keeps the few it needs: when one streamed line
changes, the screen, the sidebar, the body and the conversation each render their whole height
(~330 lines a frame on a 120x40 screen). `RowCompositor` asks only the widgets whose visible
area meets the updated area, and only for the rows inside it. What ends up on the screen is the
same: a line is still painted front to back from every widget that covers it.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowCompositor(Compositor):
    def _get_renders(
        self, crop: Region | None = None
    ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if not crop:
            yield from super()._get_renders(crop)
            return
        crop_x1, crop_y1, crop_x2, crop_y2 = crop.corners
        for widget, (region, clip) in self.visible_widgets.items():
            x, y, width, height = region.intersection(clip)
            top, bottom = max(y, crop_y1), min(y + height, crop_y2)
            if top >= bottom or x >= crop_x2 or x + width <= crop_x1:
                continue  # shows nothing in the updated area
            rows = Region(x, top, width, bottom - top)
            # the caller paints the strips over region & clip: pass the rows as the clip
            yield region, rows, widget.render_lines(rows.translate(-region.offset))
