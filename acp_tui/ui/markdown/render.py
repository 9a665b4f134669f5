"""Rendering blocks to Textual strips: shared context, helpers and the simple block views.

A *view* renders one block and caches the result under a key that captures everything that
can change in the block (blocks only grow, so the key is a few lengths and the last line).
Incremental views (code, tables, lists) additionally cache the finished parts of an open
block and only render what is new.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from functools import cached_property
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from acp_tui.ui.markdown.blocks import (
    Block,
    BlockSplitter,
    Heading,
    Html,
    LinesBlock,
    ListBlock,
    Quote,
    Table,
)
from acp_tui.ui.markdown.deeper import DEEPER_MARK, Deeper
from acp_tui.ui.markdown.inline import inline_text
from acp_tui.ui.markdown.theme import DEFAULT_THEME, MarkdownTheme

if TYPE_CHECKING:
    from rich.syntax import PygmentsSyntaxTheme

BLANK = Strip([])


class RenderContext:
    """What every view needs to render: the console (for measuring) and the theme."""

    def __init__(self, console: Console, theme: MarkdownTheme = DEFAULT_THEME) -> None:
        self.console = console
        self.theme = theme
        self.defer_lexers = False
        """Set by a streaming view (see `StreamingMarkdown`): a code fence whose lexer is not
        built yet is drawn plain and its language noted in `lexers_wanted`, rather than the
        text waiting for the build (60-85 ms of CPU for Python)."""
        self.lexers_wanted: set[str] = set()
        """Languages of fences drawn plain for want of their lexer (see `defer_lexers`)."""

    @cached_property
    def syntax_theme(self) -> PygmentsSyntaxTheme:
        return self.theme.syntax_theme()

    @cached_property
    def code_background(self) -> Style:
        return self.syntax_theme.get_background_style()


def fits_as_is(text: Text, width: int) -> bool:
    """Whether Rich would leave ``text`` on one line as it is when wrapping it to ``width``
    (one line that fits, no tab; counted in characters too: Rich drops an end space of a line
    that zero-width characters make fit exactly)."""
    plain = text.plain
    return (
        bool(plain)
        and "\n" not in plain
        and "\t" not in plain
        and len(plain) <= width
        and cell_len(plain) <= width
    )


def wrap_text(ctx: RenderContext, text: Text, width: int) -> list[Strip]:
    """Word-wrap ``text`` to ``width`` cells, one strip per line."""
    console = ctx.console
    if text.justify in (None, "default") and fits_as_is(text, width):
        return [Strip(list(text.render(console)))]  # (what wrapping gives, without its cost)
    lines = text.wrap(console, max(width, 1), overflow="fold")
    return [Strip(list(line.render(console))) for line in lines] or [BLANK]


def prefixed(strips: Iterable[Strip], first: Strip, rest: Strip) -> list[Strip]:
    """Prepend ``first`` to the first strip and ``rest`` to the others."""
    out: list[Strip] = []
    for strip in strips:
        out.append(Strip.join([rest if out else first, strip]))
    return out


class Prefixer:
    """`prefixed` for a container drawn again and again as its last part grows: a line whose
    inner strip is the same object as at the same place last time keeps its joined strip, so a
    frame joins only the lines that changed (not every line at every level of nesting)."""

    def __init__(self) -> None:
        self._heads: tuple[Strip, Strip] | None = None
        self._inner: list[Strip] = []
        self._out: list[Strip] = []

    def __call__(self, strips: list[Strip], first: Strip, rest: Strip) -> list[Strip]:
        heads = self._heads
        if heads is None or heads[0] is not first or heads[1] is not rest:
            self._heads, self._inner, self._out = (first, rest), [], []
        old_inner, old_out = self._inner, self._out
        known = len(old_inner)
        out: list[Strip] = []
        for index, strip in enumerate(strips):
            if index < known and old_inner[index] is strip:
                out.append(old_out[index])
            else:
                out.append(Strip.join([rest if index else first, strip]))
        self._inner, self._out = list(strips), out
        return out


def segment_strip(text: str, style: Style) -> Strip:
    """A one-segment strip of `text` in `style`."""
    return Strip([Segment(text, style)])


def block_key(block: Block) -> Hashable:
    """A value that changes whenever what ``block`` renders to may have changed."""
    if isinstance(block, LinesBlock):
        last_line = block.lines[-1] if block.lines else None
        return (block.kind, block.closed, len(block.lines), last_line)
    if isinstance(block, Table):
        last = tuple(block.rows[-1]) if block.rows else None
        return (block.kind, block.closed, tuple(block.aligns), len(block.rows), last)
    if isinstance(block, Quote):
        return (block.kind, block.closed, splitter_key(block.inner))
    if isinstance(block, ListBlock):
        return (block.kind, block.closed, len(block.items), splitter_key(block.items[-1].inner))
    if isinstance(block, Heading):
        return (block.kind, block.level, block.text)
    return (block.kind, block.closed)


def splitter_key(splitter: BlockSplitter) -> Hashable:
    """A cheap key that changes whenever the splitter's blocks change (count, last block and
    its state).
    """
    if not splitter.blocks:
        return 0
    last = splitter.blocks[-1]
    return (len(splitter.blocks), id(last), block_key(last))


class BlockView:
    """Renders one block; re-renders only when the block's key or the width changed."""

    def __init__(self, block: Block, depth: int = 0) -> None:
        self.block = block
        self.depth = depth
        self._key: Hashable = None
        self._width = -1
        self._strips: list[Strip] = []

    def render(self, ctx: RenderContext, width: int) -> list[Strip]:
        """The block's strips at `width`, re-rendered only when the block or the width changed."""
        key = block_key(self.block)
        if key != self._key or width != self._width:
            self._strips = self.render_block(ctx, max(width, 1))
            self._key, self._width = key, width
        return self._strips

    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Render the block at `width`; each kind of block implements it."""
        raise NotImplementedError


class HeadingView(BlockView):
    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Wrap the heading's inline text in its level's style."""
        assert isinstance(self.block, Heading)
        style = ctx.theme.heading(self.block.level)
        return wrap_text(ctx, inline_text(self.block.text, ctx.theme, style), width)


