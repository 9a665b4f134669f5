"""Styles used to render Markdown in the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style

if TYPE_CHECKING:
    from rich.syntax import PygmentsSyntaxTheme


def _default_headings() -> tuple[Style, ...]:
    return (
        Style(bold=True, underline=True, color="#ff79c6"),
        Style(bold=True, color="#8be9fd"),
        Style(bold=True, color="#50fa7b"),
        Style(bold=True, color="#f1fa8c"),
        Style(bold=True, italic=True),
        Style(italic=True, dim=True),
    )


class MarkdownTheme:
    """Styles for every Markdown element (override attributes in a subclass to restyle)."""

    headings: tuple[Style, ...] = _default_headings()
    strong: Style = Style(bold=True)
    emphasis: Style = Style(italic=True)
    strike: Style = Style(strike=True)
    inline_code: Style = Style(color="#ffb86c", bgcolor="#2e2e38")
    link: Style = Style(color="#61afef", underline=True)
    quote_bar: Style = Style(color="#6272a4")
    quote_text: Style = Style(italic=True)
    bullet: Style = Style(color="#bd93f9", bold=True)
    rule: Style = Style(color="#6272a4")
    table_border: Style = Style(color="#6272a4")
    table_header: Style = Style(bold=True)
    html: Style = Style(dim=True)
    code_theme: str = "monokai"

    def heading(self, level: int) -> Style:
        """The style of a heading of `level` (clamped to the levels the theme has)."""
        return self.headings[min(max(level, 1), len(self.headings)) - 1]

    def syntax_theme(self) -> PygmentsSyntaxTheme:
        """The Pygments theme for code fences (pygments loads at the first one)."""
        from rich.syntax import PygmentsSyntaxTheme

        return PygmentsSyntaxTheme(self.code_theme)


DEFAULT_THEME = MarkdownTheme()
