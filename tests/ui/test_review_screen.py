"""WriteReviewScreen through Pilot: per-hunk decisions, accept/reject all, both layouts, Esc."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.app import App
from textual.widgets import Static

from acp_tui.thread.hunks import ReviewedWrite
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens.review_screen import WriteReviewScreen
from acp_tui.ui.widgets.diff_view import DiffView

OLD = "".join(f"line {i}\n" for i in range(1, 31))
# three changes far enough apart (more than 2*3 context lines) to be three hunks
NEW = OLD.replace("line 2\n", "line 2 (agent)\n").replace("line 15\n", "line 15 (agent)\n")
NEW = NEW.replace("line 28\n", "line 28 (agent)\nline 28b (agent)\n")
MISSING = object()


class ReviewApp(App[None]):
    key_guard = KeyGuard.unguarded()  # keys answer at once
    """Pushes one WriteReviewScreen and keeps what it dismissed with."""

    def __init__(self, screen: WriteReviewScreen) -> None:
        super().__init__()
        self.review = screen
        self.result: Any = MISSING

    def on_mount(self) -> None:
        self.push_screen(self.review, callback=self._done)

    def _done(self, result: ReviewedWrite | None) -> None:
        self.result = result


def make(path: str = "/tmp/acp-review-test/app.txt", **kwargs: Any) -> ReviewApp:
    return ReviewApp(WriteReviewScreen(Path(path), OLD, NEW, watch=False, **kwargs))


def layout_of(view: DiffView) -> str:
    return view.effective_layout  # a str, so that mypy does not narrow it between key presses


def status(app: ReviewApp) -> str:
    return str(app.review.query_one("#review-status", Static).render())


async def test_three_hunk_write_per_hunk_accept_gives_exact_file() -> None:
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert len(app.review.diff.hunks) == 3
        assert "enter writes 3 of 3 hunks" in status(app)
        await pilot.press("y", "x", "y")  # accept 1, reject 2, accept 3 (each moves on)
        assert app.review.diff_view.hunk_states == {0: "accepted", 1: "rejected", 2: "accepted"}
        assert "enter writes 2 of 3 hunks (1 rejected)" in status(app)
        await pilot.press("enter")
        await pilot.pause()
    expected = OLD.replace("line 2\n", "line 2 (agent)\n").replace(
        "line 28\n", "line 28 (agent)\nline 28b (agent)\n"
    )
    assert app.result == ReviewedWrite(expected, 2, 3)


async def test_undecided_hunks_count_as_accepted() -> None:
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("n", "x")  # go to hunk 2, reject it; 1 and 3 stay undecided
        assert "2 undecided, counted as accepted" in status(app)
        await pilot.press("enter")
        await pilot.pause()
    assert app.result.accepted == 2
    assert "line 15 (agent)" not in app.result.content
    assert "line 2 (agent)" in app.result.content and "line 28b (agent)" in app.result.content


async def test_undo_clears_a_decision() -> None:
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("x", "p", "u")
        assert app.review.decisions == {}
        assert app.review.diff_view.hunk_states == {}
        await pilot.press("enter")
        await pilot.pause()
    assert app.result == ReviewedWrite(NEW, 3, 3)


async def test_accept_all_then_enter_writes_the_proposal() -> None:
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("x", "x", "A")
        assert set(app.review.decisions.values()) == {"accepted"}
        await pilot.press("enter")
        await pilot.pause()
    assert app.result == ReviewedWrite(NEW, 3, 3)


async def test_reject_all_then_enter_rejects_the_change() -> None:
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("R")
        assert "Every hunk rejected" in status(app)
        await pilot.press("enter")
        await pilot.pause()
    assert app.result is None


async def test_every_hunk_rejected_one_by_one_rejects_the_change() -> None:
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("x", "x", "x", "enter")
        await pilot.pause()
    assert app.result is None


async def test_escape_rejects_even_after_accepting() -> None:
    app = make()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("y", "y", "escape")
        await pilot.pause()
    assert app.result is None


async def test_split_layout_keys_and_layout_toggle() -> None:
    app = make()
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.pause()
        view = app.review.query_one(DiffView)
        assert layout_of(view) == "split"
        await pilot.press("x", "s")  # s is the DiffView's own toggle, not a review key
        assert layout_of(view) == "unified"
        assert app.review.decisions == {0: "rejected"}
        await pilot.press("s", "y", "y", "enter")
        await pilot.pause()
    assert app.result.accepted == 2
    assert "line 2 (agent)" not in app.result.content


async def test_new_file_review_and_title() -> None:
    screen = WriteReviewScreen(Path("/tmp/acp-review-test/new.txt"), None, "a\nb\n", watch=False)
    app = ReviewApp(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        title = str(screen.query_one("#review-title", Static).render())
        assert "create" in title and "new.txt" in title
        await pilot.press("enter")
        await pilot.pause()
    assert app.result == ReviewedWrite("a\nb\n", 1, 1)


async def test_identical_content_has_no_hunks_and_enter_finishes() -> None:
    screen = WriteReviewScreen(Path("/tmp/acp-review-test/same.txt"), OLD, OLD, watch=False)
    app = ReviewApp(screen)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert "already holds this content" in status(app)
        await pilot.press("y", "enter")
        await pilot.pause()
    assert app.result == ReviewedWrite(OLD, 0, 0)