class RuleView(BlockView):
    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """A horizontal rule across the width."""
        return [segment_strip("─" * width, ctx.theme.rule)]


class HtmlView(BlockView):
    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """HTML shown as plain text in the theme's HTML style (never interpreted)."""
        assert isinstance(self.block, Html)
        return wrap_text(ctx, Text("\n".join(self.block.lines), ctx.theme.html), width)


class DeeperView(BlockView):
    """Lines nested deeper than `MAX_DEPTH`, each under `DEEPER_MARK`; a line is drawn once
    (the block grows by lines while it streams, and only its last line can still change)."""

    def __init__(self, block: Block, depth: int = 0) -> None:
        super().__init__(block, depth)
        self._lines: list[tuple[str, list[Strip]]] = []
        self._lines_width = -1

    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Nesting beyond the supported depth, shown as plain lines behind a mark."""
        assert isinstance(self.block, Deeper)
        if width != self._lines_width:
            self._lines, self._lines_width = [], width
        lines = self.block.lines
        del self._lines[len(lines) :]
        mark = segment_strip(DEEPER_MARK, ctx.theme.quote_bar)
        indent = segment_strip(" " * len(DEEPER_MARK), ctx.theme.quote_bar)
        inner = max(width - len(DEEPER_MARK), 1)
        out: list[Strip] = []
        for index, line in enumerate(lines):
            if index == len(self._lines) or self._lines[index][0] != line:
                strips = prefixed(wrap_text(ctx, inline_text(line, ctx.theme), inner), mark, indent)
                del self._lines[index:]
                self._lines.append((line, strips))
            out.extend(self._lines[index][1])
        return out
