"""Inline Markdown (emphasis, code spans, links) → Rich ``Text``."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text

from acp_tui.ui.markdown.theme import MarkdownTheme

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


_SYNTAX = frozenset("\\`*_~[]!<&\n\r")
"""The characters that start inline Markdown (escapes, code, emphasis, strikethrough, links,
images, autolinks and HTML, entities, line breaks): text with none of them reads as itself."""


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # imported at the first message, not at start-up

    return MarkdownIt("commonmark").enable("strikethrough")


def parser() -> MarkdownIt:
    """markdown-it's parser, built once: at the first message, or ahead by `warm_up`."""
    return _parser()


def inline_text(source: str, theme: MarkdownTheme, base: Style | None = None) -> Text:
    """Render the inline Markdown of one paragraph (soft breaks become spaces)."""
    text = Text(style=base or Style())
    if not source:
        return text
    if _SYNTAX.isdisjoint(source):  # no parser needed (most table cells, plain sentences)
        text.append(source)
        return text
    tokens = _parser().parseInline(source)
    if not tokens or not tokens[0].children:
        text.append(source)
        return text
    stack: list[Style] = []

    def current() -> Style:
        return Style.combine(stack) if stack else Style()

    for token in tokens[0].children:
        kind = token.type
        if kind == "text":
            text.append(token.content, current())
        elif kind == "softbreak":
            text.append(" ", current())
        elif kind == "hardbreak":
            text.append("\n", current())
        elif kind == "code_inline":
            text.append(token.content, current() + theme.inline_code)
        elif kind == "strong_open":
            stack.append(theme.strong)
        elif kind == "em_open":
            stack.append(theme.emphasis)
        elif kind == "s_open":
            stack.append(theme.strike)
        elif kind == "link_open":
            href = str(token.attrs.get("href", ""))
            stack.append(theme.link + Style(link=href or None))
        elif kind in ("strong_close", "em_close", "s_close", "link_close"):
            if stack:
                stack.pop()
        elif kind == "image":
            alt = token.content or str(token.attrs.get("src", ""))
            text.append(f"[image: {alt}]", current() + theme.link)
        else:  # html_inline and anything unknown: show the source
            text.append(token.content, current())
    return text
