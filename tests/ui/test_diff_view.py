"""The diff viewer driven through Pilot: layouts, hunk navigation, special diffs, preview."""

from __future__ import annotations

import io
from pathlib import Path

from rich.console import Console
from textual.app import App, ComposeResult

from acp_tui.thread.diff import FileDiff, compute_diff
from acp_tui.ui.widgets.diff_view import DiffLayout, DiffPreview, DiffView
from acp_tui.ui.widgets.path_fit import path_tail


def many_hunks(count: int = 12) -> FileDiff:
    old = "".join(f"line {i}\n" for i in range(1, 40 * count))
    new = old
    for k in range(count):
        n = 20 + 40 * k
        new = new.replace(f"line {n}\n", f"line {n} changed\n")
    return compute_diff("/repo/notes.txt", old, new)


class DiffApp(App[None]):
    def __init__(
        self, diff: FileDiff, layout: DiffLayout = "auto", root: Path | None = None
    ) -> None:
        super().__init__()
        self.diff = diff
        self.layout_choice = layout
        self.root = root
        self.hunk_messages: list[int] = []

    def compose(self) -> ComposeResult:
        yield DiffView(self.diff, layout=self.layout_choice, root=self.root)

    def on_diff_view_current_hunk_changed(self, message: DiffView.CurrentHunkChanged) -> None:
        self.hunk_messages.append(message.index)


def layout_of(view: DiffView) -> str:
    return view.effective_layout  # a str, so that mypy does not narrow it between key presses


def screen_lines(view: DiffView) -> list[str]:
    return [view.render_line(y).text for y in range(view.scrollable_content_region.height)]


