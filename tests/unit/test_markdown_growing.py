"""A long open paragraph is rendered incrementally, and looks as if it were rendered whole."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console
from textual.strip import Strip

from acp_tui.ui.markdown import paragraph
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.inline import inline_text
from acp_tui.ui.markdown.render import RenderContext, wrap_text

WIDTH = 57


def context() -> RenderContext:
    return RenderContext(Console(file=io.StringIO(), width=120, color_system="truecolor"))


def prose(words: int, seed: int, markup: bool) -> str:
    rng = random.Random(seed)
    vocabulary = ["a", "streaming", "paragraph", "of", "words;", "x" * 70, "wrap.", "it"]
    if markup:
        vocabulary += ["**bold words**", "`some code`", "*em*", "[a link](http://x.y)"]
    return " ".join(rng.choice(vocabulary) for _ in range(words))


def whole(ctx: RenderContext, source: str) -> list[Strip]:
    """The reference: the paragraph parsed and wrapped in one go."""
    return wrap_text(ctx, inline_text(source, ctx.theme), WIDTH)


def same(a: list[Strip], b: list[Strip]) -> bool:
    return [list(strip) for strip in a] == [list(strip) for strip in b]


@pytest.mark.parametrize("markup", [False, True])
def test_streamed_paragraph_renders_like_the_whole_paragraph(markup: bool) -> None:
    ctx = context()
    source = prose(1200, seed=7, markup=markup)  # ~60 frames checked, each against a full parse
    splitter = BlockSplitter()
    document = DocumentView(splitter)
    rng = random.Random(3)
    position = checks = 0
    while position < len(source):
        step = rng.randint(1, 400)
        splitter.feed(source[position : position + step])
        position += step
        document.update(ctx, WIDTH)
        growing = document._growing
        if growing is not None and growing.lines:
            checks += 1
            # what a frame shows is what the whole (open) paragraph would show
            expected = whole(ctx, source[:position].rstrip())
            assert same(document.tail, expected), f"differs after {position} characters"
    assert checks > 20
    splitter.close()
    document.update(ctx, WIDTH)
    assert same(document.frozen, whole(ctx, source))


def streamed(ctx: RenderContext, source: str, step: int) -> tuple[BlockSplitter, DocumentView]:
    """A document fed `source` `step` characters at a time, brought up to date after each."""
    splitter = BlockSplitter()
    document = DocumentView(splitter)
    for start in range(0, len(source), step):
        splitter.feed(source[start : start + step])
        document.update(ctx, WIDTH)
    return splitter, document


def count_parses(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """From now on, the length of each source the paragraphs parse (appended as they do)."""
    parsed: list[int] = []
    original = inline_text

    def counting(source: str, *args: object) -> object:
        parsed.append(len(source))
        return original(source, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(paragraph, "inline_text", counting)
    return parsed


def test_work_per_frame_does_not_grow_with_the_paragraph(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed = count_parses(monkeypatch)
    ctx = context()
    text = prose(40_000, seed=1, markup=False)  # ~250 KB, one paragraph
    _, document = streamed(ctx, text, 800)
    growing = document._growing
    assert growing is not None and len(growing.lines) > 1000
    assert len(growing.carry.plain) < 2 * WIDTH  # only the last line stays open
    longest_word = max(len(word) for word in text.split(" "))
    # each frame parses only new text (with the word it continues)
    assert max(parsed) < paragraph.SEGMENT + longest_word + 800


def test_a_closed_paragraph_keeps_its_grown_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing a streamed paragraph parses only its end, not the whole paragraph again."""
    ctx = context()
    source = prose(1500, seed=4, markup=True)
    splitter, document = streamed(ctx, source, 64)
    parsed = count_parses(monkeypatch)
    splitter.feed("\n\nThe next paragraph.")
    document.update(ctx, WIDTH)
    assert same(document.frozen, whole(ctx, source))
    assert sum(parsed) < 200, parsed


def test_a_paragraph_with_a_forced_segment_is_parsed_whole_once_closed() -> None:
    """A `**` whose closer came after a forced segment is bold once the paragraph closes."""
    ctx = context()
    filler = prose(12_000, seed=5, markup=False)  # longer than MAX_SEGMENT
    assert len(filler) > paragraph.MAX_SEGMENT
    source = f"start **bold {filler} still bold** end"
    splitter, document = streamed(ctx, source, 8192)
    splitter.close()
    document.update(ctx, WIDTH)
    assert same(document.frozen, whole(ctx, source))
    assert "**" not in "".join(strip.text for strip in document.frozen)


def test_unmatched_delimiter_waits_for_its_closer() -> None:
    """A `**` opened in one segment and closed much later is still shown bold once closed."""
    ctx = context()
    filler = prose(800, seed=2, markup=False)
    source = f"start **bold {filler} still bold** end {filler}"
    _, document = streamed(ctx, source, 64)
    assert same(document.tail, whole(ctx, source.rstrip()))
    assert "**" not in "".join(strip.text for strip in document.tail)


@pytest.mark.parametrize(
    "source",
    [
        "plain words",
        "  e\u0301  ",
        "e\u0301    ",
        "\u200b ",
        "wide 日本語 end ",
        "**bold** and `code`  ",
        "tab\there",
    ],
)
@pytest.mark.parametrize("width", [1, 4, 5, 12, 20])
def test_a_line_that_fits_is_drawn_as_rich_wraps_it(source: str, width: int) -> None:
    """`wrap_text` skips wrapping a line that fits: the same strips as Rich's own wrap (whose
    fold drops an end space when zero-width characters make a line fit exactly)."""
    ctx = context()
    text = inline_text(source, ctx.theme)
    lines = text.copy().wrap(ctx.console, width, overflow="fold")
    expected = [Strip(list(line.render(ctx.console))) for line in lines]
    assert same(wrap_text(ctx, text, width), expected)
