"""ctrl+w on a worktree tab: close it keeping the worktree (its branch stays, to apply or merge
later), or close it and remove the worktree and its branch (`remove_worktree`), or not close."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.app import App

from acp_tui.host.asker import Choice, Question
from acp_tui.safe_text import safe_line
from acp_tui.ui.plain import notify
from acp_tui.ui.screens.question import QuestionScreen

if TYPE_CHECKING:
    from acp_tui.ui.workspace.tab import SessionTab

KEEP = "keep"
REMOVE = "remove"


class WorktreeClosing(App[int]):
    """Closing a worktree tab (a base of `WorkspaceApp`)."""

    async def close_tab(self, tab: SessionTab) -> None:
        raise NotImplementedError  # WorkspaceApp's

    def ask_close_worktree(self, tab: SessionTab) -> None:
        """Ask what becomes of the tab's worktree, then close the tab (or not)."""
        wt = tab.spec.worktree
        assert wt is not None
        running = " A turn is running: it is cancelled and the agent stops." if (
            tab.session.thread.turn_running
        ) else ""  # fmt: skip
        question = Question(
            "close-worktree",
            f"Close the session of {tab.agent} in worktree {wt.branch}?",
            f"The worktree is {wt.path}. k closes the session and keeps the worktree and its"
            f" branch; r closes it and removes both (uncommitted changes are lost).{running}",
            (  # short labels: the three buttons fit in the dialog side by side
                Choice(KEEP, "Keep the worktree", "k"),
                Choice(REMOVE, "Remove worktree and branch", "r"),
                Choice("cancel", "Do not close", "n"),
            ),
        )

        def answered(answer: str | None) -> None:
            if answer in (KEEP, REMOVE):
                self.run_worker(self.close_worktree_tab(tab, answer == REMOVE), group="close-tab")

        self.push_screen(QuestionScreen(question), answered)

    async def close_worktree_tab(self, tab: SessionTab, remove: bool) -> None:
        """Close the tab; with `remove`, its agent stops first, then its worktree and branch go."""
        from acp_tui.workspace.worktrees import (  # (git: not at start)
            WorktreeError,
            remove_worktree,
        )

        wt = tab.spec.worktree
        if remove and wt is not None:
            await tab.session.close()  # nothing runs in the worktree while it is removed
            try:
                await remove_worktree(wt)
            except WorktreeError as error:
                notify(self, f"The worktree stays: {safe_line(str(error))}", severity="error")
            else:
                notify(self, f"Removed the worktree and branch {safe_line(wt.branch)}.")
        await self.close_tab(tab)
