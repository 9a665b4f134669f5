"""The workspace overview (ctrl+o) and what it leads to: one `SessionWatch` per tab, the rows of
`OverviewScreen`, and from the selected row: Enter shows its tab, `a` applies its worktree into
the main checkout, `c` compares its changes with the current tab's (`CompareScreen`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any

from acp_tui.client.session.overview import NamedChanges, SessionRow, SessionWatch, named_changes
from acp_tui.client.session.overview import Worktree as RowWorktree
from acp_tui.safe_text import safe_line
from acp_tui.thread.diff import FileDiff
from acp_tui.ui.plain import notify
from acp_tui.ui.workspace.worktree_link import checkout_locks

if TYPE_CHECKING:
    from acp_tui.ui.workspace.app_port import WorkspaceAppPort
    from acp_tui.ui.workspace.tab import SessionTab

RunWork = Callable[[Coroutine[Any, Any, None]], object]


class TabWatch:
    """One tab for the overview: its `SessionWatch` and, for a worktree tab, the worktree's diff
    against its base (git, awaited in a worker, never on the way to drawing a row), cached and
    computed again once the session's change log has moved."""

    def __init__(self, tab: SessionTab, run: RunWork) -> None:
        self.tab = tab
        self.run = run
        wt = tab.spec.worktree
        where = RowWorktree(wt.path, wt.branch) if wt is not None else None
        self.watch = SessionWatch(tab.session, worktree=where)
        self.diffs: list[FileDiff] = []
        self.seen: int | None = None
        """The change log's length the diffs were computed at (None: not yet)."""
        self.computing = False

    def close(self) -> None:
        self.watch.close()

    def row(self) -> SessionRow:
        tab = self.tab
        changes = self._worktree_changes() if tab.spec.worktree is not None else None
        return self.watch.row(unread=tab.unread, held_writes=tab.ui.pending, changes=changes)

    def _worktree_changes(self) -> list[FileDiff]:
        moved = len(self.tab.session.change_log.records)
        if moved != self.seen and not self.computing:
            self.computing = True
            self.run(self._compute(moved))
        return self.diffs

    async def _compute(self, moved: int) -> None:
        from acp_tui.worktrees.worktrees import WorktreeError  # (git: not at start)

        try:
            self.diffs = await self.worktree_diffs()
            self.seen = moved
        except WorktreeError:
            self.seen = moved  # the worktree is gone: the last diffs stay, tried again on a move
        finally:
            self.computing = False

    async def worktree_diffs(self) -> list[FileDiff]:
        """The worktree's text changes against its base, now (raises `WorktreeError`); each
        names its file by its absolute path in the worktree, as a session's own changes do (a
        relative path is flagged as suspicious wherever a diff is shown)."""
        from acp_tui.worktrees.worktree_diff import worktree_diff  # (git: not at start)

        wt = self.tab.spec.worktree
        assert wt is not None
        return [
            dataclasses.replace(change.diff, path=str(wt.path / change.path))
            for change in await worktree_diff(wt)
            if change.diff is not None
        ]

    async def named(self) -> NamedChanges:
        """This tab's side of a comparison: its worktree's diffs, else its own changes."""
        tab = self.tab
        wt = tab.spec.worktree
        if wt is None:
            return named_changes(tab.session, tab.agent)
        return NamedChanges(safe_line(f"{tab.agent} ({wt.branch})"), await self.worktree_diffs(),
                            wt.path)  # fmt: skip


class OverviewActions:
    """The overview's part of the workspace app (owned by `WorkspaceApp`: `overview`), with each
    open tab's watch."""

    def __init__(self, app: WorkspaceAppPort) -> None:
        self.app = app
        self.watches: dict[SessionTab, TabWatch] = {}
        """Each open tab's watch for the overview (made when the tab opens, closed with it)."""

    def show(self) -> None:
        """ctrl+o: the overview of every tab; Enter shows the selected one."""
        app = self.app

        def rows() -> list[SessionRow]:
            return [self.watch_of(tab).row() for tab in app.tabs]

        def opened(index: int | None) -> None:
            if index is not None and 0 <= index < len(app.tabs):
                app.run_worker(app.show_tab(app.tabs[index]), group="show-tab")

        from acp_tui.ui.workspace.workspace_overview import WorkspaceOverview  # (not at start)

        current = app.tabs.index(app.current_tab)
        app.push_screen(WorkspaceOverview(rows, current, self._act), opened)

    def _act(self, what: str, index: int) -> None:
        app = self.app
        if not 0 <= index < len(app.tabs):
            return
        tab = app.tabs[index]
        if what == "apply":
            self.apply_tab(tab)
        elif tab is app.current_tab:
            notify(app, "Choose another session to compare with this one.", severity="warning")
        else:
            app.run_worker(self.compare(app.current_tab, tab), group="compare", exclusive=True)

    def watch_of(self, tab: SessionTab) -> TabWatch:
        """The tab's watch (made when it opened; made here for a tab added otherwise)."""
        watch = self.watches.get(tab)
        if watch is None:
            run: RunWork = lambda work: self.app.run_worker(work, group="diff")  # noqa: E731
            watch = self.watches[tab] = TabWatch(tab, run)
        return watch

    def forget(self, tab: SessionTab) -> None:
        """The tab closed: its watch too."""
        watch = self.watches.pop(tab, None)
        if watch is not None:
            watch.close()

    def apply_tab(self, tab: SessionTab) -> None:
        """Apply a worktree tab's changes into its main checkout (with the user, file by file)."""
        app = self.app
        wt = tab.spec.worktree
        if wt is None:
            notify(app, "This session works in place: its changes are already on disk.")
            return
        locks = checkout_locks(wt, app.tabs)
        from acp_tui.ui.screens.apply_worktree import apply_worktree  # the review: not at start

        work = apply_worktree(app, wt, locks=locks)
        app.run_worker(work, group="apply-worktree", exclusive=True)

    async def compare(self, left: SessionTab, right: SessionTab) -> None:
        """The two tabs' changes side by side; the side chosen is applied (a worktree's) or said
        to be on disk already (a session that wrote in place). The sides go in the tabs' order
        (1 is the tab further left), whichever of the two is shown."""
        from acp_tui.worktrees.worktrees import WorktreeError

        app = self.app
        if app.tabs.index(left) > app.tabs.index(right):
            left, right = right, left

        try:
            sides = (await self.watch_of(left).named(), await self.watch_of(right).named())
        except WorktreeError as error:
            notify(app, f"Could not compare: {safe_line(str(error))}", severity="error")
            return

        def chosen(side: str | None) -> None:
            if side is not None:
                self.apply_tab(left if side == "left" else right)

        from acp_tui.ui.screens.compare_screen import CompareScreen  # not needed at start

        app.push_screen(CompareScreen(*sides), chosen)
