"""WriteReviewScreen when the file changes on disk under review (real watchfiles), and the whole
path from `FileSystemHost.write_text_file` through `WriteReviewGate` to the screen and the disk."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Static

from acp_tui.client.write_review import WriteReport, WriteReviewGate
from acp_tui.host.asker import Question
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.protocol.errors import RpcError
from acp_tui.protocol.models import WriteTextFileRequest
from acp_tui.thread.diff import FileDiff
from acp_tui.thread.hunks import ReviewedWrite
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens.review_screen import WriteReviewScreen

OLD = "".join(f"line {i}\n" for i in range(1, 31))
NEW = OLD.replace("line 2\n", "line 2 (agent)\n").replace("line 15\n", "line 15 (agent)\n")
NEW = NEW.replace("line 28\n", "line 28 (agent)\nline 28b (agent)\n")


async def wait_for(pilot: Any, condition: Any, what: str, limit: float = 10.0) -> None:
    """Poll `condition` between pilot pauses until it holds (bounded, no fixed sleeps)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


class ReviewApp(App[None]):
    key_guard = KeyGuard.unguarded()  # keys answer at once

    def __init__(self, screen: WriteReviewScreen) -> None:
        super().__init__()
        self.review = screen
        self.result: Any = "missing"

    def on_mount(self) -> None:
        self.push_screen(self.review, callback=self._done)

    def _done(self, result: ReviewedWrite | None) -> None:
        self.result = result


async def test_disk_change_refreshes_diff_keeps_matching_decisions_and_warns(
    tmp_path: Path,
) -> None:
    target = tmp_path / "app.txt"
    target.write_text(OLD)
    screen = WriteReviewScreen(target, OLD, NEW)
    app = ReviewApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await asyncio.wait_for(screen.watch_ready.wait(), 10)
        await pilot.press("x", "y", "x")  # reject 1, accept 2, reject 3
        banner = screen.query_one("#review-banner", Static)
        assert not banner.display
        # the user edits line 15's neighbourhood away from the agent's hunks: hunk 2 now also
        # has to undo that edit, so it differs; hunks 1 and 3 still make the same change
        target.write_text(OLD.replace("line 16\n", "line 16 (user)\n"))
        await wait_for(pilot, lambda: screen.disk_changes == 1, "the diff to refresh")
        assert banner.display
        assert "changed on disk" in str(banner.render())
        assert screen.before == OLD.replace("line 16\n", "line 16 (user)\n")
        assert len(screen.diff.hunks) == 3
        assert screen.decisions == {0: "rejected", 2: "rejected"}
        assert screen.diff_view.hunk_states == {0: "rejected", 2: "rejected"}
        assert any("changed on disk" in str(n.message) for n in app._notifications)
        # hunk 2 now makes a different change (it would undo the user's edit): enter waits
        assert screen.must_decide == {1}
        assert screen.diff_view.current_hunk == 1
        assert "need y or x" in str(screen.query_one("#review-status", Static).render())
        await pilot.press("enter")
        await pilot.pause()
        assert app.result == "missing"
        await pilot.press("x", "enter")
        await pilot.pause()
    # the user's edit survives; hunks 1 and 3 stay rejected: nothing of the agent's is left
    assert app.result is None


async def test_disk_change_then_accepting_the_changed_hunk(tmp_path: Path) -> None:
    target = tmp_path / "app.txt"
    target.write_text(OLD)
    screen = WriteReviewScreen(target, OLD, NEW)
    app = ReviewApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await asyncio.wait_for(screen.watch_ready.wait(), 10)
        await pilot.press("x")  # reject hunk 1; 2 and 3 undecided
        target.write_text(OLD.replace("line 16\n", "line 16 (user)\n"))
        await wait_for(pilot, lambda: screen.disk_changes == 1, "the diff to refresh")
        await pilot.press("y", "enter")  # accept the changed hunk 2; 3 undecided = accepted
        await pilot.pause()
    expected = OLD.replace("line 15\n", "line 15 (agent)\n").replace(
        "line 28\n", "line 28 (agent)\nline 28b (agent)\n"
    )
    assert app.result == ReviewedWrite(expected, 2, 3)


async def test_file_deleted_under_review_is_reported(tmp_path: Path) -> None:
    target = tmp_path / "gone.txt"
    target.write_text(OLD)
    screen = WriteReviewScreen(target, OLD, NEW)
    app = ReviewApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await asyncio.wait_for(screen.watch_ready.wait(), 10)
        target.unlink()
        await wait_for(pilot, lambda: screen.disk_changes == 1, "the deletion to show")
        assert "was deleted" in str(screen.query_one("#review-banner", Static).render())
        assert screen.diff.is_new_file
        await pilot.press("enter")  # re-creating a file the user deleted needs a decision
        await pilot.pause()
        assert app.result == "missing"
        await pilot.press("y", "enter")
        await pilot.pause()
    assert app.result == ReviewedWrite(NEW, 1, 1)


