"""A fenced code line that fits its width is drawn from its highlighted segments, not wrapped:
the same cells and styles as the wrap drew, for a fraction of the work (a 300-line fence)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.render import RenderContext

CODE = [
    "def handler_1(request: dict[str, int]) -> int:",
    '    """Docstring with ünïcode and 漢字 wide cells."""',
    "    total = request.get('a', 0) + 42  # a comment",
    "",
    "    return total",
]


def fence_lines(width: int) -> list[list[tuple[str, Style | None]]]:
    """Each screen line of the fence, as (character, style) per cell."""
    source = "```python\n" + "\n".join(CODE) + "\n```\n"
    document = DocumentView(BlockSplitter(), lambda: source)
    document.feed(source)
    document.close()
    document.update(RenderContext(Console(file=io.StringIO(), width=width)), width)
    return [cells(document.line(y)) for y in range(document.line_count)]


def cells(segments: object) -> list[tuple[str, Style | None]]:
    return [(char, segment.style) for segment in segments for char in segment.text]  # type: ignore[attr-defined]


def test_a_fitting_line_is_drawn_as_the_wrap_drew_it() -> None:
    width = 80
    ctx = RenderContext(Console(file=io.StringIO(), width=width))
    background = ctx.code_background
    lines = fence_lines(width)[1:-1]  # (the fence's edges)
    assert len(lines) == len(CODE)
    from pygments.lexers import PythonLexer

    lexer = PythonLexer(stripnl=False, ensurenl=False)
    theme = ctx.syntax_theme
    for line, drawn in zip(CODE, lines, strict=True):
        text = Text(style=background, end="")
        for token, value in lexer.get_tokens(line):
            text.append(value, theme.get_style_for_token(token))
        (part,) = text.wrap(ctx.console, width - 2, overflow="fold")
        padding = " " * (width - 2 - part.cell_len + 1)
        expected = [Segment(" ", background), *part.render(ctx.console)]
        expected.append(Segment(padding, background))
        assert drawn == cells(expected), line


def test_a_fitting_line_is_not_wrapped(monkeypatch: pytest.MonkeyPatch) -> None:
    wraps: list[str] = []
    wrap = Text.wrap

    def counting_wrap(self: Text, *args: object, **kwargs: object) -> object:
        wraps.append(self.plain)
        return wrap(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(Text, "wrap", counting_wrap)
    assert len(fence_lines(80)) == len(CODE) + 2
    assert not [plain for plain in wraps if plain in CODE]
    narrow = fence_lines(20)  # too narrow: those lines are wrapped, as before
    assert len(narrow) > len(CODE) + 2 and [plain for plain in wraps if plain in CODE]
