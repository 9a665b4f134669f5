"""A streamed table draws each cell once per column width: a frame that adds text to the row
being written wraps only the cells that changed, a wider cell re-wraps only its column, and
what it shows is what the whole table drawn at once shows. Plain text skips the inline parser."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console, JustifyMethod
from rich.text import Text

from acp_tui.ui.markdown import inline, table_view
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.markdown.document import DocumentView
from acp_tui.ui.markdown.inline import inline_text
from acp_tui.ui.markdown.render import RenderContext

WIDTH = 70
HEAD = "| # | name | size | note |\n|--:|:-----|:----:|:-----|\n"


def context() -> RenderContext:
    return RenderContext(Console(file=io.StringIO(), width=120, color_system="truecolor"))


def rows(count: int, seed: int) -> str:
    rng = random.Random(seed)
    words = ["alpha", "beta", "**bold**", "`code`", "gamma delta", "x" * 30, "é漢"]
    return "".join(
        f"| {i} | item-{i} | {rng.randint(1, 10 ** rng.randint(1, 6))} | "
        f"{' '.join(rng.choice(words) for _ in range(rng.randint(1, 4)))} |\n"
        for i in range(count)
    )


def lines(document: DocumentView) -> list[list[object]]:
    return [list(document.line(y)) for y in range(document.line_count)]


def drawn_at_once(ctx: RenderContext, source: str, close: bool) -> list[list[object]]:
    document = DocumentView(BlockSplitter())
    document.feed(source)
    if close:
        document.close()
    document.update(ctx, WIDTH)
    return lines(document)


class Wraps:
    """Counts the cells drawn at a width (`table_view.cell_lines`), with the text of each."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts: list[str] = []
        draw = table_view.cell_lines

        def counting(
            console: Console, cell: Text, width: int, justify: JustifyMethod
        ) -> table_view.Wrapped:
            self.texts.append(cell.plain)
            return draw(console, cell, width, justify)

        monkeypatch.setattr(table_view, "cell_lines", counting)


@pytest.mark.parametrize(("step", "count"), [(3, 16), (8, 40), (41, 40)])
def test_a_streamed_table_shows_what_the_whole_table_shows(step: int, count: int) -> None:
    ctx = context()  # (each step compares with the whole table drawn at once: 3 of 40 rows is slow)
    source = HEAD + rows(count, seed=step)
    document = DocumentView(BlockSplitter())
    for start in range(0, len(source), step):
        document.feed(source[start : start + step])
        document.update(ctx, WIDTH)
        assert lines(document) == drawn_at_once(ctx, source[: start + step], close=False)
    document.close()
    document.update(ctx, WIDTH)
    assert lines(document) == drawn_at_once(ctx, source, close=True)
    assert document.failure is None


def test_text_added_to_the_last_cell_wraps_that_cell_only(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context()
    document = DocumentView(BlockSplitter())
    document.feed(HEAD + rows(20, seed=1) + "| 20 | last | 7 | grow")
    document.update(ctx, WIDTH)
    wraps = Wraps(monkeypatch)
    document.feed("ing")
    document.update(ctx, WIDTH)
    assert wraps.texts == ["growing"]  # not the header, not the row's other cells


def test_a_wider_cell_rewraps_its_column_only(monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = context()
    document = DocumentView(BlockSplitter())
    document.feed(HEAD + "".join(f"| {i} | n{i} | 5 | short |\n" for i in range(12)))
    document.update(ctx, WIDTH)
    wraps = Wraps(monkeypatch)
    document.feed("| 12 | a-much-longer-name | 5 | short |\n| 13")
    document.update(ctx, WIDTH)
    # the name column again (header, 12 finished rows, the new row), the new rows' other cells
    rewrapped = ["name", *(f"n{i}" for i in range(12))]
    new_rows = ["12", "a-much-longer-name", "5", "short", "13", "", "", ""]  # (13: cells empty)
    assert sorted(wraps.texts) == sorted([*rewrapped, *new_rows])
    document.feed("\n")
    document.close()
    document.update(ctx, WIDTH)
    assert lines(document) == drawn_at_once(
        ctx,
        HEAD
        + "".join(f"| {i} | n{i} | 5 | short |\n" for i in range(12))
        + "| 12 | a-much-longer-name | 5 | short |\n| 13\n",
        close=True,
    )


def test_plain_text_skips_the_inline_parser(monkeypatch: pytest.MonkeyPatch) -> None:
    theme = context().theme
    rng = random.Random(5)
    alphabet = "abc XYZ 0123-+.,:;#$%^(){}|/?=@'\"\t>é漢€"
    samples = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 30))) for _ in range(300)]
    parsed = [inline_text(sample, theme) for sample in samples]  # (the parser says: plain)
    assert all(
        text.plain == sample and not text.spans
        for text, sample in zip(parsed, samples, strict=True)
    )
    calls: list[str] = []
    parser = inline._parser

    def counting() -> object:
        calls.append("parse")
        return parser()

    monkeypatch.setattr(inline, "_parser", counting)
    for sample, expected in zip(samples, parsed, strict=True):
        assert inline_text(sample, theme) == expected
    assert calls == []
    assert inline_text("a **b** & c", theme).plain == "a b & c"
    assert calls == ["parse"]
