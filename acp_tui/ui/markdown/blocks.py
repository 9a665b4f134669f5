"""Incremental Markdown block splitter (pure: no Textual, no Rich).

Text arrives in chunks.  Only complete lines are committed; each committed line is offered
to the open (last) block only, so the work per chunk is proportional to the chunk.  The
incomplete last line can be shown through :meth:`BlockSplitter.preview`, which feeds it
tentatively and rolls the state back afterwards (the rollback is O(1) per nesting level:
blocks only ever grow by appending, so a mark is a handful of lengths).

Container blocks (block quotes, list items) hold an inner :class:`BlockSplitter` fed with
the line minus the container's prefix, so nesting is handled by recursion, bounded: past
`MAX_DEPTH` levels a line is taken flat into a `Deeper` block (see `deeper`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

from acp_tui.ui.markdown.block_base import Block as Block
from acp_tui.ui.markdown.block_base import Kind as Kind
from acp_tui.ui.markdown.block_base import LinesBlock as LinesBlock
from acp_tui.ui.markdown.deeper import MAX_DEPTH, Deeper, flatten, opens_container
from acp_tui.ui.markdown.lines import (
    ATX,
    ATX_CLOSE,
    FENCE,
    HTML,
    QUOTE,
    RULE,
    SETEXT,
    ItemStart,
    fence_info,
    indent_of,
    interrupts_paragraph,
    is_blank,
    match_item,
    parse_delimiter_row,
    split_row,
)


class Paragraph(LinesBlock):
    kind = Kind.PARAGRAPH

    def accept(self, line: str) -> bool:
        if self.closed or is_blank(line) or interrupts_paragraph(line):
            return False
        self.lines.append(line.lstrip())  # trailing "  " is a hard line break
        return True

    @property
    def text(self) -> str:
        """The paragraph's source text, its lines joined, trailing space removed."""
        return "\n".join(self.lines).rstrip()

    @property
    def continues_paragraph(self) -> bool:
        return not self.closed


class Heading(Block):
    kind = Kind.HEADING

    def __init__(self, level: int, text: str) -> None:
        super().__init__()
        self.level = level
        self.text = text
        self.closed = True

    def outline(self) -> tuple[object, ...]:
        return (self.kind.value, self.level, self.text)


class Rule(Block):
    kind = Kind.RULE

    def __init__(self) -> None:
        super().__init__()
        self.closed = True


class Html(LinesBlock):
    kind = Kind.HTML

    def accept(self, line: str) -> bool:
        if self.closed or is_blank(line):
            return False
        self.lines.append(line)
        return True


class Code(LinesBlock):
    """A fenced code block (``fence`` set) or an indented one (``fence`` empty)."""

    kind = Kind.CODE

    def __init__(self, fence: str = "", info: str = "", indent: int = 0) -> None:
        super().__init__()
        self.fence = fence
        self.info = info.strip()
        self.indent = indent

    @property
    def language(self) -> str:
        """The fence's language (the first word of its info string), or ""."""
        return self.info.split(maxsplit=1)[0] if self.info else ""

    def accept(self, line: str) -> bool:
        if self.closed:
            return False
        if not self.fence:
            if is_blank(line):
                self.lines.append("")
                return True
            if indent_of(line) < 4:
                return False
            self.lines.append(line[4:])
            return True
        stripped = line.strip()
        if (
            indent_of(line) < 4
            and stripped.startswith(self.fence)
            and stripped == self.fence[0] * len(stripped)
        ):
            self.closed = True
            return True
        self.lines.append(line[min(self.indent, indent_of(line)) :])
        return True

    @property
    def content(self) -> list[str]:
        """The code lines (an indented block does not own its trailing blank lines)."""
        if self.fence:
            return self.lines
        end = len(self.lines)
        while end and not self.lines[end - 1].strip():
            end -= 1
        return self.lines[:end]

    def outline(self) -> tuple[object, ...]:
        return (self.kind.value, self.info, tuple(self.content))


class Table(Block):
    kind = Kind.TABLE

    def __init__(self, header: list[str], aligns: list[str]) -> None:
        super().__init__()
        self.header = header
        self.aligns = aligns
        self.rows: list[list[str]] = []

    def accept(self, line: str) -> bool:
        if self.closed or is_blank(line) or interrupts_paragraph(line):
            return False
        cells = split_row(line)
        width = len(self.header)
        self.rows.append((cells + [""] * width)[:width])
        return True

    def mark(self) -> object:
        return (self.closed, len(self.rows))

    def rollback(self, mark: object) -> None:
        """Return to the recorded state: closed flag and row count."""
        self.closed, n = cast(tuple[bool, int], mark)
        del self.rows[n:]

    def outline(self) -> tuple[object, ...]:
        rows = tuple(tuple(r) for r in self.rows)
        return (self.kind.value, tuple(self.header), tuple(self.aligns), rows)


