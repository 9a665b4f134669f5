"""Per-line syntax colouring and word emphasis for the diff viewer (Rich + pygments, no Textual).

Lines are lexed one at a time, on first display, and cached: a 5,000-line diff costs nothing
until it is scrolled. The price is that constructs spanning lines (docstrings) are coloured as
if each line stood alone.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

from acp_tui.safe_text import safe_line
from acp_tui.thread.diff import word_spans

if TYPE_CHECKING:  # pygments loads at the first diff shown, not with the app
    from pygments.lexer import Lexer
    from pygments.token import _TokenType
    from rich.syntax import PygmentsSyntaxTheme

DARK_THEME = "monokai"
LIGHT_THEME = "default"
MAX_CHANGED_FRACTION = 0.6
"""Above this share of changed characters a modified line gets no word emphasis (all noise)."""


def display_text(text: str) -> str:
    """A line as drawn: tabs expanded, controls and bidi overrides shown as visible symbols
    (`safe_line`: one character for one, so word spans stay aligned)."""
    return safe_line(text.expandtabs(4))


def lexer_for_path(path: str) -> Lexer | None:
    """The pygments lexer for a file name's extension, or None for plain text."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    if not name:
        return None
    from pygments.lexers import get_lexer_for_filename
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_for_filename(name, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None
    return None if lexer.name == "Text only" else lexer


@lru_cache(maxsize=4096)
def emphasis_spans(
    old_line: str, new_line: str
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The word spans worth emphasising in a modified pair (none if most of it changed)."""
    old_spans, new_spans = word_spans(old_line, new_line)
    changed = sum(e - s for s, e in old_spans) + sum(e - s for s, e in new_spans)
    total = len(old_line) + len(new_line)
    if total == 0 or changed > MAX_CHANGED_FRACTION * total:
        return [], []
    return old_spans, new_spans


def _syntax_theme(name: str) -> PygmentsSyntaxTheme:
    from rich.syntax import PygmentsSyntaxTheme

    return PygmentsSyntaxTheme(name)


LINES_KEPT = 4096
"""Highlighted lines a `LineHighlighter` keeps (a diff of a large file is not kept whole)."""


class LineHighlighter:
    """Colours single lines of one file type; results are cached per line text."""

    def __init__(self, path: str, dark: bool = True) -> None:
        self._lexer = lexer_for_path(path)
        self._dark = dark
        self._theme = _syntax_theme(DARK_THEME if dark else LIGHT_THEME)
        self._token_styles: dict[_TokenType, Style] = {}
        self._cache: dict[str, Text] = {}

    @property
    def language(self) -> str | None:
        """The name of the lexer chosen from the file name, if any."""
        return self._lexer.name if self._lexer is not None else None

    @property
    def dark(self) -> bool:
        """True when highlighting for a dark background."""
        return self._dark

    def set_dark(self, dark: bool) -> None:
        """Switch between the dark and light syntax themes (drops the cache)."""
        if dark == self._dark:
            return
        self._dark = dark
        self._theme = _syntax_theme(DARK_THEME if dark else LIGHT_THEME)
        self._token_styles.clear()
        self._cache.clear()

    def _token_style(self, token_type: _TokenType) -> Style:
        style = self._token_styles.get(token_type)
        if style is None:
            full = self._theme.get_style_for_token(token_type)
            # foreground only (the diff row supplies the background), and the theme's plain
            # text colour left out so that the widget's own text colour shows
            from pygments.token import Token

            plain = self._theme.get_style_for_token(Token.Text).color
            style = Style(
                color=None if full.color == plain else full.color,
                bold=full.bold,
                italic=full.italic,
                underline=full.underline,
            )
            self._token_styles[token_type] = style
        return style

    def highlight(self, line: str) -> Text:
        """`line` (already a display text) with syntax colours; do not mutate the result."""
        text = self._cache.get(line)
        if text is not None:
            return text
        text = Text(line, no_wrap=True, end="")
        if self._lexer is not None and line.strip():
            offset = 0
            for token_type, value in self._lexer.get_tokens(line):
                end = offset + len(value)
                style = self._token_style(token_type)
                if style.color is not None or style.bold or style.italic:
                    text.stylize(style, offset, end)
                offset = end
        if len(self._cache) >= LINES_KEPT:  # (bounded: the oldest line goes first)
            del self._cache[next(iter(self._cache))]
        self._cache[line] = text
        return text
