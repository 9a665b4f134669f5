"""Many files changed at once (issue 25, item 7): F2 opens at once and says what it is reading,
lists a capped number of files with a "N more" line, the turn summary appears with the count
(a few files named), and ctrl+q ends the app while the change monitor is held reading."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from acp_tui.host import baseline, change_monitor
from acp_tui.host.baseline import Before
from acp_tui.host.change_monitor import ChangeMonitor
from acp_tui.ui.screens import changes_screen
from acp_tui.ui.screens.changes_screen import LOADING_TEXT, ChangesScreen
from acp_tui.ui.widgets.turn_summary import TurnSummaryView
from tests.ui.app_harness import fixed_cwd, plain, run_app
from tests.ui.test_changes_screen import ChangesApp, agent_write, host_in, labels, wait_for
from tests.ui.test_floods import flood

pytestmark = pytest.mark.timeout(120)


async def test_f2_shows_progress_while_reading_then_a_capped_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fs = host_in(tmp_path)
    for index in range(260):
        agent_write(fs.changes, tmp_path / f"f{index:03}.txt", f"file {index}\n")
    monkeypatch.setattr(changes_screen, "MAX_LISTED", 250, raising=False)
    slices: list[int] = []
    release = threading.Event()
    real_load = changes_screen.load_changes

    def load_changes(log: Any, paths: list[Path]) -> Any:
        slices.append(len(paths))
        if len(slices) == 2:
            release.wait(30)  # the second slice is held: the list is still being built
        return real_load(log, paths)

    monkeypatch.setattr(changes_screen, "load_changes", load_changes, raising=False)
    screen = ChangesScreen(fs.reverts, root=tmp_path)
    app = ChangesApp(screen)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            title = screen.query_one("#changes-title", Static)
            await wait_for(pilot, lambda: "reading 100 of 250 files" in plain(title), "progress")
            assert plain(screen.query_one("#changes-empty", Static)) == LOADING_TEXT
            assert screen.loads == 0
            release.set()
            await wait_for(pilot, lambda: screen.loads == 1, "the list")
            shown = labels(screen)
            assert len(shown) == 251
            assert shown[0] == "+1 \N{MINUS SIGN}0 f000.txt"
            assert shown[-1] == "… and 10 more files (not listed; / filters)"
            counts = "260 files: 0 edited, 0 deleted, 260 new"
            assert plain(title) == f"Changes in this session · {counts}"
            assert slices == [100, 100, 50]  # the 10 not listed were never read
            files = screen.query_one(OptionList)
            await pilot.press("end")
            assert files.highlighted == 249  # the "more" line cannot be picked
    finally:
        release.set()


async def test_a_turn_that_created_a_thousand_files_is_summed_up_and_listed(
    tmp_path: Path,
) -> None:
    async with run_app(flood("files", 1000), fixed_cwd(tmp_path)) as h:
        await h.type_prompt("make files")
        await h.until(lambda: h.all(TurnSummaryView), "the turn summary", seconds=60)
        view = h.one(TurnSummaryView)
        await h.until(lambda: len(view.summary.files) == 1000, "all files in the summary", 60)
        line = plain(view)
        assert line.startswith("Δ changed 1,000 files: +1 \N{MINUS SIGN}0 flood/f0")
        assert line.count("+1 \N{MINUS SIGN}0 flood/f0") == 8  # eight named, the rest counted
        assert "and 992 more (F2 lists them)" in line
        await h.pilot.press("f2")
        await h.until(lambda: isinstance(h.app.screen, ChangesScreen), "F2")
        screen = h.app.screen
        assert isinstance(screen, ChangesScreen)
        await h.until(lambda: screen.loads >= 1, "the list")
        assert len(labels(screen)) == 1000


async def test_ctrl_q_ends_the_app_while_the_monitor_is_held_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reads: list[Path] = []
    blocked, release, finished = threading.Event(), threading.Event(), threading.Event()
    real_read, real_look = baseline.read_small, ChangeMonitor._look

    def read_small(path: Path, limit: int) -> Before:
        if path.parent.name == "flood":
            reads.append(path)
            if len(reads) == 5:
                blocked.set()
                release.wait(60)
        return real_read(path, limit)

    def look(monitor: ChangeMonitor, *args: Any) -> Any:
        try:
            return real_look(monitor, *args)
        finally:
            if blocked.is_set():
                finished.set()

    monkeypatch.setattr(change_monitor, "read_small", read_small)
    monkeypatch.setattr(ChangeMonitor, "_look", look)
    try:
        async with run_app(flood("files", 2000), fixed_cwd(tmp_path)) as h:
            await h.type_prompt("make files")
            await h.until(blocked.is_set, "the monitor held at its 5th file", seconds=60)
            await h.pilot.press("ctrl+q")
            async with asyncio.timeout(30):  # (a deadline for a hung quit, not a measure)
                while h.app.is_running:  # noqa: ASYNC110 (the app's state has no event)
                    await asyncio.sleep(0.05)
            assert blocked.is_set() and not release.is_set()  # quit while still held
    finally:
        release.set()
    assert await asyncio.to_thread(finished.wait, 30)
    assert len(reads) <= 6, f"{len(reads)} files read after the app ended"
