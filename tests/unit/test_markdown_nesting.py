"""Markdown nested deeper than anyone writes it: bounded work, no recursion, no text lost.

An agent controls every byte of its messages; block quotes and lists nested hundreds or
thousands of levels deep used to recurse once per level (a RecursionError that ended the app,
or hid the message) or render for minutes. Deeper levels are now drawn flat at the last level,
marked. The assertions are on work done (depth of the block tree, lines drawn), not on time.
"""

from __future__ import annotations

import io
from collections.abc import Iterable

import pytest
from rich.console import Console
from textual.strip import Strip

from acp_tui.ui.markdown.blocks import Block, BlockSplitter, ListBlock, Quote
from acp_tui.ui.markdown.deeper import DEEPER_MARK
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.render import RenderContext

WIDTH = 80
MARK = DEEPER_MARK.strip()
LEVELS = 20
"""Nesting a test accepts: the bound is well under this, and the inputs far over it."""


def context() -> RenderContext:
    return RenderContext(Console(width=WIDTH, file=io.StringIO(), color_system=None))


def depth(blocks: list[Block]) -> int:
    """How deep container blocks nest (walked with a stack: the input is hostile)."""
    deepest = 0
    stack = [(block, 1) for block in blocks]
    while stack:
        block, level = stack.pop()
        deepest = max(deepest, level)
        inner: list[BlockSplitter] = []
        if isinstance(block, Quote):
            inner = [block.inner]
        elif isinstance(block, ListBlock):
            inner = [item.inner for item in block.items]
        for splitter in inner:
            stack.extend((child, level + 1) for child in splitter.blocks)
    return deepest


def quote(levels: int, text: str = "the deep text") -> str:
    return "> " * levels + text + "\n"


def indented_list(levels: int) -> str:
    return "".join(f"{'  ' * i}- item {i}\n" for i in range(levels))


def inline_list(levels: int) -> str:
    return "- " * levels + "the deep item\n"


CASES = {
    "quote 400 first": (quote(400), "the deep text"),
    "quote 400 after text": ("Some text first.\n\n" + quote(400), "the deep text"),
    "quote 2000 first": (quote(2000), "the deep text"),
    "quote 2000 after text": ("Some text first.\n\n" + quote(2000), "the deep text"),
    "list 200": (indented_list(200), "item 199"),
    "list 1500": (indented_list(1500), "item 1499"),
    "list 1500 on one line": (inline_list(1500), "the deep item"),
    "quote 400 no newline": (quote(400).rstrip("\n"), "the deep text"),
}


def render(splitter: BlockSplitter) -> DocumentView:
    document = DocumentView(splitter)
    document.update(context(), WIDTH)
    return document


def chunks(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


@pytest.mark.parametrize("name", list(CASES))
def test_deep_nesting_whole(name: str) -> None:
    source, visible = CASES[name]
    splitter = BlockSplitter()
    splitter.feed(source)
    splitter.close()
    assert depth(splitter.blocks) <= LEVELS
    document = render(splitter)
    assert visible in document.text
    assert "Some text first." in document.text or "Some text" not in source
    # every source line is drawn, each on a bounded number of screen lines (no 1-column wrap)
    assert document.line_count <= 3 * (source.count("\n") + 2)


@pytest.mark.parametrize("name", list(CASES))
def test_deep_nesting_streamed(name: str) -> None:
    source, visible = CASES[name]
    splitter = BlockSplitter()
    document = DocumentView(splitter)
    ctx = context()
    # a frame every few chunks, as the streaming widget does (it coalesces per frame)
    size = max(7, len(source) // 40)
    for index, chunk in enumerate(chunks(source, size)):
        splitter.feed(chunk)
        if index % 3 == 0:
            document.update(ctx, WIDTH)
            assert depth(splitter.blocks) <= LEVELS
    splitter.close()
    document.update(ctx, WIDTH)
    assert depth(splitter.blocks) <= LEVELS
    assert visible in document.text


def test_deeper_levels_are_drawn_at_the_last_level_and_marked() -> None:
    splitter = BlockSplitter()
    splitter.feed(quote(30, "deep") + "\nafter\n")
    splitter.close()
    lines = render(splitter).text.splitlines()
    deep = next(line for line in lines if "deep" in line)
    assert MARK in deep
    assert deep.count("▌") < 30  # drawn flat past the bound
    assert lines[-1] == "after"


def test_shallow_nesting_is_unchanged() -> None:
    splitter = BlockSplitter()
    splitter.feed("> > quoted twice\n\n- a\n  - b\n    - c\n")
    splitter.close()
    text = render(splitter).text
    assert "▌ ▌ quoted twice" in text
    assert MARK not in text
    assert depth(splitter.blocks) == 4


def test_a_frame_of_a_growing_deep_list_joins_only_the_lines_that_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each level of a container prefixes its lines; re-joining every line at every level each
    frame made a 1,500-item list cost ~12 x 1,500 joins per frame."""
    splitter = BlockSplitter()
    document = DocumentView(splitter)
    ctx = context()
    splitter.feed(indented_list(300))
    document.update(ctx, WIDTH)
    joins = 0
    join = Strip.join

    def counting(strips: Iterable[Strip | None]) -> Strip:
        nonlocal joins
        joins += 1
        return join(strips)

    monkeypatch.setattr(Strip, "join", staticmethod(counting))
    splitter.feed(" " * 600 + "- one more\n")
    document.update(ctx, WIDTH)
    assert "one more" in document.text
    assert joins <= 4 * LEVELS  # the new line and the changed last line at each level
