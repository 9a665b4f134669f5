"""The screens of applying a worktree (its per-hunk review, its question on a conflict, its
summary), the terminal a login runs in, and the workspace's overview (ctrl+o with the apply and
compare keys), at 80x24 and 160x50, each over a bare app: no agent process, fixed paths.

The login's command is a real one in a real PTY: it prints a fixed text, then waits for a line
nobody types (the picture waits on its output, not on time); the app stops it when it exits.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App

from acp_tui.client.events import SessionState
from acp_tui.client.replay import ReplaySession, load_log
from acp_tui.config import Settings
from acp_tui.host.terminals import TerminalHost
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.thread.diff import compute_diff
from acp_tui.ui.key_guard import KeyGuard
from acp_tui.ui.replay_app import ReplayApp
from acp_tui.ui.screens.apply_worktree import (
    ApplyQuestionScreen,
    ApplyReviewScreen,
    ApplySummaryScreen,
    apply_worktree,
)
from acp_tui.ui.screens.auth import LoginTerminalScreen
from acp_tui.ui.widgets.prompt_input import PromptInput
from acp_tui.ui.widgets.status_bar import StatusBar
from acp_tui.ui.widgets.terminal_view import TerminalView
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from acp_tui.ui.workspace.workspace_overview import WorkspaceOverview
from acp_tui.worktrees.apply import Action, ApplyItem, ApplySummary
from acp_tui.worktrees.worktrees import Worktree
from tests.snapshot.test_app_at_two_sizes import SIZES
from tests.snapshot.test_diff_view_snapshots import NEW, OLD
from tests.snapshot.test_screens_at_two_sizes import PROJECT, ScreenApp, still
from tests.ui.test_replay import recording
from tests.ui.workspace_sessions import Workspace
from tests.unit.thread_support import Clock

BRANCH = "acp/fix-total-1"


def worktree() -> Worktree:
    path = Path("/home/you/.local/share/acp-tui/worktrees/project-fix-total-1")
    return Worktree(repo=PROJECT, path=path, branch=BRANCH, base="0" * 40)


def item(path: str, old: str, new: str, **how: Any) -> ApplyItem:
    target = PROJECT / path
    diff = compute_diff(str(target), old, new)
    return ApplyItem(path, target, Action.CHANGE, old, new, diff, **how)


class ApplyApp(App[None]):
    """Walks an apply plan over an empty screen, as the workspace does for `a` in the overview;
    its questions take keys at once (no guard hint that comes and goes with the clock)."""

    key_guard = KeyGuard.unguarded()

    def __init__(self, checkout: Path, plan: list[ApplyItem]) -> None:
        super().__init__()
        self.checkout = checkout
        self.plan = plan

    def on_mount(self) -> None:
        walk = apply_worktree(self, worktree(), self.checkout, plan=self.plan, watch=False)
        self.run_worker(walk)


@pytest.mark.parametrize("size", SIZES)
def test_apply_review(snap_compare, size: tuple[int, int], tmp_path: Path) -> None:
    """A changed file's per-hunk review, titled for the apply (`a` in the overview)."""
    app = ApplyApp(tmp_path, [item("shop.py", OLD, NEW)])

    async def shown(pilot) -> None:
        while not (isinstance(app.screen, ApplyReviewScreen) and app.screen.query("DiffView")):
            await pilot.pause(0.02)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=shown)


@pytest.mark.parametrize("size", SIZES)
def test_apply_conflict_question(snap_compare, size: tuple[int, int], tmp_path: Path) -> None:
    """A file the main checkout changed since the worktree began: asked before its review."""
    reason = (
        "the main checkout changed this file since the base; the worktree's changes merge "
        "into it without overlapping: the review shows them on top of it"
    )
    conflict = item("cart.py", "total = 0\n", "total = 1\n", conflict=True, reason=reason)
    app = ApplyApp(tmp_path, [conflict])

    async def shown(pilot) -> None:
        while not (isinstance(app.screen, ApplyQuestionScreen) and app.screen.query("Button")):
            await pilot.pause(0.02)
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=shown)


@pytest.mark.parametrize("size", SIZES)
def test_apply_summary(snap_compare, size: tuple[int, int]) -> None:
    summary = ApplySummary(
        applied=[("shop.py", "changed: 1 of 2 hunks"), ("docs/notes.md", "created")],
        skipped=[("cart.py", "conflict: skipped by you"), ("logo.png", "skipped by you")],
        failed=[("build/out.bin", "build/out.bin has several names (hard links): not applied")],
    )
    screen = ApplySummaryScreen(summary, BRANCH)
    assert snap_compare(ScreenApp(screen), terminal_size=size)


@pytest.mark.parametrize("size", SIZES)
def test_workspace_overview_ctrl_o(snap_compare, size: tuple[int, int]) -> None:
    """The workspace's overview: the sessions, and the keys to apply a worktree or compare."""
    workspace = Workspace(Clock())
    screen = WorkspaceOverview(workspace.rows, current=1, act=lambda what, index: None)
    assert snap_compare(ScreenApp(screen), terminal_size=size)


LOGIN = """printf 'Open https://example.invalid/device in a browser\\n'
printf 'and enter the code WDJB-MJHT.\\n\\nWaiting for the browser...\\n'
read answer
"""


class LoginApp(ScreenApp):
    """Shows the login's terminal; stops its command when the app exits (the picture is taken
    while it runs)."""

    async def on_unmount(self) -> None:
        host = getattr(self.shown, "_host", None)
        if isinstance(host, TerminalHost):
            await host.close_all()


@pytest.mark.parametrize("size", SIZES)
def test_login_terminal(snap_compare, size: tuple[int, int], tmp_path: Path) -> None:
    """A terminal login method's command, running in the screen's own terminal."""
    (tmp_path / "login.sh").write_text(LOGIN)
    screen = LoginTerminalScreen(["sh", "login.sh"], {}, str(tmp_path))
    app = LoginApp(screen)

    async def waiting(pilot) -> None:
        while not (
            screen.query(TerminalView)
            and "Waiting for the browser" in "\n".join(screen.query_one(TerminalView).text_lines())
        ):
            await pilot.pause(0.02)
        await still(pilot)

    assert snap_compare(app, terminal_size=size, run_before=waiting)


class StillReplayApp(ReplayApp):
    """The replay app with its prompt's cursor steadily on (a blinking cursor is a clock), from
    the first frame on, as `SnapshotApp` does."""

    def on_ready(self) -> None:
        for prompt in self.screen.query(PromptInput):
            prompt.cursor_blink = False


@pytest.mark.parametrize("size", SIZES)
def test_replay_paused(snap_compare, size: tuple[int, int], tmp_path: Path) -> None:
    """`acp-tui replay`: a recorded session stepped (f8) to its tool call while paused, no
    agent; the replay's keys in the footer. Its turn is running there: its clock stopped."""
    frames = load_log(recording(tmp_path))
    # no sandbox: the sidebar's Sandbox section would name this run's temporary directory
    settings = Settings(sandbox=SandboxMode.OFF)
    app = StillReplayApp(
        lambda bridge: ReplaySession(frames, tmp_path, bridge, paused=True, settings=settings)
    )

    async def stepped(pilot) -> None:
        session = app.replay
        while session.state is not SessionState.READY:
            await pilot.pause(0.02)
        await pilot.press(*["f8"] * 8)
        while not (session.position == 8 and pilot.app.screen.query(ToolCallCard)):
            await pilot.pause(0.02)
        pilot.app.screen.query_one(StatusBar).running_since = None
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=stepped)
