"""Markdown drawn by acp-tui's own renderer as a Rich renderable, for places that take one.

Rich's own `Markdown` parses blocks with markdown-it, whose `maxNesting` (20 levels) drops
everything after the first block nested deeper, to the end of the text, without a trace: an
agent could hide text that way. This renderer bounds nesting by drawing deeper levels flat
(see `deeper`) and loses nothing.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.segment import Segment

from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.render import RenderContext


class MarkdownText:
    """``text`` as Markdown, laid out for the width it is rendered at."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        text = self.text
        document = DocumentView(BlockSplitter(), lambda: text)
        document.feed(text)
        document.close()
        document.update(RenderContext(console), max(options.max_width, 1))
        for y in range(document.line_count):
            yield from document.line(y)
            yield Segment.line()