class Quote(Block):
    kind = Kind.QUOTE

    def __init__(self, depth: int = 0) -> None:
        """A quote in a splitter ``depth`` containers deep."""
        super().__init__()
        self.inner = BlockSplitter(depth + 1)
        self._last_blank = False

    def accept(self, line: str) -> bool:
        if self.closed:
            return False
        m = QUOTE.match(line)
        if m is not None:
            self.inner.feed_line(m.group(1))
            return True
        if not is_blank(line) and self.inner.continues_paragraph and not interrupts_paragraph(line):
            self.inner.feed_line(line)
            return True
        return False

    def close(self) -> None:
        """Close the quote and the blocks inside it."""
        super().close()
        self.inner.close()

    def mark(self) -> object:
        return (self.closed, self.inner.mark())

    def rollback(self, mark: object) -> None:
        """Return to the recorded state, the quote's inner blocks included."""
        self.closed, inner = cast(tuple[bool, object], mark)
        self.inner.rollback(inner)

    def outline(self) -> tuple[object, ...]:
        return (self.kind.value, self.inner.outline())

    @property
    def continues_paragraph(self) -> bool:
        return not self.closed and self.inner.continues_paragraph


class ListItem:
    """One list item: its marker's indent and number, and the blocks inside it (split one level
    deeper).
    """

    def __init__(self, start: ItemStart, depth: int = 0) -> None:
        self.indent = start.indent
        self.number = start.number
        self.inner = BlockSplitter(depth + 1)
        if start.content:
            self.inner.feed_line(start.content)


class ListBlock(Block):
    """A bullet or ordered list; each item's content is an inner document."""

    kind = Kind.LIST

    def __init__(self, first: ItemStart, depth: int = 0) -> None:
        """A list in a splitter ``depth`` containers deep."""
        super().__init__()
        self.depth = depth
        self.ordered = first.ordered
        self.delimiter = first.delimiter
        self.start = first.number
        self.items: list[ListItem] = [ListItem(first, depth)]
        self._last_blank = False

    def accept(self, line: str) -> bool:
        if self.closed:
            return False
        item = self.items[-1]
        blank = is_blank(line)
        if blank:
            item.inner.feed_line("")
        elif indent_of(line) >= item.indent:
            item.inner.feed_line(line[item.indent :])
        elif (start := match_item(line)) is not None:
            if start.ordered != self.ordered or start.delimiter != self.delimiter:
                return False
            item.inner.close()
            self.items.append(ListItem(start, self.depth))
        elif not self._last_blank and item.inner.continues_paragraph:
            if interrupts_paragraph(line):
                return False
            item.inner.feed_line(line.strip())
        else:
            return False
        self._last_blank = blank
        return True

    def close(self) -> None:
        """Close the list and the blocks of its last item."""
        super().close()
        self.items[-1].inner.close()

    def mark(self) -> object:
        return (self.closed, self._last_blank, len(self.items), self.items[-1].inner.mark())

    def rollback(self, mark: object) -> None:
        """Return to the recorded state: items, blank-line flag and the last item's inner
        blocks.
        """
        self.closed, self._last_blank, n, inner = cast(tuple[bool, bool, int, object], mark)
        del self.items[n:]
        self.items[-1].inner.rollback(inner)

    def outline(self) -> tuple[object, ...]:
        items = tuple(item.inner.outline() for item in self.items)
        return (self.kind.value, self.ordered, self.start, items)

    @property
    def continues_paragraph(self) -> bool:
        return not self.closed and self.items[-1].inner.continues_paragraph


