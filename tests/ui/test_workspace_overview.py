"""The workspace wired together, by keys: ctrl+o shows every tab in the overview (Enter goes to
one), ctrl+t opens a session in a new git worktree, the overview applies (`a`) and compares
(`c`) a worktree tab, ctrl+w on a worktree tab asks whether to remove it."""

from __future__ import annotations

from pathlib import Path

from textual.containers import Vertical
from textual.widgets import Button, DataTable

from acp_tui.ui.screens.apply_worktree import ApplyReviewScreen, ApplySummaryScreen
from acp_tui.ui.screens.compare_screen import CompareScreen
from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.screens.question import QuestionScreen
from acp_tui.ui.widgets.diff_preview import diff_title
from acp_tui.ui.workspace.tab import SessionTab
from acp_tui.ui.workspace.workspace_overview import WorkspaceOverview
from tests.git_repo import make_repo
from tests.ui.app_harness import AppHarness
from tests.ui.workspace_support import bar, open_tab, workspace_app

EDITED = "hello\nfrom the worktree\n"


async def overview(h: AppHarness) -> WorkspaceOverview:
    await h.pilot.press("ctrl+o")
    await h.until(lambda: isinstance(h.app.screen, WorkspaceOverview), "the overview")
    screen = h.app.screen
    assert isinstance(screen, WorkspaceOverview)
    await h.until(lambda: screen.refreshes > 0, "the rows")
    return screen


async def worktree_tab(h: AppHarness) -> SessionTab:
    """ctrl+t, the "new git worktree" entry (the last: same, another directory, worktree)."""
    return await open_tab(h, "down", "down", "enter")


async def test_ctrl_o_shows_every_tab_and_enter_goes_there(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        first = h.app.tabs[0]
        second = await open_tab(h)
        watches = h.app.overview.watches
        assert set(watches) == {first, second}, "one watch per tab, made when it opened"
        screen = await overview(h)
        await h.until(lambda: len(screen.shown) == 2, "two rows")
        assert screen.query_one(DataTable).cursor_row == 1, "the current tab is selected"
        await h.pilot.press("up", "enter")
        await h.until(lambda: h.app.current_tab is first, "Enter on the first row")
        assert isinstance(h.app.screen, MainScreen) and h.app.screen.session is first.session

        await h.pilot.press("alt+2", "ctrl+w")
        await h.until(lambda: len(h.app.tabs) == 1, "the second tab to close")
        assert set(h.app.overview.watches) == {first}, "its watch closed with it"


async def test_a_worktree_tab_applies_compares_and_is_removed(tmp_path: Path) -> None:
    repo = make_repo(tmp_path, {"README.md": "hello\n"})
    async with workspace_app(tmp_path, cwd=repo) as h:
        first = h.app.tabs[0]
        tab = await worktree_tab(h)
        wt = tab.spec.worktree
        assert wt is not None and wt.repo == repo and wt.branch.startswith("acp-tui/")
        assert tab.spec.cwd == wt.cwd and Path(tab.session.cwd) == wt.cwd
        await h.until(lambda: any(wt.branch in label.agent for label in bar(h).labels), "branch")
        (wt.path / "README.md").write_text(EDITED)  # what its agent did

        screen = await overview(h)
        await h.until(lambda: len(h.app.overview.watches[tab].diffs) == 1, "the worktree's diff")
        await h.until(lambda: wt.branch in str(screen.shown[1]), "the branch in the overview")
        await h.until(lambda: "+1" in str(screen.shown[1]), "its diff counted in its row")

        # c on the first row while it is the worktree tab that is shown: compare the two
        await h.pilot.press("up", "c")
        await h.until(lambda: isinstance(h.app.screen, CompareScreen), "the compare screen")
        compare = h.app.screen
        assert isinstance(compare, CompareScreen)
        assert [item.shown for item in compare.files] == ["README.md"]
        # the worktree's side names its file where it is, not as a suspicious relative path
        (item,) = compare.files
        # side 1 is tab 1, side 2 the worktree's tab 2, as the tabs go (issue 39, 15f)
        assert item.right is not None and item.right.path == str(wt.path / "README.md")
        assert "relative path" not in str(diff_title(item.right))
        assert compare.right.name.endswith(f"({wt.branch})") and compare.left.name
        await h.pilot.press("2")  # the worktree's side: applied through apply_worktree
        await h.until(lambda: isinstance(h.app.screen, ApplyReviewScreen), "its review")
        await h.pilot.press("escape")  # rejected: nothing written
        await h.until(lambda: isinstance(h.app.screen, ApplySummaryScreen), "the summary")
        await h.pilot.press("enter")
        assert (repo / "README.md").read_text() == "hello\n"

        # a on the in-place session's row: nothing to apply, it is on disk already
        screen = await overview(h)
        await h.pilot.press("up", "a")
        await h.until(lambda: any("already on disk" in n for n in h.notified), "said so")

        # the palette's "Apply this worktree" (the worktree tab is shown)
        await h.pilot.press("ctrl+p")
        await h.until(lambda: type(h.app.screen).__name__ == "CommandPalette", "the palette")
        await h.pilot.press(*"Apply this worktree")
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, ApplyReviewScreen), "its review")
        await h.pilot.press("escape")
        await h.until(lambda: isinstance(h.app.screen, ApplySummaryScreen), "the summary")
        await h.pilot.press("enter")
        assert (repo / "README.md").read_text() == "hello\n"

        # a on the worktree's row: its changes reviewed into the main checkout
        screen = await overview(h)
        await h.pilot.press("a")
        await h.until(lambda: isinstance(h.app.screen, ApplyReviewScreen), "the review")
        await h.pilot.press("enter")
        await h.until(lambda: isinstance(h.app.screen, ApplySummaryScreen), "the summary")
        await h.pilot.press("enter")
        await h.until(lambda: (repo / "README.md").read_text() == EDITED, "applied")

        # ctrl+w asks; r removes the worktree and its branch
        await h.until(lambda: isinstance(h.app.screen, MainScreen), "back")
        await h.pilot.press("ctrl+w")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the question")
        await h.pilot.press("r")
        await h.until(lambda: h.app.tabs == [first], "the tab to close")
        await h.until(lambda: not wt.path.exists(), "the worktree removed")


