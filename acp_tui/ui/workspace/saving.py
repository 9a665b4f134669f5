"""The saved workspace (`client/saved_workspace`), for `acp-tui --continue`: written whenever a
tab opens, closes, or its session gets its id or title (debounced: one write for a burst, off
the event loop, through the store's atomic write); a failure is said once, never raised."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING

from textual.timer import Timer
from textual.worker import Worker

from acp_tui.client.session.history import HistoryCapabilities
from acp_tui.safe_text import safe_line
from acp_tui.ui.plain import notify

if TYPE_CHECKING:
    from acp_tui.client.saved_workspace import SessionRecord
    from acp_tui.ui.workspace.app_port import WorkspaceAppPort
    from acp_tui.ui.workspace.tab import SessionTab

SAVE_DELAY = 0.5
"""Seconds a change waits for the next before the workspace is written."""


def record_of(tab: SessionTab) -> SessionRecord:
    """What `--continue` needs to reopen the tab's session."""
    from acp_tui.client import (
        saved_workspace as store,  # (at the first save, after the first frame)
    )

    session = tab.session
    spec = tab.spec
    opened = session.session_id is not None
    caps = HistoryCapabilities.of(session.agent_capabilities) if opened else None
    session_id = session.session_id or tab.reopens  # (a restored tab still opening keeps it)
    return store.SessionRecord(
        cwd=spec.cwd,
        argv=spec.argv,
        preset=spec.preset.name if spec.preset is not None else None,
        worktree=store.WorktreeRecord.of(spec.worktree) if spec.worktree is not None else None,
        session_id=session_id,
        title=session.thread.title or None,
        can_open=caps.can_open if caps is not None else None,
    )


class WorkspaceSaving:
    """Saving the tabs (owned by `WorkspaceApp`: `saving`); `workspace_dir` None: nothing is
    saved."""

    def __init__(self, app: WorkspaceAppPort, workspace_dir: Path | None) -> None:
        self.app = app
        self.workspace_dir = workspace_dir
        """Where the tabs are saved for `--continue` (None: not saved)."""
        self.save_timer: Timer | None = None
        """The save due (None: none)."""
        self._save_failed = False
        self._saving_stopped = False

    def stop_saving(self) -> None:
        """No more saves: the app is closing (its sessions, closing, change state; a save then
        would be written after the app ended, over whatever was saved since)."""
        self._saving_stopped = True
        if self.save_timer is not None:
            self.save_timer.stop()
            self.save_timer = None

    def schedule_save(self) -> None:
        """Save soon (a burst of changes makes one write)."""
        if self.workspace_dir is None or not self.app.is_running or self._saving_stopped:
            return
        if self.save_timer is not None:
            self.save_timer.stop()
        self.save_timer = self.app.set_timer(SAVE_DELAY, self._save_soon)

    def _save_soon(self) -> None:
        self.save_timer = None
        # the method, not a coroutine made now: a worker that the quit cancels before it
        # started would leave that coroutine never awaited (a warning printed at exit)
        worker: Worker[None] = self.app.run_worker(self.save, group="save-workspace")
        del worker  # (typed: an async method matches two of Textual's work types)

    async def save(self) -> None:
        """Write the tabs' records now (each tab that has a session id; none: nothing)."""
        directory = self.workspace_dir
        if directory is None:
            return
        from acp_tui.client import saved_workspace as store

        records = [record_of(tab) for tab in self.app.tabs]
        if not any(r.session_id for r in records):
            return  # nothing worth keeping yet: an earlier saved workspace stays
        try:
            await asyncio.to_thread(store.save, directory, records)
        except store.StoreError as error:
            if not self._save_failed:
                self._save_failed = True
                notify(self.app, safe_line(str(error)), title="Workspace", severity="warning")