# ---- end to end: FileSystemHost -> gate -> screen -> disk --------------------------------------


class NoQuestions:
    async def ask(self, question: Question) -> str:
        raise AssertionError(f"unexpected question {question.kind}")


class HostApp(App[None]):
    key_guard = KeyGuard.unguarded()  # keys answer at once
    """Answers the gate's review_ui by pushing WriteReviewScreen, like the real UI bridge."""

    def __init__(self) -> None:
        super().__init__()
        self.screens_shown: list[WriteReviewScreen] = []

    async def review_ui(self, path: Path, diff: FileDiff) -> Any:
        future: asyncio.Future[ReviewedWrite | None] = asyncio.get_running_loop().create_future()
        screen = WriteReviewScreen(path, diff.old_text, diff.new_text, diff=diff, watch=False)
        assert screen.diff is diff  # the gate's diff, not a second one
        self.screens_shown.append(screen)
        self.push_screen(screen, callback=future.set_result)
        return await future


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text(OLD)
    return tmp_path


async def test_end_to_end_partial_accept_writes_merge_and_reports(project: Path) -> None:
    app = HostApp()
    gate = WriteReviewGate(app.review_ui, hold_writes="always", cwd=project)
    fs = FileSystemHost(project, NoQuestions(), write_gate=gate)
    reports: list[WriteReport] = []
    fs.written.subscribe(reports.append)
    target = project / "src" / "app.py"
    async with app.run_test(size=(100, 40)) as pilot:
        write = asyncio.create_task(
            fs.write_text_file(WriteTextFileRequest(session_id="s", path=str(target), content=NEW))
        )
        await wait_for(pilot, lambda: isinstance(app.screen, WriteReviewScreen), "the review")
        assert target.read_text() == OLD  # held: nothing written yet
        await pilot.press("y", "x", "y", "enter")
        assert await asyncio.wait_for(write, 10) == {}
    expected = OLD.replace("line 2\n", "line 2 (agent)\n").replace(
        "line 28\n", "line 28 (agent)\nline 28b (agent)\n"
    )
    assert target.read_text() == expected
    summary = "wrote src/app.py: 2 of 3 hunks (+3 \N{MINUS SIGN}2)"
    assert [r.summary(project) for r in reports] == [summary]
    assert fs.changes.original(target) == OLD


async def test_end_to_end_reject_gives_agent_the_rejection_error(project: Path) -> None:
    app = HostApp()
    gate = WriteReviewGate(app.review_ui, cwd=project)  # default: outside_permission
    fs = FileSystemHost(project, NoQuestions(), write_gate=gate)
    target = project / "src" / "app.py"
    async with app.run_test(size=(100, 40)) as pilot:
        write = asyncio.create_task(
            fs.write_text_file(WriteTextFileRequest(session_id="s", path=str(target), content=NEW))
        )
        await wait_for(pilot, lambda: isinstance(app.screen, WriteReviewScreen), "the review")
        await pilot.press("escape")
        with pytest.raises(RpcError) as caught:
            await asyncio.wait_for(write, 10)
    assert caught.value.message == f"the user rejected the change to {target}"
    assert caught.value.data == {"path": str(target), "reason": "rejected"}
    assert target.read_text() == OLD
    assert fs.changes.records == []


async def test_a_review_closed_while_its_diff_is_redrawn_for_a_disk_change_raises_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The user answers (the screen closes) while the diff is being redrawn for a change on
    disk: the redraw stops quietly (it raised NoMatches for the banner of a screen gone)."""
    from acp_tui.ui.widgets.diff_view import DiffView

    target = tmp_path / "app.txt"
    target.write_text(OLD)
    screen = WriteReviewScreen(target, OLD, NEW, watch=False)
    app = ReviewApp(screen)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        remove = DiffView.remove

        async def closing_remove(view: DiffView) -> None:
            await screen.dismiss(None)  # the user's answer comes while the old diff goes
            await remove(view)

        monkeypatch.setattr(DiffView, "remove", closing_remove)
        await screen.rebase(OLD.replace("line 16\n", "line 16 (user)\n"))
        await wait_for(pilot, lambda: app.result is None, "the review closed")
        assert screen.disk_changes == 0
