"""Fitting the tab bar's labels: every tab stays distinguishable when space is short (the index
and the state glyph kept, the common parts cut in the middle, the width shared fairly), and
agent text stays inert."""

from __future__ import annotations

import itertools

from rich.cells import cell_len

from acp_tui.ui.workspace.tab_bar import TabLabel, bar_text, full_label
from acp_tui.ui.workspace.tab_fit import (
    TabSource,
    distinguishing_positions,
    fair_shares,
    fit_tabs,
    middle_ellipsis,
)

CODEX_1 = "codex-acp [acp-tui/codex-acp-20261127-031200-1]"
CODEX_2 = "codex-acp [acp-tui/codex-acp-20261127-031200-2]"
TITLE = "Refactor the parser module into smaller pieces"


def test_labels_that_fit_are_drawn_whole_with_the_state_as_a_word() -> None:
    tabs = [TabSource("gemini", "Fix it", "working", True), TabSource("qwen", "", "idle", False)]
    assert [part.text for part in fit_tabs(tabs, 80)] == ["1 gemini: Fix it [working]", "2 qwen"]


def test_two_worktree_tabs_differing_only_at_the_end_stay_distinct() -> None:
    tabs = [TabSource(CODEX_1, TITLE, "working", True), TabSource(CODEX_2, TITLE, "idle", False)]
    for width in range(24, 130):
        first, second = fit_tabs(tabs, width)
        total = first.width + second.width + 3
        assert total <= width, (width, first, second)
        assert first.key == "1 " and second.key == "2 ", "the index (alt+N) is never cut"
        assert first.state == "●", "the state as a glyph when space is short"
        assert first.name != second.name, (width, first.name, second.name)
        assert first.name.endswith("1]") and second.name.endswith("2]"), (width, first, second)


def test_the_width_is_shared_fairly_and_a_short_label_is_not_cut() -> None:
    tabs = [
        TabSource("qwen", "", "idle", True),
        TabSource(CODEX_1, TITLE, "idle", False),
        TabSource(CODEX_2, TITLE, "idle", False),
    ]
    short, long_1, long_2 = fit_tabs(tabs, 90)
    assert short.name == "qwen", "a label shorter than its share keeps all of it"
    assert abs(long_1.width - long_2.width) <= 1, "the others share the rest equally"
    assert short.width + long_1.width + long_2.width + 6 <= 90


def test_the_title_tells_tabs_of_one_agent_apart() -> None:
    tabs = [
        TabSource("Codex", "Fix the flaky test in test_parser.py", "idle", False),
        TabSource("Codex", "Fix the flaky test in test_lexer.py", "idle", False),
    ]
    for width in range(30, 90):
        first, second = fit_tabs(tabs, width)
        assert first.width + second.width + 3 <= width
        assert first.label[2:] != second.label[2:], (width, first, second)


def test_fair_shares_give_no_one_more_than_it_needs() -> None:
    assert fair_shares([5, 50, 50], 65) == [5, 30, 30]
    assert fair_shares([5, 10], 100) == [5, 10]
    assert fair_shares([10, 10], -3) == [0, 0]


def test_middle_ellipsis_keeps_the_character_that_differs() -> None:
    assert middle_ellipsis("short", 10) == "short"
    cut = middle_ellipsis(CODEX_1, 16)
    assert cell_len(cut) == 16 and cut.startswith("codex") and cut.endswith("-1]")
    # a difference in the middle, out of reach of head and tail: a window around it
    value = "a" * 20 + "X" + "b" * 20
    windowed = middle_ellipsis(value, 9, keep=20)
    assert "X" in windowed and cell_len(windowed) == 9
    for width, keep in itertools.product(range(3, 30), range(len(value))):
        shown = middle_ellipsis(value, width, keep)
        assert cell_len(shown) <= width
        assert value[keep] in shown.replace("…", ""), (width, keep, shown)


def test_wide_characters_are_measured_in_cells() -> None:
    title = "修复解析器中的错误并添加测试用例"  # two cells each
    tabs = [
        TabSource("agent", title + "一", "idle", False),
        TabSource("agent", title, "idle", False),
    ]
    for width in range(20, 60):
        parts = fit_tabs(tabs, width)
        assert sum(part.width for part in parts) + 3 <= width, (width, parts)


def test_distinguishing_positions() -> None:
    assert distinguishing_positions([CODEX_1, CODEX_2]) == [len(CODEX_1) - 2] * 2
    assert distinguishing_positions(["a", "a", "b"]) == [None, None, 0]


def test_agent_text_in_the_bar_is_inert() -> None:
    labels = [
        TabLabel("[bold red]evil[/]\x1b]0;pwn\x07", "[link=x]t[/link]", "idle", False),
        TabLabel("other", "", "working", True),
    ]
    text, spans = bar_text(labels, 200)
    assert "[bold red]evil[/]" in text.plain and "[link=x]t[/link]" in text.plain
    assert "\x1b" not in text.plain and "\x07" not in text.plain
    assert len(spans) == 2 and spans[0][0] == 0
    assert "[bold red]evil[/]" in full_label(1, labels[0]).plain
