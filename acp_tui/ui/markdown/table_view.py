"""Tables with box borders; an open table renders each new row once.

Column widths come from the header and the rows so far.  While they stay the same, finished
rows keep their strips; when a wider row arrives the table is laid out again (rare: widths
settle after the first rows).
"""

from __future__ import annotations

from rich.console import JustifyMethod
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from acp_tui.ui.markdown.blocks import Block, Table
from acp_tui.ui.markdown.inline import inline_text
from acp_tui.ui.markdown.render import BlockView, RenderContext

_JUSTIFY: dict[str, JustifyMethod] = {"center": "center", "right": "right"}


def fit_widths(natural: list[int], available: int) -> list[int]:
    """Column widths no wider than needed, shrinking the widest columns to fit ``available``."""
    natural = [max(n, 1) for n in natural]
    if sum(natural) <= available or not natural:
        return natural
    budget = max(available, len(natural))
    cap = budget // len(natural)
    # Raise the cap while everything still fits (columns narrower than the cap keep their width).
    for candidate in sorted(set(natural)):
        if sum(min(n, candidate) for n in natural) > budget:
            break
        cap = max(cap, candidate)
    widths = [min(n, cap) for n in natural]
    spare = budget - sum(widths)
    for i, n in enumerate(natural):
        if spare <= 0:
            break
        extra = min(spare, n - widths[i])
        widths[i] += extra
        spare -= extra
    return [max(w, 1) for w in widths]


class TableView(BlockView):
    def __init__(self, block: Block, depth: int = 0) -> None:
        super().__init__(block, depth)
        assert isinstance(block, Table)
        self.table = block
        self._cells: list[list[Text]] = []  # inline text of the finished rows
        self._natural: list[int] = [0] * len(block.header)
        self._header: list[Text] = []
        self._widths: list[int] = []
        self._layout_width = -1
        self._flat: list[Strip] = []  # strips of rows[: _done]
        self._done = 0

    def _row_text(
        self, ctx: RenderContext, row: list[str], style: Style | None = None
    ) -> list[Text]:
        return [inline_text(cell, ctx.theme, style) for cell in row]

    def _measure(self, row: list[Text]) -> None:
        for i, cell in enumerate(row):
            self._natural[i] = max(self._natural[i], cell.cell_len)

    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Render the table's finished rows once each (the open last row every time), columns
        sized to fit.
        """
        table = self.table
        if not self._header:
            self._header = self._row_text(ctx, table.header, ctx.theme.table_header)
            self._measure(self._header)
        stable = len(table.rows) if table.closed else max(len(table.rows) - 1, 0)
        while len(self._cells) < stable:
            row = self._row_text(ctx, table.rows[len(self._cells)])
            self._cells.append(row)
            self._measure(row)
        partial = [self._row_text(ctx, row) for row in table.rows[stable:]]
        natural = list(self._natural)
        for row in partial:  # measured, not remembered: the partial row may still change
            natural = [max(n, cell.cell_len) for n, cell in zip(natural, row, strict=True)]
        columns = len(table.header)
        widths = fit_widths(natural, width - 3 * columns - 1)
        if widths != self._widths or width != self._layout_width:
            self._widths, self._layout_width = widths, width
            self._flat, self._done = [], 0
        while self._done < stable:
            self._flat.extend(self._render_row(ctx, self._cells[self._done]))
            self._done += 1
        tail: list[Strip] = []
        for row in partial:
            tail.extend(self._render_row(ctx, row))
        border = ctx.theme.table_border
        return [
            self._edge("┌", "┬", "┐", border),
            *self._render_row(ctx, self._header),
            self._edge("├", "┼", "┤", border),
            *self._flat,
            *tail,
            self._edge("└", "┴", "┘", border),
        ]

    def _edge(self, left: str, middle: str, right: str, style: Style) -> Strip:
        inner = middle.join("─" * (w + 2) for w in self._widths)
        return Strip([Segment(f"{left}{inner}{right}", style)])

    def _render_row(self, ctx: RenderContext, cells: list[Text]) -> list[Strip]:
        console = ctx.console
        wrapped = []
        for i, cell in enumerate(cells):
            justify = _JUSTIFY.get(self.table.aligns[i], "left")
            lines = cell.wrap(console, self._widths[i], justify=justify, overflow="fold")
            wrapped.append(lines)
        height = max((len(lines) for lines in wrapped), default=1)
        bar = Segment("│", ctx.theme.table_border)
        strips: list[Strip] = []
        for y in range(height):
            segments = [bar]
            for i, lines in enumerate(wrapped):
                segments.append(Segment(" "))
                if y < len(lines):
                    line = lines[y]
                    segments.extend(line.render(console))
                    used = line.cell_len
                else:
                    used = 0
                segments.append(Segment(" " * (self._widths[i] - used + 1)))
                segments.append(bar)
            strips.append(Strip(segments))
        return strips