class BlockSplitter:
    """Splits a growing Markdown document into blocks, one committed line at a time."""

    def __init__(self, depth: int = 0) -> None:
        self.depth = depth
        """How many containers this splitter is inside (at `MAX_DEPTH` it opens none)."""
        self.blocks: list[Block] = []
        self._pending: list[str] = []

    # -- feeding -------------------------------------------------------------------------
    def feed(self, text: str) -> None:
        """Add ``text``; cost is O(len(text)) plus the complete lines it finishes."""
        if "\n" not in text:
            if text:
                self._pending.append(text)
            return
        parts = text.split("\n")
        self._pending.append(parts[0])
        self.feed_line("".join(self._pending))
        for part in parts[1:-1]:
            self.feed_line(part)
        self._pending = [parts[-1]] if parts[-1] else []

    @property
    def pending(self) -> str:
        """The incomplete last line (not yet committed)."""
        return "".join(self._pending)

    def close(self) -> None:
        """End of document: commit the pending line and close every open block."""
        if self._pending:
            line = self.pending
            self._pending = []
            self.feed_line(line)
        if self.blocks and not self.blocks[-1].closed:
            self.blocks[-1].close()

    @property
    def open_block(self) -> Block | None:
        """The last block if it can still take lines, else None."""
        if self.blocks and not self.blocks[-1].closed:
            return self.blocks[-1]
        return None

    @property
    def closed_count(self) -> int:
        """Number of leading blocks that are closed (they will never change again)."""
        return len(self.blocks) - (1 if self.open_block is not None else 0)

    @property
    def continues_paragraph(self) -> bool:
        """Whether the next line would continue an open paragraph (lazy continuation)."""
        block = self.open_block
        return block is not None and block.continues_paragraph

    def feed_line(self, line: str) -> None:
        """Commit one complete line (without its newline)."""
        line = line.rstrip("\r").expandtabs(4)
        block = self.open_block
        if block is not None:
            if isinstance(block, Paragraph) and self._convert_paragraph(block, line):
                return
            if block.accept(line):
                return
            block.close()
        self._start(line)

    def _convert_paragraph(self, para: Paragraph, line: str) -> bool:
        """Setext underline → heading; delimiter row → the last line becomes a table header."""
        setext = SETEXT.match(line)
        if setext is not None and not (setext.group(1)[0] == "-" and len(para.lines) == 0):
            level = 1 if setext.group(1)[0] == "=" else 2
            self.blocks[-1] = Heading(level, para.text)
            return True
        aligns = parse_delimiter_row(line)
        if aligns is None:
            return False
        header = split_row(para.lines[-1])
        if "|" not in para.lines[-1] or len(header) != len(aligns):
            return False
        if len(para.lines) > 1:
            rest = Paragraph(para.lines[:-1])
            rest.closed = True
            self.blocks[-1] = rest
            self.blocks.append(Table(header, aligns))
        else:
            self.blocks[-1] = Table(header, aligns)
        return True

    def _start(self, line: str) -> None:
        if is_blank(line):
            return
        if self.depth >= MAX_DEPTH and opens_container(line):
            deeper = Deeper()
            deeper.lines.append(flatten(line))
            self.blocks.append(deeper)
        elif (fence := FENCE.match(line)) is not None and "`" not in fence_info(line):
            self.blocks.append(Code(fence.group(2), fence.group(3), len(fence.group(1))))
        elif (atx := ATX.match(line)) is not None:
            text = ATX_CLOSE.sub("", atx.group(2) or "").strip()
            self.blocks.append(Heading(len(atx.group(1)), text))
        elif RULE.match(line):
            self.blocks.append(Rule())
        elif (quote := QUOTE.match(line)) is not None:
            block = Quote(self.depth)
            block.inner.feed_line(quote.group(1))
            self.blocks.append(block)
        elif (item := match_item(line)) is not None:
            self.blocks.append(ListBlock(item, self.depth))
        elif HTML.match(line):
            html = Html()
            html.lines.append(line)
            self.blocks.append(html)
        elif indent_of(line) >= 4:
            code = Code()
            code.lines.append(line[4:])
            self.blocks.append(code)
        else:
            self.blocks.append(Paragraph([line.lstrip()]))

    # -- tentative view ------------------------------------------------------------------
    def mark(self) -> object:
        """An opaque snapshot of the split so far (`rollback` restores it)."""
        if not self.blocks:
            return (0, None, None)
        last = self.blocks[-1]
        return (len(self.blocks), last, last.mark())

    def rollback(self, mark: object) -> None:
        """Return to the state `mark` recorded: drop blocks added since and roll the last one
        back.
        """
        n, last, last_mark = cast(tuple[int, Block | None, object], mark)
        del self.blocks[n:]
        if last is not None:
            self.blocks[n - 1] = last
            last.rollback(last_mark)

    @contextmanager
    def preview(self) -> Iterator[list[Block]]:
        """The blocks as if the pending partial line were complete; state restored after."""
        pending = self.pending
        if not pending:
            yield self.blocks
            return
        saved = self.mark()
        try:
            self.feed_line(pending)
            yield self.blocks
        finally:
            self.rollback(saved)

    def outline(self) -> tuple[object, ...]:
        """The block structure as nested tuples (what tests compare, not what is drawn)."""
        return tuple(block.outline() for block in self.blocks)


def split_blocks(text: str) -> list[Block]:
    """Split a whole document at once (all blocks closed)."""
    splitter = BlockSplitter()
    splitter.feed(text)
    splitter.close()
    return splitter.blocks
