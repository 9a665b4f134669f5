"""Fenced code: each finished line is highlighted and wrapped once, on a panel background (a line
that fits is not wrapped: its highlighted segments are its strip, as wrapping would draw it).

In a streaming view (`RenderContext.defer_lexers`) a fence whose lexer is not built yet is
drawn plain for its whole life; the view builds the lexer once the stream pauses and renders the
document again, with new views."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.segment import Segment
from rich.text import Text
from textual.strip import Strip

from acp_tui.ui.markdown.blocks import Block, Code
from acp_tui.ui.markdown.highlight import ROOT, LexState, lex_line, lexer_for, lexer_ready
from acp_tui.ui.markdown.render import BlockView, RenderContext

if TYPE_CHECKING:  # pygments loads at the first code fence, not with the app
    from pygments.lexer import Lexer


class CodeView(BlockView):
    def __init__(self, block: Block, depth: int = 0) -> None:
        super().__init__(block, depth)
        assert isinstance(block, Code)
        self.code = block
        self._lexer: Lexer | None = None
        self._lexer_chosen = False  # (at the first render: see `_choose_lexer`)
        self._cache_width = -1
        self._flat: list[Strip] = []  # strips of the finished lines
        self._done = 0  # number of finished lines in _flat
        self._state: LexState = ROOT  # lexer state after the finished lines

    def render_block(self, ctx: RenderContext, width: int) -> list[Strip]:
        """Highlight the fence's finished lines once each (the open last line every time),
        wrapped to `width`.
        """
        if not self._lexer_chosen:
            self._choose_lexer(ctx)
        if width != self._cache_width:
            self._flat, self._done, self._state = [], 0, ROOT
            self._cache_width = width
        lines = self.code.content
        stable = len(lines) if self.code.closed else max(len(lines) - 1, 0)
        if self._done > stable:  # defensive: never expected (finished lines do not change)
            self._flat, self._done, self._state = [], 0, ROOT
        while self._done < stable:
            strips, self._state = self._render_line(ctx, lines[self._done], self._state, width)
            self._flat.extend(strips)
            self._done += 1
        tail: list[Strip] = []
        state = self._state
        for line in lines[stable:]:
            strips, state = self._render_line(ctx, line, state, width)
            tail.extend(strips)
        return [self._edge(ctx, width, top=True), *self._flat, *tail, self._edge(ctx, width)]

    def _choose_lexer(self, ctx: RenderContext) -> None:
        self._lexer_chosen = True
        language = self.code.language
        if ctx.defer_lexers and not lexer_ready(language):
            ctx.lexers_wanted.add(language)  # (plain: the lexer stays None)
        else:
            self._lexer = lexer_for(language)

    def _edge(self, ctx: RenderContext, width: int, top: bool = False) -> Strip:
        background = ctx.code_background
        label = f" {self.code.language} " if top and self.code.language else ""
        if len(label) > width:
            label = ""
        fill = Segment(" " * (width - len(label)), background)
        if not label:
            return Strip([fill])
        return Strip([fill, Segment(label, background + ctx.theme.html)])

    def _render_line(
        self, ctx: RenderContext, line: str, state: LexState, width: int
    ) -> tuple[list[Strip], LexState]:
        tokens, state = lex_line(self._lexer, line, state)
        background = ctx.code_background
        theme = ctx.syntax_theme
        inner = max(width - 2, 1)
        cells = cell_len(line)
        if cells <= inner and "\t" not in line:  # fits: its segments as they are, no wrap
            segments = [Segment(" ", background)]
            segments += [
                Segment(value, background + theme.get_style_for_token(token))
                for token, value in tokens
                if value
            ]
            segments.append(Segment(" " * (inner - cells + 1), background))
            return [Strip(segments, inner + 2)], state
        text = Text(style=background, end="")
        for token, value in tokens:
            text.append(value, theme.get_style_for_token(token))
        console = ctx.console
        strips: list[Strip] = []
        for part in text.wrap(console, inner, overflow="fold"):
            segments = [Segment(" ", background), *part.render(console)]
            segments.append(Segment(" " * (inner - part.cell_len + 1), background))
            strips.append(Strip(segments))
        return strips, state
