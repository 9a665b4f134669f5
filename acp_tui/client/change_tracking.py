"""The change monitor, attribution and turn summaries of one session, behind three calls the
session makes: `start_soon` (when the session starts), `before_turn_end` (before the thread
hears a turn ended) and `stop` (when the session closes)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path

from acp_tui.client.change_attribution import ChangeAttribution
from acp_tui.client.turn_changes import TurnChanges
from acp_tui.host.change_log import ChangeLog, WriteRecord
from acp_tui.host.change_monitor import ChangeMonitor
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.own_files import OwnFiles
from acp_tui.host.reverts import Reverts
from acp_tui.tasks import Supervisor
from acp_tui.thread.thread import Thread

log = logging.getLogger(__name__)

SETTLE_TIMEOUT = 5.0


class ChangeTracking:
    """The change monitor, attribution and turn summaries of one session (see the module's
    text).
    """

    def __init__(
        self,
        thread: Thread,
        cwd: Path,
        changes: ChangeLog,
        *,
        watch: bool,
        reverts: Reverts,
        tasks: Supervisor | None = None,
        own_files: OwnFiles | None = None,
        on_observed: Callable[[WriteRecord], None] | None = None,
        watchers: DirectoryWatchers | None = None,
        name: Callable[[], str] = lambda: "the agent",
        on_notice: Callable[[str], None] | None = None,
    ) -> None:
        """`watchers`: the process's directory watchers (shared with the file index and the
        other sessions; default: the monitor's own); `name`: the session's, for the other
        sessions in the directory; `on_notice`: told when watching the directory is incomplete
        (the inotify limit: what the user should know)."""
        self._tasks = tasks if tasks is not None else Supervisor("change tracking")
        self.attribution = ChangeAttribution(thread, cwd, on_paths=self._touch)
        self.attribution.attach(changes)
        self.turns = TurnChanges(changes, self.attribution, thread, reverts)
        self.monitor: ChangeMonitor | None = (
            ChangeMonitor(
                cwd,
                changes,
                self.attribution.attribute,
                tasks=self._tasks,
                own_files=own_files,
                on_observed=on_observed,
                watchers=watchers,
                name=name,
                busy=lambda at: self.attribution.active_turn(at) is not None,
                on_notice=on_notice,
            )
            if watch
            else None
        )
        if self.monitor is not None:
            ignored = self.monitor.ignored
            self.turns.ignored = lambda path: path in ignored
        self._start: asyncio.Task[None] | None = None
        self.start_after: Callable[[], Awaitable[None]] | None = None
        """What the monitor's start waits for first (the UI: the frame that shows the session
        open drawn, before the git call and the baseline's thread compete with it); None: at
        once. A prompt waits for it too (`wait_ready`)."""

    def start_soon(self) -> None:
        """Arm the watcher and take the baseline in the background."""
        if self.monitor is not None and self._start is None:
            self._start = self._tasks.spawn("change monitor start", self._run_start(self.monitor))

    async def _run_start(self, monitor: ChangeMonitor) -> None:
        try:
            if self.start_after is not None:
                await self.start_after()
            await monitor.start()
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # stopped
            log.error("the change monitor's start was interrupted; agent-owned writes go unseen")
        except Exception:
            log.exception("the change monitor could not start; agent-owned writes go unseen")

    async def wait_ready(self) -> None:
        """Before a prompt: the baseline must be taken before the agent may change anything."""
        if self._start is not None:
            await asyncio.shield(self._start)

    async def before_turn_end(self) -> None:
        """Look at every path the turn's tool calls named now, so the summary is complete."""
        if self.monitor is None or not self.monitor.running:
            return
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(
                self.monitor.settle(self.attribution.turn_paths()), SETTLE_TIMEOUT
            )

    async def stop(self) -> None:
        """Cancel a start still under way and stop the monitor (its thread ends at its next
        file).
        """
        start, self._start = self._start, None
        if start is not None and not start.done():
            start.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await start
        if self.monitor is not None:
            await self.monitor.stop()

    def _touch(self, paths: Iterable[Path]) -> None:
        if self.monitor is not None:
            self.monitor.touch(paths)
