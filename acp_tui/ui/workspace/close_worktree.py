"""ctrl+w on a worktree tab: close it keeping the worktree (its branch stays, to apply or merge
later), or close it and remove the worktree and its branch (`remove_worktree`), or not close."""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.host.asker import Choice, Question
from acp_tui.safe_text import safe_line
from acp_tui.ui.plain import notify

if TYPE_CHECKING:
    from acp_tui.ui.workspace.app_port import WorkspaceAppPort
    from acp_tui.ui.workspace.tab import SessionTab

KEEP = "keep"
REMOVE = "remove"


class WorktreeClosing:
    """Closing a worktree tab (owned by `WorkspaceApp`: `worktree_closing`)."""

    def __init__(self, app: WorkspaceAppPort) -> None:
        self.app = app

    def ask(self, tab: SessionTab) -> None:
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
                work = self.close(tab, answer == REMOVE)
                self.app.run_worker(work, group="close-tab")

        from acp_tui.ui.screens.question import QuestionScreen  # (asked: not on the first screen)

        self.app.push_screen(QuestionScreen(question), answered)

    async def close(self, tab: SessionTab, remove: bool) -> None:
        """Close the tab; with `remove`, its agent stops first, then its worktree and branch go."""
        from acp_tui.worktrees.worktrees import (  # (git: not at start)
            WorktreeError,
            remove_worktree,
        )

        wt = tab.spec.worktree
        if remove and wt is not None:
            await tab.session.close()  # nothing runs in the worktree while it is removed
            try:
                await remove_worktree(wt)
            except WorktreeError as error:
                notify(self.app, f"The worktree stays: {safe_line(str(error))}", severity="error")
            else:
                notify(self.app, f"Removed the worktree and branch {safe_line(wt.branch)}.")
        await self.app.close_tab(tab)
