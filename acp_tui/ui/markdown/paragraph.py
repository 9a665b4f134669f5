"""A long open paragraph, rendered so that a frame costs O(new text), not O(paragraph).

Re-wrapping a whole open paragraph every frame is quadratic over a stream: an agent that
sends one 800 KB paragraph in 8-character chunks spent 30 s re-wrapping it. While the
paragraph is open and longer than `SEGMENT` characters, `GrowingParagraph`:

- parses the inline Markdown of the source in segments, each cut after a single space between
  two words, once. A segment is taken only when its rendering has no unmatched delimiter
  characters left (so a later closer cannot change it), or once it reaches `MAX_SEGMENT`;
- wraps incrementally: Rich's greedy wrap decides each break from the start of its line on,
  so every line but the last one of the parsed segments is final. Those lines are kept as
  strips; only the last line plus the unparsed rest is wrapped again per frame.

When the paragraph closes, its lines are the growing ones brought up to its end (what a
render in full gives: every segment taken parses as it does in the whole paragraph). Only after
a forced segment does `ParagraphView` render it once in full (exact inline parsing across
segments); until then a delimiter pair spread over two forced segments shows as text.
"""

from __future__ import annotations

from rich._wrap import divide_line  # the offsets Text.wrap breaks at (Rich's own helper)
from rich.text import Text
from textual.strip import Strip

from acp_tui.ui.markdown.blocks import Block, Paragraph
from acp_tui.ui.markdown.inline import inline_text
from acp_tui.ui.markdown.render import BlockView, RenderContext, wrap_text

SEGMENT = 32
"""Open paragraphs longer than this many source characters are rendered incrementally: a frame
parses again only the text after the last segment taken, so at most about this much besides what
arrived since the last frame (at 256, ~130 characters a frame were parsed again on average: a
third of the Markdown time of a prose stream)."""
MAX_SEGMENT = 64 * 1024
"""A segment is cut here even if it has unmatched delimiters (bounds the work per frame)."""
_DELIMITERS = frozenset("*_`[]~<>\\")


class GrowingParagraph:
    """Incremental rendering state for one open paragraph at one width."""

    def __init__(self) -> None:
        self._reset(0)

    def _reset(self, width: int) -> None:
        self.width = width
        self.consumed = ""  # source parsed into segments so far (a prefix of the paragraph)
        self.lines: list[Strip] = []  # final lines
        self.carry = Text()  # parsed text after the final lines (the start of the last line)
        self.forced = False  # a segment was cut at MAX_SEGMENT (its delimiters may pair later)

    def render(self, ctx: RenderContext, source: str, width: int) -> list[Strip]:
        """The strips of `source`, a longer version of the source of the last call (if not,
        or at another width, it starts over)."""
        if width != self.width or not source.startswith(self.consumed):
            self._reset(width)
        while len(source) - len(self.consumed) > SEGMENT and self._advance(ctx, source):
            pass
        carry = self.carry
        tail = carry.copy()
        tail.append_text(inline_text(source[len(self.consumed) :], ctx.theme))
        strips = wrap_text(ctx, tail, width) if tail.plain else []
        lines = [*self.lines, *strips]
        if len(carry.plain) > width and "\n" not in tail.plain:
            self._settle(tail.plain, strips)
        return lines

    def continues(self, source: str) -> bool:
        """Whether `source` is the paragraph this state grew (its parsed segments start it)."""
        return bool(self.consumed) and source.startswith(self.consumed)

    def _advance(self, ctx: RenderContext, source: str) -> bool:
        """Parse one more segment of the source into `carry`."""
        start = len(self.consumed)
        cut = _cut(source, start, len(source) - 1)
        if cut is None:
            return False
        segment = inline_text(source[start:cut], ctx.theme)
        if not _DELIMITERS.isdisjoint(segment.plain):
            if cut - start < MAX_SEGMENT:
                return False  # a later closer might still pair with a delimiter in it
            self.forced = True
        self.consumed += source[start:cut]
        self.carry.append_text(segment)
        newline = self.carry.plain.rfind("\n")
        if newline >= 0:  # a hard break ends its line for good
            self.lines.extend(wrap_text(ctx, self.carry[:newline], self.width))
            self.carry = self.carry[newline + 1 :]
        return True

    def _settle(self, plain: str, strips: list[Strip]) -> None:
        """Keep the lines that end inside `carry` as final.

        `carry` ends with a space and the unparsed rest starts a word, so a word that starts in
        `carry` ends there too: a break before it was decided by text that cannot change. The
        break at the end of `carry` is not final (the next word may still get shorter, as when
        `**` pairs up), so only breaks strictly inside `carry` count.
        """
        offsets = divide_line(plain, self.width, fold=True)
        if len(offsets) + 1 != len(strips):
            return  # not the wrap we expected (Text.wrap changed): keep everything open
        end = len(self.carry.plain)
        final = sum(1 for offset in offsets if offset < end)
        if final:
            self.lines.extend(strips[:final])
            self.carry = self.carry[offsets[final - 1] :]


def _cut(source: str, start: int, end: int) -> int | None:
    """The position after the last single space between two words in source[start:end]."""
    position = end
    while True:
        space = source.rfind(" ", start + 1, position)
        if space < 0:
            return None
        before, after = source[space - 1], source[space + 1]
        if not before.isspace() and not after.isspace():
            return space + 1
        position = space


class ParagraphView(BlockView):
    """A paragraph: rendered whole, or incrementally while it is open and long."""

    def __init__(self, block: Block, depth: int = 0) -> None:
        super().__init__(block, depth)
        self.growing: GrowingParagraph | None = None

    @property
    def source(self) -> str:
        """The paragraph's source text."""
        assert isinstance(self.block, Paragraph)
        return self.block.text

    def render(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Render the paragraph; a long open one grows line by line instead of being re-wrapped
        whole per chunk.
        """
        assert isinstance(self.block, Paragraph)
        source = self.block.text
        if not self.block.closed and (self.growing is not None or len(source) > SEGMENT):
            self.growing = self.growing or GrowingParagraph()
            self._key = None  # the whole-paragraph cache is stale
            return self.growing.render(ctx, source, width)
        return super().render(ctx, width)

    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Wrap the paragraph's inline text (agent text is never read as markup) to `width`;
        once closed after growing, its grown lines brought up to its end (wrapped whole only if
        a segment was forced)."""
        assert isinstance(self.block, Paragraph)
        growing, self.growing = self.growing, None
        if growing is not None and not growing.forced and self._key is None:  # (none cached)
            return growing.render(ctx, self.block.text, width)
        return wrap_text(ctx, inline_text(self.block.text, ctx.theme), width)
