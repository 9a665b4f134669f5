"""Packed lines: plain data the collector stops tracking, turned back into equal strips."""

from __future__ import annotations

import gc

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.compact_lines import StripCache, pack, pack_all, packed_text, unpack
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.render import RenderContext


def test_round_trip_keeps_segments_styles_and_cell_length() -> None:
    bold = Style(bold=True, color="red")
    strip = Strip([Segment("héllo ", bold), Segment("世界", None), Segment(" x", Style(dim=True))])
    packed = pack(strip)
    assert isinstance(packed, tuple)
    back = unpack(packed)
    assert list(back) == list(strip)
    assert back.cell_length == strip.cell_length == 12
    assert packed_text(packed) == "héllo 世界 x"


def test_same_style_is_stored_once() -> None:
    a = pack(Strip([Segment("a", Style(italic=True))]))
    b = pack(Strip([Segment("b", Style(italic=True))]))
    assert isinstance(a, tuple) and isinstance(b, tuple)
    assert a[2] == b[2]


def test_packed_lines_are_not_tracked_by_the_collector() -> None:
    lines = pack_all(Strip([Segment(f"line {i}", Style(bold=i % 2 == 0))]) for i in range(50))
    gc.collect()
    assert not any(gc.is_tracked(line) for line in lines)
    strips = [Strip([Segment(f"line {i}", Style(bold=True))]) for i in range(5)]
    gc.collect()
    assert all(gc.is_tracked(strip) for strip in strips)  # what the packing saves


def test_control_segments_are_kept_as_strips() -> None:
    strip = Strip([Segment("x"), Segment("", None, [(1,)])])  # type: ignore[list-item]
    assert pack(strip) is strip


def test_cache_drops_the_least_recently_used() -> None:
    cache = StripCache(2)
    one, two, three = (Strip([Segment(str(i))]) for i in range(3))
    cache.put(1, one)
    cache.put(2, two)
    assert cache.get(1) is one  # 1 is now the most recent
    cache.put(3, three)
    assert cache.get(2) is None and cache.get(1) is one and cache.get(3) is three
    assert len(cache) == 2


def test_packed_document_shows_the_same_lines() -> None:
    from rich.console import Console

    splitter = BlockSplitter()
    splitter.feed("# Title\n\nSome *prose* here.\n\n```python\nx = 1\n```\n\n")
    splitter.feed("| a | b |\n|---|---|\n| 1 | 2 |\n")
    splitter.close()
    document = DocumentView(splitter)
    ctx = RenderContext(Console(width=40))
    document.update(ctx, 40)
    before = [list(document.line(y)) for y in range(document.line_count)]
    text = document.text
    document.pack()
    assert document.frozen == [] and document.tail == []
    assert [list(document.line(y)) for y in range(document.line_count)] == before
    assert document.text == text
    document.update(ctx, 30)  # a new width renders again from the blocks
    assert document.packed is None and document.line_count > 0
