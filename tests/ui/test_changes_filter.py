"""F2 cannot hide a real edit (issue 40, item 8): an edit to a file that existed before the session
is listed first, then deletions, then new files, so 1,000 junk files written first (and sorted
first) do not push it out of the list; and a filter narrows the list as the user types."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input, OptionList, Static

from acp_tui.client.changed_files import FileKind, kind_of, matching, ordered_files
from acp_tui.host.change_log import ChangeLog
from acp_tui.ui.screens.changes_screen import MAX_LISTED, NO_MATCH_TEXT, ChangesScreen
from acp_tui.ui.widgets.diff_view import DiffView
from tests.ui.app_harness import plain
from tests.ui.test_changes_screen import ChangesApp, agent_write, host_in, labels, wait_for

pytestmark = pytest.mark.timeout(120)
JUNK = MAX_LISTED


def hostile_session(root: Path, log: ChangeLog) -> tuple[Path, Path]:
    """1,000 new junk files first (named to sort before everything), then a deletion of an
    existing file and an edit of another: (the edited file, the deleted file)."""
    for index in range(JUNK):
        agent_write(log, root / f"a{index:04}.txt", "junk\n")
    gone, real = root / "m_gone.txt", root / "z_real.py"
    gone.write_text("kept\n")
    real.write_text("x = 1\n")
    gone.unlink()
    log.add(gone, "kept\n", "", deleted=True)
    agent_write(log, real, "x = 2  # the real edit\n")
    return real, gone


def test_files_are_ordered_edits_deletions_then_new(tmp_path: Path) -> None:
    log = ChangeLog()
    new, edited, gone = tmp_path / "b.txt", tmp_path / "c.txt", tmp_path / "a.txt"
    log.add(new, None, "1\n")
    log.add(gone, "old\n", "", deleted=True)
    log.add(edited, "old\n", "new\n")
    log.add(new, "1\n", "2\n")  # a second write of a new file: still new
    assert [(p.name, k) for p, k in ordered_files(log)] == [
        ("c.txt", FileKind.EDITED),
        ("a.txt", FileKind.DELETED),
        ("b.txt", FileKind.NEW),
    ]
    log.add(gone, None, "back\n")  # a deleted file written again: edited
    assert kind_of(log, gone) is FileKind.EDITED
    files = ordered_files(log)
    assert matching(files, "", str) == files
    assert [p.name for p, _ in matching(files, " C.TXT ", str)] == ["c.txt"]
    assert [p.name for p, _ in matching(files, "txt a", lambda p: p.name)] == ["a.txt"]


async def test_an_edit_is_listed_first_however_many_new_files_came_before(
    tmp_path: Path,
) -> None:
    fs = host_in(tmp_path)
    real, gone = hostile_session(tmp_path, fs.changes)
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    async with ChangesApp(screen).run_test(size=(140, 45)) as pilot:
        await wait_for(pilot, lambda: screen.loads == 1, "the list", 60)
        shown = labels(screen)
        assert shown[0] == "+1 \N{MINUS SIGN}1 z_real.py"
        assert shown[1] == "+0 \N{MINUS SIGN}1 m_gone.txt  (removed)"
        assert shown[2] == "+1 \N{MINUS SIGN}0 a0000.txt"
        assert shown[-1] == "… and 2 more files (not listed; / filters)"
        assert len(shown) == MAX_LISTED + 1
        title = plain(screen.query_one("#changes-title", Static))
        assert title == "Changes in this session · 1,002 files: 1 edited, 1 deleted, 1,000 new"
        assert screen.selected == real  # the first one, its diff shown
        assert "the real edit" in screen.query_one(DiffView).diff.new_text
        assert gone in screen.changes


async def test_typing_in_the_filter_narrows_the_list(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    real, _ = hostile_session(tmp_path, fs.changes)
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    async with ChangesApp(screen).run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen.loads == 1, "the list", 60)
        files = screen.query_one(OptionList)
        assert files.has_focus
        await pilot.press("slash")
        field = screen.query_one("#changes-filter", Input)
        assert field.has_focus
        await pilot.press(*"a099")  # no key of the screen's (r, R, s, q) does anything here
        await wait_for(pilot, lambda: len(labels(screen)) == 10, "the narrowed list")
        assert labels(screen)[0] == "+1 \N{MINUS SIGN}0 a0990.txt"
        title = plain(screen.query_one("#changes-title", Static))
        assert title == "Changes in this session · 10 of 1,002 files match"
        for _ in range(4):
            await pilot.press("backspace")
        await pilot.press(*"rEaL")
        await wait_for(pilot, lambda: labels(screen) == ["+1 \N{MINUS SIGN}1 z_real.py"], "real")
        assert screen.selected == real
        await pilot.press("s", "q", "R")  # typed into the filter: nothing matches now
        await wait_for(
            pilot, lambda: labels(screen) == [] and screen.query("#changes-empty"), "no match"
        )
        assert plain(screen.query_one("#changes-empty", Static)) == NO_MATCH_TEXT
        assert field.value == "rEaLsqR" and isinstance(pilot.app.screen, ChangesScreen)
        assert real.read_text() == "x = 2  # the real edit\n"  # R reverted nothing
        for _ in range(3):
            await pilot.press("backspace")
        await wait_for(pilot, lambda: len(labels(screen)) == 1, "real again")
        await pilot.press("down")  # back to the list
        assert files.has_focus
