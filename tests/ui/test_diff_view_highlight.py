"""Per-line syntax colouring and word emphasis helpers of the diff viewer."""

from __future__ import annotations

from acp_tui.ui.widgets.diff_highlight import (
    LineHighlighter,
    display_text,
    emphasis_spans,
    lexer_for_path,
)


def test_display_text_expands_tabs_and_shows_control_characters() -> None:
    assert display_text("\tx = 1") == "    x = 1"
    assert display_text("a\x1b[31mb") == "a\u241b[31mb"
    assert display_text("bell\x07") == "bell\u2407"


def test_lexer_is_chosen_by_file_name_only() -> None:
    def name(path: str) -> str | None:
        lexer = lexer_for_path(path)
        return None if lexer is None else str(lexer.name)

    assert name("/nowhere/at/all/module.py") == "Python"
    assert name("relative/dir/Makefile") == "Makefile"
    assert name("C:\\work\\app.rs") == "Rust"
    assert lexer_for_path("/x/notes.unknown-ext") is None
    assert lexer_for_path("") is None


def test_python_line_gets_colours_without_background_and_is_cached() -> None:
    highlighter = LineHighlighter("/p/a.py")
    text = highlighter.highlight("def f(x): return 1")
    assert text.plain == "def f(x): return 1"
    styled = {text.plain[span.start : span.end] for span in text.spans}
    assert {"def", "return"} <= styled
    assert all(span.style.bgcolor is None for span in text.spans)  # type: ignore[union-attr]
    assert highlighter.highlight("def f(x): return 1") is text
    plain = LineHighlighter("/p/notes.txt").highlight("def f(x): return 1")
    assert plain.spans == []


def test_switching_theme_recolours() -> None:
    highlighter = LineHighlighter("/p/a.py", dark=True)
    dark = highlighter.highlight("def f(): pass")
    highlighter.set_dark(False)
    light = highlighter.highlight("def f(): pass")
    assert light is not dark
    assert [s.style for s in light.spans] != [s.style for s in dark.spans]


def test_emphasis_only_for_partly_changed_lines() -> None:
    assert emphasis_spans("x = compute(a)", "x = compute(b)") == ([(12, 13)], [(12, 13)])
    assert emphasis_spans("completely different", "nothing alike here") == ([], [])


def test_the_highlighted_lines_kept_are_bounded_oldest_first() -> None:
    from acp_tui.ui.widgets.diff_highlight import LINES_KEPT

    highlighter = LineHighlighter("/p/notes.txt")
    first = highlighter.highlight("line 0")
    for number in range(1, LINES_KEPT + 10):
        highlighter.highlight(f"line {number}")
    last = f"line {LINES_KEPT + 9}"
    assert highlighter.highlight(last) is highlighter.highlight(last)  # (the newest kept)
    assert highlighter.highlight("line 0") is not first  # (the oldest went: drawn again)
