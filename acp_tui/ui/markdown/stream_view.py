"""StreamingMarkdown: a widget that shows Markdown arriving in small chunks.

``append`` only feeds the block splitter (O(chunk)) and schedules one update per frame.
An update renders the blocks that closed since the last update once, appending their strips
to a frozen list, and re-renders the open block incrementally (its own view caches its
finished lines/rows/items).  ``finish`` closes the document; afterwards everything is frozen
strips, so a finished message costs nothing until the width changes.
"""

from __future__ import annotations

from textual.geometry import Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from acp_tui.ui.markdown.blocks import Block, BlockSplitter
from acp_tui.ui.markdown.containers import make_view, separated
from acp_tui.ui.markdown.render import BLANK, BlockView, RenderContext

FRAME_SECONDS = 1 / 60


class StreamingMarkdown(Widget):
    """Markdown that grows as text is appended, with work proportional to each chunk."""

    DEFAULT_CSS = """
    StreamingMarkdown {
        width: 1fr;
        height: auto;
    }
    """

    def __init__(
        self,
        markdown: str = "",
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._parts: list[str] = []
        self._splitter = BlockSplitter()
        self._finished = False
        self._render_ctx: RenderContext | None = None
        self._width = 0  # width the strips were rendered for (0: not rendered)
        self._frozen: list[Strip] = []  # strips of blocks[: _frozen_blocks]
        self._frozen_blocks = 0
        self._last_frozen: Block | None = None
        self._tail: list[Strip] = []  # strips of the open (and previewed) blocks
        self._views: dict[int, BlockView] = {}
        self._dirty = False
        self._timer: Timer | None = None
        self.render_passes = 0
        """How many times the document was brought up to date (for tests and benchmarks)."""
        if markdown:
            self.append(markdown)

    # -- public API ----------------------------------------------------------------------
    def append(self, text: str) -> None:
        """Add ``text`` to the end of the message.  The screen refreshes at most once a frame."""
        if not text:
            return
        if self._finished:
            raise RuntimeError("append() after finish()")
        self._parts.append(text)
        self._splitter.feed(text)
        self._mark_dirty()

    def finish(self) -> None:
        """The message is complete: close the open block; everything becomes static."""
        if self._finished:
            return
        self._finished = True
        self._splitter.close()
        self._mark_dirty()

    @property
    def finished(self) -> bool:
        return self._finished

    @property
    def source(self) -> str:
        """All Markdown text appended so far."""
        if len(self._parts) > 1:
            self._parts = ["".join(self._parts)]
        return self._parts[0] if self._parts else ""

    @property
    def rendered_text(self) -> str:
        """Plain text of the lines currently rendered (what the user sees after a refresh)."""
        return "\n".join(strip.text.rstrip() for strip in [*self._frozen, *self._tail])

    @property
    def line_count(self) -> int:
        return len(self._frozen) + len(self._tail)

    # -- refresh coalescing --------------------------------------------------------------
    def _mark_dirty(self) -> None:
        self._dirty = True
        if self._timer is None and self.is_mounted:
            self._timer = self.set_timer(FRAME_SECONDS, self._flush, name="markdown-frame")

    def on_mount(self) -> None:
        if self._dirty:
            self._mark_dirty()

    def _flush(self) -> None:
        self._timer = None
        if not self._dirty or not self.is_mounted:
            return
        width = self._width or self.size.width
        if width <= 0:
            return  # not laid out yet: get_content_height will render
        before = self.line_count
        self._update(width)
        self.refresh(layout=self.line_count != before)

    # -- rendering -----------------------------------------------------------------------
    def _ctx(self) -> RenderContext:
        if self._render_ctx is None:
            self._render_ctx = RenderContext(self.app.console)
        return self._render_ctx

    def _reset(self, width: int) -> None:
        self._width = width
        self._frozen, self._frozen_blocks, self._last_frozen = [], 0, None
        self._tail, self._views = [], {}
        self._dirty = True

    def _update(self, width: int) -> None:
        """Bring the strips up to date for ``width``."""
        if width != self._width:
            self._reset(width)
        if not self._dirty:
            return
        self._dirty = False
        self.render_passes += 1
        ctx = self._ctx()
        splitter = self._splitter
        closed = splitter.closed_count
        for block in splitter.blocks[self._frozen_blocks : closed]:
            view = self._views.pop(id(block), None)
            if view is None or view.block is not block:
                view = make_view(block)
            if separated(self._last_frozen, block, compact=False):
                self._frozen.append(BLANK)
            self._frozen.extend(view.render(ctx, width))
            self._last_frozen = block
        self._frozen_blocks = closed
        tail: list[Strip] = []
        views: dict[int, BlockView] = {}
        previous = self._last_frozen
        with splitter.preview() as blocks:
            for block in blocks[closed:]:
                view = self._views.get(id(block))
                if view is None or view.block is not block:
                    view = make_view(block)
                views[id(block)] = view
                if separated(previous, block, compact=False):
                    tail.append(BLANK)
                tail.extend(view.render(ctx, width))
                previous = block
        self._views = views
        self._tail = tail

    def get_content_width(self, container: Size, viewport: Size) -> int:
        return container.width

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        if width > 0:
            self._update(width)
        return self.line_count

    def on_resize(self) -> None:
        if self.size.width > 0 and self.size.width != self._width:
            self._update(self.size.width)
            self.refresh(layout=True)

    def render_line(self, y: int) -> Strip:
        frozen = len(self._frozen)
        if y < frozen:
            strip = self._frozen[y]
        elif y - frozen < len(self._tail):
            strip = self._tail[y - frozen]
        else:
            strip = BLANK
        style = self.rich_style
        return strip.apply_style(style).extend_cell_length(self.size.width, style)