async def test_a_worktree_that_cannot_be_made_is_said_in_the_picker(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:  # not a git repository
        await h.pilot.press("ctrl+t")
        await h.until(lambda: type(h.app.screen).__name__ == "NewSessionScreen", "the picker")
        await h.pilot.press("down", "down", "enter")
        error = h.app.screen.query_one("#new-error")
        await h.until(lambda: "Could not create a worktree" in str(error.render()), "the error")
        assert len(h.app.tabs) == 1


async def test_every_answer_of_the_close_worktree_question_is_on_screen(tmp_path: Path) -> None:
    """ctrl+w on a worktree tab: the three answers all lie inside the dialog (they ran off its
    right edge: "Do not close" could not be seen)."""
    repo = make_repo(tmp_path, {"README.md": "hello\n"})
    async with workspace_app(tmp_path, cwd=repo) as h:
        tab = await worktree_tab(h)
        await h.pilot.press("ctrl+w")
        await h.until(lambda: isinstance(h.app.screen, QuestionScreen), "the question")
        dialog = h.app.screen.query_one(Vertical).content_region
        buttons = list(h.app.screen.query(Button))
        assert len(buttons) == 3
        for button in buttons:
            assert dialog.contains_region(button.region), str(button.label)
        await h.pilot.press("n")  # not closed
        await h.until(lambda: isinstance(h.app.screen, MainScreen), "back")
        assert tab in h.app.tabs


async def test_w_opens_any_agent_picked_in_a_new_git_worktree(tmp_path: Path) -> None:
    """ctrl+t, another agent highlighted, `w`: that agent in a new worktree (issue 39, 15c; only
    the current tab's agent was offered one)."""
    from acp_tui.presets import Preset
    from tests.ui.app_harness import demo_argv

    repo = make_repo(tmp_path, {"README.md": "hello\n"})
    other = Preset("other-agent", tuple(demo_argv()))
    async with workspace_app(tmp_path, other, cwd=repo) as h:
        tab = await open_tab(h, "down", "w")  # the second entry: the preset
        wt = tab.spec.worktree
        assert wt is not None and wt.repo == repo and wt.branch.startswith("acp-tui/other-agent")
        assert tab.spec.preset == other and Path(tab.session.cwd) == wt.cwd
