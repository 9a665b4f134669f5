"""Apply through the UI flow, by keys: conflicts and deletions asked, the per-hunk review's
decisions written, binary files skipped, the summary shown; a real git repository."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from acp_tui.host.asker import Question
from acp_tui.ui.app import AcpApp
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.screens.apply_worktree import (
    ApplyReviewScreen,
    ApplySummaryScreen,
    apply_worktree,
)
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.worktrees.apply import ApplySummary
from acp_tui.worktrees.worktrees import Worktree, create_worktree, remove_worktree
from tests.git_repo import make_repo
from tests.ui.headless_app import headless_app, until

LINES = "".join(f"line {i}\n" for i in range(1, 31))
EDITED = LINES.replace("line 2\n", "line 2 (agent)\n").replace("line 28\n", "line 28 (agent)\n")
HOSTILE = "f\x1b]0;pwn\x07.txt"


def summary_shown(app: Any) -> bool:
    """The summary screen is up and composed (pushed is not enough: its widgets mount after)."""
    return isinstance(app.screen, ApplySummaryScreen) and bool(app.screen.query("#apply-summary"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path,
        {"a_conflict.txt": "base\n", "b_edit.py": LINES, "c_old.txt": "bye\n"},
    )


async def agent_worktree(repo: Path) -> Worktree:
    wt = await create_worktree(repo, "agent")
    write(wt.path / "a_conflict.txt", "agent\n")
    write(wt.path / "b_edit.py", EDITED)
    (wt.path / "c_old.txt").unlink()
    write(wt.path / "d_new.md", "# new\n")
    (wt.path / "e.png").write_bytes(b"\x89PNG\0\0binary")
    write(wt.path / HOSTILE, "x\n")
    write(repo / "a_conflict.txt", "user\n")  # the main checkout moved on meanwhile
    return wt


def write(path: Path, text: str) -> None:
    path.write_text(text)


def read(path: Path) -> str:
    return path.read_text()


def asking(app: AcpApp, kind: str, name: str) -> bool:
    screen = app.screen
    if not isinstance(screen, QuestionScreen):
        return False
    question: Question = screen.question
    return question.kind == kind and name in question.title


def reviewing(app: AcpApp, name: str) -> bool:
    return isinstance(app.screen, ApplyReviewScreen) and app.screen.path.name == name


async def answer(pilot: Pilot[Any], app: AcpApp, kind: str, name: str, key: str) -> None:
    await until(pilot, lambda: asking(app, kind, name), f"the {kind} question about {name}")
    await pilot.press(key)


async def review(pilot: Pilot[Any], app: AcpApp, name: str, *keys: str) -> None:
    await until(pilot, lambda: reviewing(app, name), f"the review of {name}")
    await pilot.press(*keys)


async def test_apply_by_keys_through_questions_and_review(repo: Path) -> None:
    wt = await agent_worktree(repo)
    async with headless_app((120, 40)) as (app, pilot):
        worker = app.run_worker(apply_worktree(app, wt, watch=False))
        await answer(pilot, app, "apply_conflict", "a_conflict.txt", "s")
        await review(pilot, app, "b_edit.py", "y", "x", "enter")  # the first hunk only
        await answer(pilot, app, "apply_delete", "c_old.txt", "d")
        await review(pilot, app, "d_new.md", "enter")
        await answer(pilot, app, "apply_copy", "e.png", "c")
        await review(pilot, app, HOSTILE, "escape")
        await until(pilot, lambda: summary_shown(app), "the summary")
        shown = str(app.screen.query_one("#apply-summary", Static).render())
        title = str(app.screen.query_one("#apply-summary-title", Static).render())
        await pilot.press("enter")
        await until(pilot, lambda: worker.is_finished, "the apply to end")
    summary = worker.result
    assert isinstance(summary, ApplySummary)
    assert summary.applied == [
        ("b_edit.py", "changed: 1 of 2 hunks"),
        ("c_old.txt", "deleted"),
        ("d_new.md", "created"),
        ("e.png", "copied whole, 12 bytes"),
    ]
    assert summary.skipped == [
        ("a_conflict.txt", "conflict: skipped by you"),
        (HOSTILE, "rejected in review"),
    ]
    assert summary.failed == []
    assert read(repo / "b_edit.py") == LINES.replace("line 2\n", "line 2 (agent)\n")
    assert read(repo / "a_conflict.txt") == "user\n"
    assert not (repo / "c_old.txt").exists()
    assert read(repo / "d_new.md") == "# new\n"
    assert (repo / "e.png").read_bytes() == b"\x89PNG\0\0binary"
    assert not (repo / HOSTILE).exists()
    assert title.endswith("4 applied, 2 skipped, 0 failed")
    assert "Applied: b_edit.py (changed: 1 of 2 hunks)" in shown
    assert "Skipped: a_conflict.txt (conflict: skipped by you)" in shown
    assert "\x1b" not in shown and "\x07" not in shown


async def test_review_a_conflict_and_stop(repo: Path) -> None:
    wt = await agent_worktree(repo)
    async with headless_app((120, 40)) as (app, pilot):
        worker = app.run_worker(apply_worktree(app, wt, watch=False))
        await answer(pilot, app, "apply_conflict", "a_conflict.txt", "r")
        await until(pilot, lambda: reviewing(app, "a_conflict.txt"), "the conflict's review")
        review_screen = app.screen
        assert isinstance(review_screen, ApplyReviewScreen)
        assert review_screen.before == "user\n"  # the review shows what would be replaced
        await pilot.press("enter")
        await review(pilot, app, "b_edit.py", "escape")
        await answer(pilot, app, "apply_delete", "c_old.txt", "q")
        await until(pilot, lambda: summary_shown(app), "the summary")
        await pilot.press("escape")
        await until(pilot, lambda: worker.is_finished, "the apply to end")
    summary = worker.result
    assert isinstance(summary, ApplySummary)
    assert summary.applied == [("a_conflict.txt", "changed")]
    assert read(repo / "a_conflict.txt") == "agent\n"
    stopped = "not applied: the apply was stopped"
    assert summary.skipped[:2] == [("b_edit.py", "rejected in review"), ("c_old.txt", stopped)]
    assert ("d_new.md", stopped) in summary.skipped
    assert read(repo / "b_edit.py") == LINES and read(repo / "c_old.txt") == "bye\n"
    assert not (repo / "d_new.md").exists()


async def test_a_key_too_soon_after_the_question_answers_nothing(repo: Path) -> None:
    wt = await agent_worktree(repo)
    now = [100.0]
    async with headless_app((120, 40)) as (app, pilot):
        app.key_guard = KeyGuard(lambda: now[0])
        worker = app.run_worker(apply_worktree(app, wt, watch=False))
        await until(pilot, lambda: asking(app, "apply_conflict", "a_conflict.txt"), "question")
        await pilot.press("r", "enter")  # at once: meant for something else, not an answer
        assert asking(app, "apply_conflict", "a_conflict.txt")
        now[0] += 1.0
        await pilot.press("s")  # typed through it ("r"): it waits to be chosen
        await pilot.pause()
        assert asking(app, "apply_conflict", "a_conflict.txt")
        now[0] += 6.0  # (the next question comes long after that typing)
        await pilot.press("f4", "s")  # chosen on purpose: its keys answer
        await until(pilot, lambda: reviewing(app, "b_edit.py"), "the next review")
        now[0] += 1.0
        await pilot.press("escape")
        await until(pilot, lambda: asking(app, "apply_delete", "c_old.txt"), "the deletion")
        await pilot.press("d")  # too soon again: c_old.txt stays
        now[0] += 1.0
        await pilot.press("q")  # typed through it ("d"): it waits to be chosen
        await pilot.pause()
        assert asking(app, "apply_delete", "c_old.txt")
        await pilot.press("f4", "q")
        await until(pilot, lambda: summary_shown(app), "the summary")
        now[0] += 1.0
        await pilot.press("enter")
        await until(pilot, lambda: worker.is_finished, "the apply to end")
    assert read(repo / "a_conflict.txt") == "user\n" and read(repo / "c_old.txt") == "bye\n"
    summary = worker.result
    assert isinstance(summary, ApplySummary) and summary.applied == []


async def test_a_worktree_that_is_gone_is_a_failure_in_the_summary(repo: Path) -> None:
    wt = await agent_worktree(repo)
    await remove_worktree(wt)
    async with headless_app((120, 40)) as (app, pilot):
        worker = app.run_worker(apply_worktree(app, wt, watch=False))
        await until(pilot, lambda: summary_shown(app), "the summary")
        shown = str(app.screen.query_one("#apply-summary", Static).render())
        await pilot.press("enter")
        await until(pilot, lambda: worker.is_finished, "the apply to end")
    assert f"Failed: {wt.name} (nothing applied: the worktree {wt.path} no longer exists)" in shown
    summary = worker.result
    assert isinstance(summary, ApplySummary) and summary.applied == []
