"""Packed lines: plain data the collector stops tracking, turned back into equal strips."""

from __future__ import annotations

import gc
import tracemalloc

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from acp_tui.ui.compact_lines import (
    StripCache,
    _smallest,
    pack,
    pack_all,
    packed_text,
    unpack,
)
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
    held = [r for r in gc.get_referents(lines) if r is not None and not isinstance(r, type)]
    assert len(held) == 6  # a string and five arrays, however many lines: nothing to walk
    assert not [r for h in held for r in gc.get_referents(h) if not isinstance(r, type)]
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


def test_packed_lines_give_back_equal_strips_and_texts() -> None:
    bold = Style(bold=True, color="red")
    strips = [
        Strip([Segment("héllo ", bold), Segment("世界", None), Segment(" x", Style(dim=True))]),
        Strip([]),
        Strip([Segment("x"), Segment("", None, [(1,)])]),  # type: ignore[list-item]
        Strip([Segment("", bold), Segment("end", bold)], 7),
    ]
    lines = pack_all(strips)
    assert len(lines) == 4
    assert [list(line) for line in lines] == [list(strip) for strip in strips]
    assert [line.cell_length for line in lines] == [12, 0, 1, 7]
    assert lines[2] is strips[2]  # control codes: kept as the strip
    assert lines.texts() == ["héllo 世界 x", "", "x", "end"]
    assert list(lines[-1]) == list(strips[-1]) and len(lines[1:3]) == 2


def test_a_finished_turn_s_lines_cost_about_their_text() -> None:
    """A ~1.5 KB Markdown turn (prose, a list, a table, a code fence) rendered at 156 columns:
    once packed (the strips let go, as when a turn freezes) its lines cost under 4 times its
    text; one tuple and one string per segment cost about 14 times."""
    from rich.console import Console

    text = (
        "## Plan\n\nThe agent **reads** the files, then writes `main.py` and runs the tests.\n\n"
        + "".join(
            f"- step {i}: change *module_{i}.py* and check it with `pytest -k {i}`\n"
            for i in range(8)
        )
        + "\n| file | lines | state |\n|---|---|---|\n"
        + "".join(f"| src/module_{i}.py | {i * 37} | done |\n" for i in range(6))
        + "\n```python\n"
        + "".join(
            f"def handler_{i}(event: dict[str, int]) -> int:\n    return event['n'] + {i}\n"
            for i in range(8)
        )
        + "```\n\nDone: every step passed.\n"
    )
    ctx = RenderContext(Console(width=156))
    pack_all(_rendered(text, ctx))  # (styles interned once for the process, not per turn)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        lines = pack_all(_rendered(text, ctx))
        gc.collect()  # (the rendering's own cycles: garbage)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(text) > 1400 and len(lines) > 40
    assert kept < 4 * len(text), f"{kept} bytes for {len(text)} characters"
    assert "\n".join(lines.texts()).count("handler_") == 8


def _rendered(text: str, ctx: RenderContext) -> list[Strip]:
    splitter = BlockSplitter()
    splitter.feed(text)
    splitter.close()
    document = DocumentView(splitter)
    document.update(ctx, 156)
    return [document.line(y) for y in range(document.line_count)]


def test_the_smallest_arrays_hold_every_value() -> None:
    cases = {
        (): "B", (0, 255): "B", (256,): "H", (-1, 127): "b", (-129,): "h", (70_000,): "I",
        (-40_000,): "i", (1 << 33,): "q",
    }  # fmt: skip
    for values, typecode in cases.items():
        stored = _smallest(list(values))
        assert (tuple(stored), stored.typecode) == (values, typecode)
