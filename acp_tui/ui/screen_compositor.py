"""A compositor that renders, for a partial update, only the rows each widget shows in it.

Textual's compositor asks every widget whose *clip* (its container's viewport) overlaps the
updated area for all of its visible lines, then keeps the few it needs: when one streamed line
changes, the screen, the sidebar, the body and the conversation each render their whole height
(~330 lines a frame on a 120x40 screen). `RowCompositor` asks only the widgets whose visible
area meets the updated area, and only for the rows inside it.

It also skips what cannot show: Textual paints front to back and the first strip for a cut wins,
so on rows where a widget in front spans every column of the updated area, nothing behind it
lands on the screen (a streamed line's message, conversation, body and screen backgrounds are
all behind the line's widget). Those widgets are not asked for those rows at all.

What ends up on the screen is the same: a line is still painted front to back from every widget
that covers it.
"""

from __future__ import annotations

from collections.abc import Iterable

from textual._compositor import Compositor
from textual.geometry import Region
from textual.strip import Strip


class RowCompositor(Compositor):
    skipped = 0
    """Renders skipped because a widget in front covered every updated column (for tests)."""

    def _get_renders(
        self, crop: Region | None = None
    ) -> Iterable[tuple[Region, Region, list[Strip]]]:
        if not crop:
            yield from super()._get_renders(crop)
            return
        crop_x1, crop_y1, crop_x2, crop_y2 = crop.corners
        # rows [hidden_top, hidden_bottom) of the crop are covered across all its columns by
        # widgets already painted (one band: the widget a frame updates is usually the one
        # that covers it)
        hidden_top = hidden_bottom = crop_y1
        for widget, (region, clip) in self.visible_widgets.items():
            x, y, width, height = region.intersection(clip)
            top, bottom = max(y, crop_y1), min(y + height, crop_y2)
            if top >= bottom or x >= crop_x2 or x + width <= crop_x1:
                continue  # shows nothing in the updated area
            if hidden_top <= top and bottom <= hidden_bottom:
                self.skipped += 1
                continue  # every row it would paint is covered in front
            if hidden_top <= top < hidden_bottom:
                top = hidden_bottom
            elif hidden_top < bottom <= hidden_bottom:
                bottom = hidden_top
            rows = Region(x, top, width, bottom - top)
            # the caller paints the strips over region & clip: pass the rows as the clip
            yield region, rows, widget.render_lines(rows.translate(-region.offset))
            if x <= crop_x1 and x + width >= crop_x2:  # opaque across the crop's columns
                if top <= hidden_bottom and bottom >= hidden_top:  # touches the band: join
                    hidden_top = min(hidden_top, top) if hidden_top < hidden_bottom else top
                    hidden_bottom = max(hidden_bottom, bottom)
                elif bottom - top > hidden_bottom - hidden_top:  # apart: keep the larger
                    hidden_top, hidden_bottom = top, bottom
