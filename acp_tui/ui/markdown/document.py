"""DocumentView: the strips of a whole streaming document, brought up to date incrementally.

Blocks that closed since the last update are rendered once and appended to ``frozen``;
the open block (plus whatever the pending partial line would start) is rendered into
``tail`` by views that keep their own caches of finished lines, rows and items.
A finished document can be ``pack``ed: its lines become plain data (see `compact_lines`) and
the block views are dropped; ``line`` then builds strips on demand.

A message is never lost to a bug in the Markdown code: when splitting or rendering raises,
the document logs it once and from then on shows its ``source`` text plainly, under a note.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from rich.text import Text
from textual.strip import Strip

from acp_tui.ui.compact_lines import PackedLines, pack_all
from acp_tui.ui.markdown.blocks import Block, BlockSplitter
from acp_tui.ui.markdown.containers import make_view, separated
from acp_tui.ui.markdown.paragraph import GrowingParagraph, ParagraphView
from acp_tui.ui.markdown.render import BLANK, BlockView, RenderContext, wrap_text

logger = logging.getLogger(__name__)

FAILED_NOTE = "⚠ could not be shown as Markdown (logged); the text as it came:"


class DocumentView:
    """The rendered lines of one Markdown document: finished blocks frozen, the open tail re-
    rendered, or all packed once the stream ends.
    """

    def __init__(self, splitter: BlockSplitter, source: Callable[[], str] | None = None) -> None:
        """``source``: the text fed so far (what is shown plainly if the Markdown fails)."""
        self.splitter = splitter
        self._source = source
        self.failure: str | None = None
        """Why the Markdown could not be shown (then the text is shown plainly)."""
        self._plain_key: tuple[int, int] | None = None  # (width, length) of the plain lines
        self.width = 0  # width the strips were rendered for (0: never rendered)
        self.frozen: list[Strip] = []  # strips of splitter.blocks[: frozen_blocks]
        self.frozen_blocks = 0
        self.tail: list[Strip] = []  # strips of the open block(s)
        self._last_frozen: Block | None = None
        self._views: dict[int, BlockView] = {}
        # The open paragraph's incremental state: a preview makes a new Paragraph object for a
        # pending line every frame, and its new view takes this over (it checks the text).
        self._growing: GrowingParagraph | None = None
        self.packed: PackedLines | None = None
        """Every line as data once ``pack`` ran (``frozen`` and ``tail`` are then empty)."""
        self._stale = False  # see `render_again`

    @property
    def line_count(self) -> int:
        """How many screen lines the document has at the current width."""
        if self.packed is not None:
            return len(self.packed)
        return len(self.frozen) + len(self.tail)

    def pack(self) -> None:
        """Keep the lines as data only (the document is closed: nothing will change)."""
        if self.packed is None:
            self.packed = pack_all([*self.frozen, *self.tail])
            self.frozen, self.tail, self._views, self._growing = [], [], {}, None

    def line(self, y: int) -> Strip:
        """Screen line `y` (blank outside the document)."""
        if self.packed is not None:
            return self.packed[y] if 0 <= y < len(self.packed) else BLANK
        frozen = len(self.frozen)
        if y < frozen:
            return self.frozen[y]
        if y - frozen < len(self.tail):
            return self.tail[y - frozen]
        return BLANK

    @property
    def text(self) -> str:
        """Plain text of the rendered lines (trailing spaces removed)."""
        if self.packed is not None:
            return "\n".join(line.rstrip() for line in self.packed.texts())
        return "\n".join(strip.text.rstrip() for strip in [*self.frozen, *self.tail])

    def feed(self, text: str) -> None:
        """Feed ``text`` to the splitter (after a failure the splitter is left alone)."""
        if self.failure is None:
            try:
                self.splitter.feed(text)
            except Exception as error:
                self.fail(error)

    def close(self, source: str | None = None) -> None:
        """The end of the document: the splitter closes its blocks. ``source``: the whole text,
        kept from now on instead of asking the source given at the start (a closure over its
        widget, which the document would keep alive after handing over)."""
        if source is not None:
            self._source = lambda: source
        if self.failure is None:
            try:
                self.splitter.close()
            except Exception as error:
                self.fail(error)

    def fail(self, error: Exception) -> None:
        """Show the text plainly from now on (``error`` is logged with its traceback)."""
        if self.failure is None:
            self.failure = f"{type(error).__name__}: {error}"
            logger.error("Markdown could not be shown; showing plain text", exc_info=error)
            self.packed, self._views, self._growing = None, {}, None
            self._plain_key = None

    def _view(self, views: dict[int, BlockView], block: Block) -> BlockView:
        view = views.get(id(block))
        if view is None or view.block is not block:
            view = make_view(block)
        return view

    def update(self, ctx: RenderContext, width: int) -> None:
        """Render what changed since the last update (everything if ``width`` changed)."""
        if self.failure is None:
            try:
                self._update(ctx, width)
            except Exception as error:
                self.fail(error)
        if self.failure is not None:
            self._update_plain(ctx, width)

    def _update_plain(self, ctx: RenderContext, width: int) -> None:
        source = self._source() if self._source is not None else ""
        key = (width, len(source))
        if key == self._plain_key:
            return
        self.width, self._plain_key, self.packed = width, key, None
        note = wrap_text(ctx, Text(FAILED_NOTE, style="italic dim"), width)
        self.frozen = [*note, *wrap_text(ctx, Text(source), width)]
        self.frozen_blocks, self.tail = 0, []

    def render_again(self) -> None:
        """Render every block again at the next update, with new views (as for a new width):
        a code fence drawn plain for want of its lexer gets its colours."""
        self._stale = True

    def _update(self, ctx: RenderContext, width: int) -> None:
        if width != self.width or self._stale:
            self._stale = False
            self.width, self.packed = width, None
            self.frozen, self.frozen_blocks, self._last_frozen = [], 0, None
            self._views = {}
        splitter = self.splitter
        closed = splitter.closed_count
        for block in splitter.blocks[self.frozen_blocks : closed]:
            view = self._view(self._views, block)
            self._views.pop(id(block), None)
            growing = self._growing
            if (
                isinstance(view, ParagraphView)
                and view.growing is None
                and growing is not None
                and growing.continues(view.source)
            ):  # (closed in the update its line was completed: the last one grew a preview)
                view.growing, self._growing = growing, None
            if separated(self._last_frozen, block, compact=False):
                self.frozen.append(BLANK)
            self.frozen.extend(view.render(ctx, width))
            self._last_frozen = block
        self.frozen_blocks = closed
        tail: list[Strip] = []
        views: dict[int, BlockView] = {}
        previous = self._last_frozen
        with splitter.preview() as blocks:
            for block in blocks[closed:]:
                view = views[id(block)] = self._view(self._views, block)
                if isinstance(view, ParagraphView) and view.growing is None:
                    view.growing = self._growing
                if separated(previous, block, compact=False):
                    tail.append(BLANK)
                tail.extend(view.render(ctx, width))
                if isinstance(view, ParagraphView) and view.growing is not None:
                    self._growing = view.growing
                previous = block
        self._views = views
        self.tail = tail
