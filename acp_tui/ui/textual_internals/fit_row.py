"""A row of widgets that leaves out, whole, those that do not fit (Textual's horizontal layout
cuts the last ones off at the edge instead).

The footer at 80 columns showed "^t ne" under the palette's key. Which keys give way is the
container's to say (`FitsRow.give_way_order`); the layout places the others left to right, each
at its own width and margins, and tells the container which it left out (`FitsRow.left_out`).
Done in the layout itself, at the width the layout is given, so no resize handler lays the row
out a second time after a frame was painted (a tab shown again after a resize paints its
footer as composed), as `WrapRow` (`wrap_layout.py`) does for a permission card's buttons.

Private: `Widget.layout` is overridden to give the container this layout (Textual names its
layouts in a registry the `layout` style reads); `Widget._clear_arrangement_cache`: Textual
keeps a container's last arrangements by size and reuses one without asking the layout, so when
the container changes what it shows for what was left out (the footer's "f1 more") the others
are dropped.
"""

from __future__ import annotations

from typing import Protocol

from textual.geometry import NULL_OFFSET, Region, Size
from textual.layout import ArrangeResult, Layout, WidgetPlacement
from textual.widget import Widget


class FitsRow(Protocol):
    """A container laid out by `FitRowLayout`."""

    def give_way_order(self, children: list[Widget]) -> list[Widget]:
        """The children that may be left out, the first to go first."""
        ...

    def left_out(self, children: list[Widget]) -> bool:
        """The layout left these out (none: every child fits); True if the container changed
        what it shows for that (the arrangements kept for other sizes are then dropped)."""
        ...


class FitRowLayout(Layout):
    """Children left to right at their own widths (and margins), less those that do not fit,
    left out in the container's order."""

    name = "fit-row"

    def __init__(self, row: FitsRow) -> None:
        self._row = row

    def arrange(
        self, parent: Widget, children: list[Widget], size: Size, greedy: bool = True
    ) -> ArrangeResult:
        parent.pre_layout(self)
        viewport = parent.app.viewport_size
        widths = {
            child: child.get_content_width(size, viewport)
            + child.styles.margin.width
            + child.styles.gutter.width
            for child in children
        }
        need = sum(widths.values())
        out: list[Widget] = []
        for child in self._row.give_way_order(children):
            if need <= size.width:
                break
            out.append(child)
            need -= widths[child]
        if self._row.left_out(out):
            # (an arrangement kept for another size would come back without telling it)
            parent._clear_arrangement_cache()
        placements: list[WidgetPlacement] = []
        x = 0
        for child in children:
            if child in out:
                continue
            margin = child.styles.margin
            cells = widths[child] - margin.width
            region = Region(x + margin.left, margin.top, cells, 1)
            placements.append(WidgetPlacement(region, NULL_OFFSET, margin, child))
            x += widths[child]
        return placements
