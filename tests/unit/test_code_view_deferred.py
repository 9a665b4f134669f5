"""A code fence whose lexer is not built yet, rendered while its stream bursts
(`RenderContext.defer_lexers`): drawn plain, its language noted, and coloured once the
document renders again with the lexer built."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.markdown import highlight
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.render import RenderContext

SOURCE = "```python\ndef handler(request):\n    return request  # done\n```\n\nthe end\n"
WIDTH = 60


def document_for(source: str) -> DocumentView:
    document = DocumentView(BlockSplitter(), lambda: source)
    document.feed(source)
    document.close()
    return document


def context() -> RenderContext:
    return RenderContext(Console(file=io.StringIO(), width=WIDTH, color_system="truecolor"))


def code_styles(document: DocumentView) -> set[Style | None]:
    """The styles of the text of the fence's `def` line."""
    (line,) = [strip for strip in lines(document) if "def" in strip.text]
    return {segment.style for segment in line if segment.text.strip()}


def lines(document: DocumentView) -> list[Strip]:
    return [document.line(y) for y in range(document.line_count)]


@pytest.fixture
def nothing_built(monkeypatch: pytest.MonkeyPatch) -> None:
    """No lexer built in this process (as before the warm-up and the first fence)."""
    monkeypatch.setattr(highlight, "_lexers", {})


def coloured_reference() -> list[Strip]:
    document = document_for(SOURCE)
    document.update(context(), WIDTH)
    return lines(document)


@pytest.mark.usefixtures("nothing_built")
def test_a_fence_rendered_in_a_burst_is_plain_until_rendered_again_with_its_lexer() -> None:
    ctx = context()
    ctx.defer_lexers = True
    document = document_for(SOURCE)
    document.update(ctx, WIDTH)
    assert ctx.lexers_wanted == {"python"}
    assert not highlight.lexer_ready("python")  # (not built by the render)
    assert len(code_styles(document)) == 1  # one plain style for the whole line
    assert "the end" in document.text

    highlight.lexer_for("python")
    ctx.lexers_wanted.clear()
    document.update(ctx, WIDTH)  # (nothing new: the plain lines stay)
    assert len(code_styles(document)) == 1
    document.render_again()
    document.update(ctx, WIDTH)
    assert len(code_styles(document)) > 1
    assert lines(document) == coloured_reference()
    assert ctx.lexers_wanted == set()


@pytest.mark.usefixtures("nothing_built")
def test_without_a_burst_the_lexer_is_built_at_the_first_render() -> None:
    ctx = context()
    document = document_for(SOURCE)
    document.update(ctx, WIDTH)
    assert highlight.lexer_ready("python")
    assert ctx.lexers_wanted == set()
    assert lines(document) == coloured_reference()


def test_a_burst_colours_a_fence_whose_lexer_is_built() -> None:
    highlight.lexer_for("python")
    ctx = context()
    ctx.defer_lexers = True
    document = document_for(SOURCE)
    document.update(ctx, WIDTH)
    assert ctx.lexers_wanted == set()
    assert lines(document) == coloured_reference()


def test_the_lexers_kept_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(highlight, "_lexers", {})
    monkeypatch.setattr(highlight, "KEPT_LEXERS", 3)
    for language in ["no-such-language-1", "no-such-language-2", "python", "json"]:
        highlight.lexer_for(language)
    assert list(highlight._lexers) == ["no-such-language-2", "python", "json"]
    assert highlight.lexer_ready("json")
    assert not highlight.lexer_ready("no-such-language-1")
    assert highlight.lexer_for("no-such-language-2") is None
    assert highlight.lexer_ready("")
