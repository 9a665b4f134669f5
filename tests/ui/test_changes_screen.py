"""ChangesScreen through Pilot: the session's files with their diffs, hunk and file reverts
(through the file host: a path swapped for a symlink is asked about, a deletion asked first)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import OptionList, Static

from acp_tui.host.asker import FixedAnswer
from acp_tui.host.boundary import DENY
from acp_tui.host.change_log import ChangeLog
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens.changes_screen import EMPTY_TEXT, ChangesScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.widgets.diff_view import DiffView

OLD = "".join(f"line {i}\n" for i in range(1, 31))
NEW = OLD.replace("line 2\n", "line 2 (agent)\n").replace("line 15\n", "line 15 (agent)\n")
NEW = NEW.replace("line 28\n", "line 28 (agent)\nline 28b (agent)\n")


class ChangesApp(App[None]):
    key_guard = KeyGuard.unguarded()  # its questions take keys at once

    def __init__(self, screen: ChangesScreen) -> None:
        super().__init__()
        self.changes_screen = screen
        self.was_closed = False

    def on_mount(self) -> None:
        self.push_screen(self.changes_screen, callback=self._on_close)

    def _on_close(self, result: None) -> None:
        self.was_closed = True


def host_in(root: Path, asker: FixedAnswer | None = None) -> FileSystemHost:
    """The file host of a session in `root`: the Changes view reverts through it."""
    return FileSystemHost(root, asker if asker is not None else FixedAnswer(DENY))


def agent_write(log: ChangeLog, path: Path, content: str) -> None:
    """What FileSystemHost does for a write: the disk changes, then the log records it."""
    before = path.read_text() if path.exists() else None
    path.write_text(content)
    log.add(path, before, content)


async def wait_for(pilot: Any, condition: Any, what: str, limit: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


def labels(screen: ChangesScreen) -> list[str]:
    files = screen.query_one(OptionList)
    return [str(files.get_option_at_index(i).prompt) for i in range(files.option_count)]


def drawn(screen: ChangesScreen) -> bool:
    """No reload is running: the list and the diff shown are both the last load's (a load sets
    the list first and replaces the diff after)."""
    return not screen._loading


async def opened(pilot: Any, screen: ChangesScreen) -> None:
    await wait_for(pilot, lambda: screen.loads >= 1, "the first load")


async def test_lists_files_with_stats_and_shows_the_diff_against_the_original(
    tmp_path: Path,
) -> None:
    fs = host_in(tmp_path)
    log = fs.changes
    app_py, notes = tmp_path / "app.py", tmp_path / "notes.md"
    app_py.write_text(OLD)
    agent_write(log, app_py, OLD.replace("line 2\n", "two\n"))
    agent_write(log, notes, "hello\n")
    agent_write(log, app_py, NEW)  # a second write: the diff is still against OLD
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    app = ChangesApp(screen)
    async with app.run_test(size=(140, 40)) as pilot:
        await opened(pilot, screen)
        assert labels(screen) == ["+4 \N{MINUS SIGN}3 app.py", "+1 \N{MINUS SIGN}0 notes.md"]
        view = screen.query_one(DiffView)
        assert view.diff.old_text == OLD and view.diff.new_text == NEW
        assert len(view.diff.hunks) == 3
        await pilot.press("n")  # hunk keys work from the file list too
        assert view.current_hunk == 1
        await pilot.press("down")
        await wait_for(pilot, lambda: screen.query_one(DiffView).diff.new_text == "hello\n", "b")
        assert screen.query_one(DiffView).diff.is_new_file


async def test_revert_one_hunk_writes_exact_content_and_records_a_revert(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    log = fs.changes
    target = tmp_path / "app.py"
    target.write_text(OLD)
    agent_write(log, target, NEW)
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await opened(pilot, screen)
        await pilot.press("enter")  # into the diff
        assert isinstance(app.focused, DiffView)
        await pilot.press("n", "r")  # hunk 2
        await wait_for(pilot, lambda: screen.loads >= 2, "the reload after the revert")
        expected = NEW.replace("line 15 (agent)\n", "line 15\n")
        assert target.read_text() == expected
        record = log.records[-1]
        assert (record.reverts, record.before, record.after) == (1, NEW, expected)
        view = screen.query_one(DiffView)
        assert len(view.diff.hunks) == 2
        assert view.current_hunk == 1  # stays near where the user was
        assert labels(screen) == ["+3 \N{MINUS SIGN}2 app.py"]
        assert any("reverted hunk 2 of app.py" in str(n.message) for n in app._notifications)


async def test_revert_whole_file_restores_the_original(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    log = fs.changes
    target = tmp_path / "app.py"
    target.write_text(OLD)
    agent_write(log, target, OLD.replace("line 1\n", "one\n"))
    agent_write(log, target, NEW)
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await opened(pilot, screen)
        await pilot.press("R")
        await wait_for(pilot, lambda: target.read_text() == OLD, "the revert")
        as_before = ["app.py  (as before)"]
        await wait_for(pilot, lambda: labels(screen) == as_before and drawn(screen), "the label")
        assert log.records[-1].reverts == 1
        assert screen.query_one(DiffView).diff.hunks == ()
        await pilot.press("r")  # nothing left to revert: no write, no record
        await pilot.pause()
        assert len(log.records) == 3


async def test_reverting_a_created_file_deletes_it(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    log = fs.changes
    target = tmp_path / "new.txt"
    agent_write(log, target, "a\nb\n")
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot, screen)
        await pilot.press("r")  # its only hunk: the same as reverting the file
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question")
        assert isinstance(app.screen, QuestionScreen)
        assert app.screen.question.title == "Delete new.txt?"
        await pilot.press("y")
        await wait_for(pilot, lambda: labels(screen) == ["new.txt  (removed)"], "the removal")
        assert not target.exists()
        assert log.records[-1].deleted


async def test_original_bytes_that_are_not_utf8_come_back_exactly(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    log = fs.changes
    target = tmp_path / "latin1.txt"
    original = "caf\xe9\r\nna\xefve\r\n".encode("latin-1")
    target.write_bytes(original)
    before = original.decode("utf-8", errors="replace")
    target.write_text("cafe\n")
    log.add(target, before, "cafe\n", before_bytes=original)
    screen = ChangesScreen(fs.reverts)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot, screen)
        await pilot.press("R")
        await wait_for(pilot, lambda: target.read_bytes() == original, "the exact bytes")


async def test_a_file_edited_since_it_was_shown_is_not_reverted(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    log = fs.changes
    target = tmp_path / "app.py"
    target.write_text(OLD)
    agent_write(log, target, NEW)
    screen = ChangesScreen(fs.reverts)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await opened(pilot, screen)
        edited = NEW + "user line\n"
        target.write_text(edited)  # behind the view's back
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.loads >= 2, "the refresh")
        assert target.read_text() == edited
        assert len(log.records) == 1
        assert screen.query_one(DiffView).diff.new_text == edited
        assert any("changed on disk" in str(n.message) for n in app._notifications)


async def test_follows_new_writes_while_open(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    log = fs.changes
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot, screen)
        assert labels(screen) == []
        assert str(screen.query_one("#changes-empty", Static).render()) == EMPTY_TEXT
        agent_write(log, tmp_path / "late.txt", "x\n")
        await wait_for(pilot, lambda: labels(screen) == ["+1 \N{MINUS SIGN}0 late.txt"], "list")
        await wait_for(pilot, lambda: bool(screen.query(DiffView)), "the diff")
        await pilot.press("escape")
        await pilot.pause()
        assert app.was_closed
    agent_write(log, tmp_path / "after.txt", "y\n")  # unsubscribed: nothing breaks


def swap_for_link(project: Path, outside: Path, what: str) -> Path:
    """After the agent wrote project/sub/notes.txt: replace the file (or its directory) by a
    symlink to a copy outside the project; the outside file that `r` must not write blindly."""
    notes = project / "sub" / "notes.txt"
    outside.mkdir()
    (outside / "notes.txt").write_text(notes.read_text())
    if what == "file":
        notes.unlink()
        notes.symlink_to(outside / "notes.txt")
    else:
        for child in (project / "sub").iterdir():
            child.unlink()
        (project / "sub").rmdir()
        (project / "sub").symlink_to(outside)
    return outside / "notes.txt"


@pytest.mark.parametrize("what", ["file", "directory"])
@pytest.mark.parametrize("key", ["r", "R"])
async def test_a_revert_through_a_swapped_symlink_asks_like_an_agent_write(
    tmp_path: Path, what: str, key: str
) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    asker = FixedAnswer(DENY)
    fs = host_in(project, asker)
    notes = project / "sub" / "notes.txt"
    notes.write_text(OLD)
    agent_write(fs.changes, notes, NEW)
    outside = swap_for_link(project, tmp_path / "outside", what)
    screen = ChangesScreen(fs.reverts, root=project)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await opened(pilot, screen)
        await pilot.press(key)
        await wait_for(pilot, lambda: asker.asked, "the boundary's question")
        await wait_for(pilot, lambda: not screen._busy, "the revert to finish")
        [question] = asker.asked
        assert question.kind == "target_changed"
        assert question.data["resolved"] == str(outside)
        assert question.data["outside"] is True
        assert "OUTSIDE the session directory" in question.detail
        assert outside.read_text() == NEW  # denied: nothing written through the link
        assert len(fs.changes.records) == 1
        assert any("not reverted" in str(n.message) for n in app._notifications)


async def test_a_revert_through_a_swapped_symlink_writes_there_when_allowed(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    asker = FixedAnswer("allow_once")
    fs = host_in(project, asker)
    notes = project / "sub" / "notes.txt"
    notes.write_text(OLD)
    agent_write(fs.changes, notes, NEW)
    outside = swap_for_link(project, tmp_path / "outside", "file")
    screen = ChangesScreen(fs.reverts, root=project)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await opened(pilot, screen)
        await pilot.press("R")
        await wait_for(pilot, lambda: outside.read_text() == OLD, "the revert, where allowed")
        assert notes.is_symlink()
        assert fs.changes.records[-1].path == outside.resolve()
        assert fs.changes.records[-1].reverts == 1


async def test_reverting_a_created_file_asks_and_keeps_it_on_no(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    target = tmp_path / "new.txt"
    agent_write(fs.changes, target, "a\nb\n")
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot, screen)
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question")
        assert isinstance(app.screen, QuestionScreen)
        assert "deletes the file" in app.screen.question.detail
        await pilot.press("n")
        await wait_for(pilot, lambda: not screen._busy, "the revert to finish")
        assert target.read_text() == "a\nb\n"
        assert len(fs.changes.records) == 1


async def test_reverting_to_an_empty_original_asks_first(tmp_path: Path) -> None:
    fs = host_in(tmp_path)
    target = tmp_path / "empty.txt"
    target.write_text("")
    agent_write(fs.changes, target, "filled\n")
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    app = ChangesApp(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot, screen)
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, QuestionScreen), "the question")
        assert isinstance(app.screen, QuestionScreen)
        assert app.screen.question.title == "Empty empty.txt?"
        await pilot.press("y")
        await wait_for(pilot, lambda: target.read_text() == "", "the file emptied")
