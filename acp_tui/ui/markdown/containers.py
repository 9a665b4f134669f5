"""Views of container blocks (lists, block quotes) and of a whole sequence of blocks."""

from __future__ import annotations

from collections.abc import Hashable

from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.markdown.blocks import (
    Block,
    BlockSplitter,
    Code,
    Heading,
    Html,
    ListBlock,
    ListItem,
    Paragraph,
    Quote,
    Rule,
    Table,
)
from acp_tui.ui.markdown.code_view import CodeView
from acp_tui.ui.markdown.deeper import Deeper
from acp_tui.ui.markdown.paragraph import ParagraphView
from acp_tui.ui.markdown.render import (
    BLANK,
    BlockView,
    DeeperView,
    HeadingView,
    HtmlView,
    Prefixer,
    RenderContext,
    RuleView,
    segment_strip,
    splitter_key,
)
from acp_tui.ui.markdown.table_view import TableView

BULLETS = ("•", "◦", "▪", "‣")


def make_view(block: Block, depth: int = 0) -> BlockView:
    """The view that renders ``block`` (``depth`` is the list nesting level)."""
    if isinstance(block, Paragraph):
        return ParagraphView(block, depth)
    if isinstance(block, Heading):
        return HeadingView(block, depth)
    if isinstance(block, Code):
        return CodeView(block, depth)
    if isinstance(block, Table):
        return TableView(block, depth)
    if isinstance(block, ListBlock):
        return ListView(block, depth)
    if isinstance(block, Quote):
        return QuoteView(block, depth)
    if isinstance(block, Rule):
        return RuleView(block, depth)
    if isinstance(block, Html):
        return HtmlView(block, depth)
    if isinstance(block, Deeper):
        return DeeperView(block, depth)
    raise TypeError(f"no view for {type(block).__name__}")


def separated(previous: Block | None, block: Block, compact: bool) -> bool:
    """Whether a blank line goes between ``previous`` and ``block``."""
    if previous is None:
        return False
    tight = ListBlock | Deeper  # a list's items, and what is nested deeper in them
    return not (compact and (isinstance(block, tight) or isinstance(previous, tight)))


class SequenceView:
    """Renders the blocks of a splitter, reusing one view per block."""

    def __init__(self, splitter: BlockSplitter, depth: int = 0, compact: bool = False) -> None:
        self.splitter = splitter
        self.depth = depth
        self.compact = compact
        self._views: dict[int, BlockView] = {}

    def view_for(self, block: Block) -> BlockView:
        """The view of a block: the one made for it before, or a new one."""
        view = self._views.get(id(block))
        if view is None or view.block is not block:
            view = make_view(block, self.depth)
        return view

    def render(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Render every block of the splitter with blank lines between them; views of gone
        blocks are dropped.
        """
        out: list[Strip] = []
        views: dict[int, BlockView] = {}
        previous: Block | None = None
        for block in self.splitter.blocks:
            view = self.view_for(block)
            views[id(block)] = view
            if separated(previous, block, self.compact):
                out.append(BLANK)
            out.extend(view.render(ctx, width))
            previous = block
        self._views = views
        return out


class ItemView:
    """One list item: its content rendered beside the marker, cached until it changes."""

    def __init__(self, item: ListItem, depth: int) -> None:
        self.item = item
        self.content = SequenceView(item.inner, depth + 1, compact=True)
        self._key: Hashable = None
        self._strips: list[Strip] = []
        self._heads: tuple[Hashable, Strip, Strip] | None = None  # (marker, style), strips
        self._prefix = Prefixer()

    def render(self, ctx: RenderContext, width: int, marker: str) -> list[Strip]:
        """Render the item's blocks beside its marker, cached until the item, width or marker
        changes.
        """
        key = (splitter_key(self.item.inner), width, marker)
        if key != self._key:
            inner = self.content.render(ctx, max(width - len(marker), 1)) or [BLANK]
            heads_key = (marker, ctx.theme.bullet)
            if self._heads is None or self._heads[0] != heads_key:
                first = segment_strip(marker, ctx.theme.bullet)
                indent = segment_strip(" " * len(marker), ctx.theme.bullet)
                self._heads = (heads_key, first, indent)
            _, first, indent = self._heads
            self._strips = self._prefix(inner, first, indent)
            self._key = key
        return self._strips


class ListView(BlockView):
    def __init__(self, block: Block, depth: int = 0) -> None:
        super().__init__(block, depth)
        assert isinstance(block, ListBlock)
        self.list = block
        self._items: list[ItemView] = []

    def _marker(self, index: int, width: int) -> str:
        if self.list.ordered:
            return f"{self.list.start + index}{self.list.delimiter} ".rjust(width)
        return f"{BULLETS[self.depth % len(BULLETS)]} "

    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Render each item with its bullet or number, reusing the views of unchanged items."""
        items = self.list.items
        del self._items[len(items) :]
        for i, item in enumerate(items):
            if i == len(self._items):
                self._items.append(ItemView(item, self.depth))
            elif self._items[i].item is not item:
                self._items[i] = ItemView(item, self.depth)
        marker_width = len(f"{self.list.start + len(items) - 1}{self.list.delimiter} ")
        out: list[Strip] = []
        for i, view in enumerate(self._items):
            out.extend(view.render(ctx, width, self._marker(i, marker_width)))
        return out


class QuoteView(BlockView):
    def __init__(self, block: Block, depth: int = 0) -> None:
        super().__init__(block, depth)
        assert isinstance(block, Quote)
        self.content = SequenceView(block.inner, depth)
        self._bar: tuple[Style, Strip] | None = None
        self._prefix = Prefixer()

    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Render the quote's blocks two columns narrower behind a bar."""
        inner = self.content.render(ctx, max(width - 2, 1)) or [BLANK]
        if self._bar is None or self._bar[0] != ctx.theme.quote_bar:
            self._bar = (ctx.theme.quote_bar, segment_strip("▌ ", ctx.theme.quote_bar))
        bar = self._bar[1]
        return self._prefix(inner, bar, bar)