async def test_auto_layout_follows_width_and_s_toggles() -> None:
    diff = compute_diff("/p/a.py", "x = 1\ny = 2\n", "x = 1\ny = 3\n")
    app = DiffApp(diff)
    async with app.run_test(size=(100, 20)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        assert layout_of(view) == "unified"
        assert "│" not in screen_lines(view)[2]
        await pilot.press("s")
        assert layout_of(view) == "split"
        assert view.layout_mode == "split"
        lines = screen_lines(view)
        assert any("│" in line and "y = 2" in line and "y = 3" in line for line in lines)
        await pilot.press("s")
        assert layout_of(view) == "unified"
    wide = DiffApp(diff)
    async with wide.run_test(size=(140, 20)) as pilot:
        await pilot.pause()
        assert wide.query_one(DiffView).effective_layout == "split"


async def test_unified_rows_show_numbers_signs_and_hunk_header() -> None:
    old = "".join(f"l{i}\n" for i in range(1, 11))
    diff = compute_diff("/p/a.txt", old, old.replace("l5\n", "five\n"))
    app = DiffApp(diff, layout="unified")
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        lines = [line.rstrip() for line in screen_lines(app.query_one(DiffView))]
    assert "/p/a.txt" in lines[0] and "+1 \N{MINUS SIGN}1" in lines[0]
    assert lines[1] == "▶ @@ -2,7 +2,7 @@"
    # line numbers are as wide as the largest one (here 1 digit): old, new, sign, text
    assert lines[2] == "2 2   l2"
    assert lines[5] == "5   - l5"
    assert lines[6] == "  5 + five"
    assert lines[7] == "6 6   l6"


async def test_next_and_previous_hunk_move_current_and_scroll() -> None:
    diff = many_hunks(12)
    app = DiffApp(diff, layout="unified")
    async with app.run_test(size=(80, 16)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        assert view.current_hunk == 0 and view.scroll_y == 0
        await pilot.press("n")
        assert view.current_hunk == 1
        assert view.scroll_y == view.hunk_row(1)
        assert screen_lines(view)[1].startswith("▶ " + diff.hunks[1].header)
        await pilot.press("]", "]")
        assert view.current_hunk == 3
        assert view.scroll_y == view.hunk_row(3)
        await pilot.press("p")
        assert view.current_hunk == 2
        assert view.scroll_y == view.hunk_row(2)
        await pilot.press("[", "[", "[")  # stops at the first hunk
        assert view.current_hunk == 0 and view.scroll_y == 0
        for _ in range(20):
            await pilot.press("n")
        assert view.current_hunk == 11  # stops at the last hunk
        assert view.scroll_y == view.max_scroll_y
        last_header = "▶ " + diff.hunks[11].header
        assert any(line.startswith(last_header) for line in screen_lines(view))
        await pilot.pause()
        assert app.hunk_messages[:4] == [1, 2, 3, 2]
        assert app.hunk_messages[-1] == 11


async def test_clicking_a_hunk_header_makes_it_current() -> None:
    app = DiffApp(many_hunks(3), layout="unified")
    async with app.run_test(size=(80, 40)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        y = view.hunk_row(1) + 1  # below the sticky header
        await pilot.click(DiffView, offset=(5, y))
        assert view.current_hunk == 1


async def test_hunk_state_marks_are_shown_and_cleared() -> None:
    app = DiffApp(many_hunks(2), layout="unified")
    async with app.run_test(size=(80, 40)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        view.set_hunk_state(0, "accepted")
        view.set_hunk_state(1, "rejected")
        lines = screen_lines(view)
        assert "✓ accepted" in lines[view.hunk_row(0) + 1]
        assert "✗ rejected" in lines[view.hunk_row(1) + 1]
        assert view.hunk_states == {0: "accepted", 1: "rejected"}
        view.set_hunk_state(0, None)
        assert "accepted" not in screen_lines(view)[view.hunk_row(0) + 1]
        assert view.hunk_states == {1: "rejected"}


async def test_new_file_and_deletion_read_naturally() -> None:
    created = compute_diff("/p/new.py", None, "a = 1\nb = 2\n")
    app = DiffApp(created, layout="split")
    async with app.run_test(size=(120, 12)) as pilot:
        await pilot.pause()
        lines = screen_lines(app.query_one(DiffView))
    assert "new file" in lines[0] and "+2 \N{MINUS SIGN}0" in lines[0]
    assert lines[1].startswith("▶ @@ -0,0 +1,2 @@")
    old_side, new_side = lines[2].split("│")
    assert old_side.strip() == "" and new_side.startswith("1 + a = 1")

    deleted = compute_diff("/p/old.py", "a = 1\nb = 2\n", "")
    app = DiffApp(deleted, layout="unified")
    async with app.run_test(size=(80, 12)) as pilot:
        await pilot.pause()
        lines = screen_lines(app.query_one(DiffView))
    assert "deleted" in lines[0] and "+0 \N{MINUS SIGN}2" in lines[0]
    assert lines[2].rstrip() == "1   - a = 1"
    assert lines[3].rstrip() == "2   - b = 2"


async def test_relative_and_missing_paths_are_flagged() -> None:
    for path, flag in (("src/app.py", "⚠ relative path"), ("", "⚠ missing path")):
        app = DiffApp(compute_diff(path, "a\n", "b\n"), layout="unified")
        async with app.run_test(size=(80, 10)) as pilot:
            await pilot.pause()
            header = screen_lines(app.query_one(DiffView))[0]
        assert flag in header
        assert (path or "(no path)") in header
    app = DiffApp(compute_diff("/abs/app.py", "a\n", "b\n"))
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        assert "⚠" not in screen_lines(app.query_one(DiffView))[0]


async def test_changed_words_get_the_emphasis_style() -> None:
    diff = compute_diff("/p/a.py", "total = price * qty\n", "total = cost * qty\n")
    app = DiffApp(diff, layout="unified")
    async with app.run_test(size=(80, 10)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        add_word = view.get_component_rich_style("diff-view--add-word").bgcolor
        remove_word = view.get_component_rich_style("diff-view--remove-word").bgcolor
        removed, added = view.render_line(2), view.render_line(3)

        def emphasised(strip, bgcolor) -> str:
            return "".join(seg.text for seg in strip if seg.style and seg.style.bgcolor == bgcolor)

        assert emphasised(removed, remove_word) == "price"
        assert emphasised(added, add_word) == "cost"


async def test_no_changes_and_five_thousand_lines() -> None:
    app = DiffApp(compute_diff("/p/same.txt", "a\n", "a\n"))
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        lines = screen_lines(app.query_one(DiffView))
        assert "No changes." in lines[1]
    old = "".join(f"value_{i} = {i}\n" for i in range(5000))
    new = old.replace("value_2500 = 2500\n", "value_2500 = -1\n")
    app = DiffApp(compute_diff("/p/big.py", old, new), layout="unified")
    async with app.run_test(size=(80, 12)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        # sticky header, hunk header, 3 context + removed + added + 3 context
        assert view.virtual_size.height == 1 + 1 + 8
        lines = screen_lines(view)
        assert lines[5].rstrip() == "2501      - value_2500 = 2500"
        assert lines[6].rstrip() == "     2501 + value_2500 = -1"


def test_preview_shows_first_lines_and_counts_the_rest() -> None:
    old = "".join(f"l{i}\n" for i in range(1, 30))
    new = old.replace("l3\n", "three\n").replace("l20\n", "twenty\n")
    diff = compute_diff("/p/notes.txt", old, new)
    buffer = io.StringIO()
    console = Console(file=buffer, width=60, color_system=None)
    console.print(DiffPreview(diff, max_lines=4))
    out = buffer.getvalue().splitlines()
    total = sum(len(h.lines) for h in diff.hunks)
    assert out[0] == "/p/notes.txt  +2 \N{MINUS SIGN}2"
    assert out[1:5] == ["  l1", "  l2", "- l3", "+ three"]
    assert out[5] == f"… {total - 4} more lines"
    assert len(out) == 6


async def test_line_ending_changes_are_named() -> None:
    diff = compute_diff("/p/a.txt", "a\r\ny", "a\ny\n")
    app = DiffApp(diff, layout="unified")
    async with app.run_test(size=(80, 10)) as pilot:
        await pilot.pause()
        lines = [line.rstrip() for line in screen_lines(app.query_one(DiffView))]
    assert lines[2:6] == [
        "1   - a  [CRLF]",
        "2   - y  [no newline at end of file]",
        "  1 + a  [LF]",
        "  2 + y  [LF]",
    ]


async def test_unified_scrolls_sideways_with_a_fixed_gutter() -> None:
    long_line = "x = [" + ", ".join(str(i) for i in range(60)) + "]"
    diff = compute_diff("/p/a.py", "a = 1\n", f"a = 2\n{long_line}\n")
    app = DiffApp(diff, layout="unified")
    async with app.run_test(size=(60, 10)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        assert view.virtual_size.width == 6 + len(long_line)
        before = screen_lines(view)[4]
        assert before.startswith("  2 + x = [0, 1, 2")
        view.scroll_to(x=10, animate=False, immediate=True)
        await pilot.pause()
        after = screen_lines(view)[4]
        assert after.startswith("  2 + " + long_line[10:20])


async def test_split_cuts_long_lines_visibly() -> None:
    long_line = "y = " + "abcdefghij" * 10
    diff = compute_diff("/p/a.py", f"{long_line}\n", f"{long_line}!\n")
    app = DiffApp(diff, layout="split")
    async with app.run_test(size=(81, 8)) as pilot:
        await pilot.pause()
        left, right = screen_lines(app.query_one(DiffView))[2].split("│")
    assert len(left) == len(right) == 40
    assert left.endswith("…") and right.endswith("…")
    assert left.startswith("1 - y = abcdefghij")


async def test_syntax_colours_follow_the_app_theme() -> None:
    diff = compute_diff("/p/a.py", "def f():\n    pass\n", "def g():\n    pass\n")
    app = DiffApp(diff, layout="unified")

    def keyword_colour(view: DiffView) -> object:
        strip = view.render_line(2)
        return next(seg.style.color for seg in strip if seg.text == "def" and seg.style)

    async with app.run_test(size=(80, 10)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        app.theme = "textual-dark"
        await pilot.pause()
        dark = keyword_colour(view)
        app.theme = "textual-light"
        await pilot.pause()
        assert keyword_colour(view) != dark


async def test_the_header_fits_a_narrow_view_keeping_counts_and_the_file_name() -> None:
    """At the width a diff gets in f2 at 80 columns the header still ends with the current
    hunk, the counts and the file's name show, and the path inside the project is relative."""
    deep = "/work/project/src/shop/checkout/pricing/total.py"
    diff = compute_diff(deep, "a\nb\n" + "x\n" * 30 + "c\n", "a\nB\n" + "x\n" * 30 + "C\n")
    app = DiffApp(diff, layout="unified", root=Path("/work/project"))
    async with app.run_test(size=(44, 10)) as pilot:
        view = app.query_one(DiffView)
        await pilot.pause()
        header = screen_lines(view)[0].rstrip()
        assert header.endswith("+2 \N{MINUS SIGN}2  1/2"), header
        assert header.startswith(" …/") and "/pricing/total.py  +2" in header
        wide = view.header_text(100).plain
        assert (
            wide == " src/shop/checkout/pricing/total.py  +2 \N{MINUS SIGN}2   hunk 1/2 · unified"
        )
        outside = DiffView(compute_diff("/etc/hosts", "a\n", "b\n"), root=Path("/work/project"))
        await app.mount(outside)
        assert outside.header_text(100).plain.startswith(" /etc/hosts  +1")


def test_a_long_path_loses_its_head_not_its_file_name() -> None:
    assert path_tail("src/shop/checkout/total.py", 100) == "src/shop/checkout/total.py"
    assert path_tail("src/shop/checkout/total.py", 20) == "…/checkout/total.py"
    assert path_tail("src/shop/checkout/total.py", 12) == "…/total.py"
    assert path_tail("src/shop/checkout/total.py", 6) == "…al.py"
    assert path_tail("界界界/界界.py", 9) == "…/界界.py"
