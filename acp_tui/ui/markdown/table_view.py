"""Tables with box borders; an open table renders each new row once.

Column widths come from the header and the rows so far.  While they stay the same, finished
rows keep their strips; when a wider row arrives the table is laid out again (widths settle
after the first rows). Each cell keeps its lines wrapped at the width it was last drawn at, so
laying the table out again re-wraps only the cells of the columns whose width changed, and the
row still being written re-wraps only the cells whose text changed.
"""

from __future__ import annotations

from rich.console import Console, JustifyMethod
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from acp_tui.ui.markdown.blocks import Block, Table
from acp_tui.ui.markdown.inline import inline_text
from acp_tui.ui.markdown.render import BlockView, RenderContext, fits_as_is

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


Wrapped = list[tuple[list[Segment], int]]
"""A cell's lines at one width: each line's segments and its width in cells."""


def cell_lines(console: Console, cell: Text, width: int, justify: JustifyMethod) -> Wrapped:
    """``cell`` wrapped at ``width``: a left-aligned cell that fits is its text padded to the
    width, as Rich's wrap would give it (without the wrap's cost: 21% of a 120-row table)."""
    if justify == "left" and fits_as_is(cell, width):
        line = cell.copy()
        line.truncate(width, overflow="fold", pad=True)
        lines = [line]
    else:
        lines = list(cell.wrap(console, width, justify=justify, overflow="fold"))
    return [(list(line.render(console)), line.cell_len) for line in lines]


class _Row:
    """One row: its cells' inline text and, per cell, (width, lines) as last wrapped."""

    __slots__ = ("cells", "sources", "wrapped")

    def __init__(self, sources: list[str], cells: list[Text]) -> None:
        self.sources = sources
        self.cells = cells
        self.wrapped: list[tuple[int, Wrapped] | None] = [None] * len(cells)


class TableView(BlockView):
    def __init__(self, block: Block, depth: int = 0) -> None:
        super().__init__(block, depth)
        assert isinstance(block, Table)
        self.table = block
        self._rows: list[_Row] = []  # the finished rows
        self._natural: list[int] = [0] * len(block.header)
        self._header: _Row | None = None
        self._partial: list[_Row] = []  # the rows still being written, as last drawn
        self._widths: list[int] = []
        self._layout_width = -1
        self._frame: tuple[Strip, list[Strip], Strip, Strip] | None = None  # edges, header
        self._flat: list[Strip] = []  # strips of rows[: _done]
        self._done = 0

    def _row(
        self,
        ctx: RenderContext,
        row: list[str],
        style: Style | None = None,
        like: _Row | None = None,
    ) -> _Row:
        """``row`` as inline text; cells whose text is that of ``like`` are taken from it."""
        if like is None or len(like.sources) != len(row):
            return _Row(row, [inline_text(cell, ctx.theme, style) for cell in row])
        same = [source == like.sources[index] for index, source in enumerate(row)]
        cells = [
            like.cells[index] if same[index] else inline_text(source, ctx.theme, style)
            for index, source in enumerate(row)
        ]
        made = _Row(row, cells)
        made.wrapped = [like.wrapped[index] if same[index] else None for index in range(len(row))]
        return made

    def _measure(self, row: _Row) -> None:
        for i, cell in enumerate(row.cells):
            self._natural[i] = max(self._natural[i], cell.cell_len)

    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Render the table's finished rows once each (the open last row every time), columns
        sized to fit.
        """
        table = self.table
        if self._header is None:
            self._header = self._row(ctx, table.header, ctx.theme.table_header)
            self._measure(self._header)
        stable = len(table.rows) if table.closed else max(len(table.rows) - 1, 0)
        while len(self._rows) < stable:
            index = len(self._rows)
            like = self._partial[0] if self._partial else None
            row = self._row(ctx, table.rows[index], like=like)
            self._partial = self._partial[1:]
            self._rows.append(row)
            self._measure(row)
        old = self._partial
        partial = [
            self._row(ctx, row, like=old[i] if i < len(old) else None)
            for i, row in enumerate(table.rows[stable:])
        ]
        self._partial = partial
        natural = list(self._natural)
        for row in partial:  # measured, not remembered: the partial row may still change
            natural = [max(n, cell.cell_len) for n, cell in zip(natural, row.cells, strict=True)]
        columns = len(table.header)
        widths = fit_widths(natural, width - 3 * columns - 1)
        if widths != self._widths or width != self._layout_width:
            self._widths, self._layout_width = widths, width
            self._flat, self._done, self._frame = [], 0, None
        while self._done < stable:
            self._flat.extend(self._render_row(ctx, self._rows[self._done]))
            self._done += 1
        tail: list[Strip] = []
        for row in partial:
            tail.extend(self._render_row(ctx, row))
        if self._frame is None:
            border = ctx.theme.table_border
            self._frame = (
                self._edge("┌", "┬", "┐", border),
                self._render_row(ctx, self._header),
                self._edge("├", "┼", "┤", border),
                self._edge("└", "┴", "┘", border),
            )
        top, header, middle, bottom = self._frame
        return [top, *header, middle, *self._flat, *tail, bottom]

    def _edge(self, left: str, middle: str, right: str, style: Style) -> Strip:
        inner = middle.join("─" * (w + 2) for w in self._widths)
        return Strip([Segment(f"{left}{inner}{right}", style)])

    def _wrapped(self, ctx: RenderContext, row: _Row, index: int) -> Wrapped:
        """Cell ``index`` of ``row`` wrapped at its column's width (again only if it changed)."""
        width = self._widths[index]
        known = row.wrapped[index]
        if known is not None and known[0] == width:
            return known[1]
        justify = _JUSTIFY.get(self.table.aligns[index], "left")
        wrapped = cell_lines(ctx.console, row.cells[index], width, justify)
        row.wrapped[index] = (width, wrapped)
        return wrapped

    def _render_row(self, ctx: RenderContext, row: _Row) -> list[Strip]:
        wrapped = [self._wrapped(ctx, row, index) for index in range(len(row.cells))]
        height = max((len(lines) for lines in wrapped), default=1)
        bar = Segment("│", ctx.theme.table_border)
        strips: list[Strip] = []
        for y in range(height):
            segments = [bar]
            for i, lines in enumerate(wrapped):
                segments.append(Segment(" "))
                if y < len(lines):
                    line, used = lines[y]
                    segments.extend(line)
                else:
                    used = 0
                segments.append(Segment(" " * (self._widths[i] - used + 1)))
                segments.append(bar)
            strips.append(Strip(segments))
        return strips
