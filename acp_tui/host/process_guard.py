"""No orphans: everything acp-tui starts is marked, recorded, and killed as a tree at the end.

One `ProcessGuard` per acp-tui process. Every process acp-tui starts (the agent, terminals)
gets `child_env()`: an environment variable naming this acp-tui (the owner marker), inherited
by everything below it. `install()` (the app calls it once at startup) makes acp-tui a child
subreaper, so orphans of its trees re-parent to it instead of init, and starts the `Watchdog`
that kills what is left if acp-tui dies without cleaning up (`kill -9`). `record()` forwards
processes seen in a tree to the watchdog (for those that clear their environment).
`hold_pty()` hands the watchdog a duplicate of a terminal's PTY master before its command
starts, so that acp-tui's death (even right after the spawn, before acp-tui has looked at the
command) does not hang the command up (and scatter its tree) before the watchdog has stopped it.
`kill_everything()` is the last word at quit and on SIGTERM/SIGHUP.
"""

from __future__ import annotations

import itertools
import logging
import os
from collections.abc import Callable, Mapping

from acp_tui.protocol.process_tree import Proc, descendants, kill_tree, set_child_subreaper
from acp_tui.protocol.watchdog import Watchdog

log = logging.getLogger(__name__)

OWNER_MARKER_PREFIX = "ACP_TUI_OWNER_"


class ProcessGuard:
    """Marks every process acp-tui starts and makes sure none outlives it (quit, signals, and a
    watchdog for kill -9).
    """

    def __init__(self, token: str | None = None) -> None:
        self.token = token or os.urandom(8).hex()  # (not uuid: it imports platform)
        self.marker = OWNER_MARKER_PREFIX + self.token
        """The environment variable every process acp-tui starts carries (value "1")."""
        self.subreaper = False
        self.watchdog: Watchdog | None = None
        self._recorded: dict[int, int] = {}
        self._ptys = itertools.count(1)

    def child_env(self) -> dict[str, str]:
        """The environment variable each child carries, so the watchdog can find it."""
        return {self.marker: "1"}

    def install(self) -> None:
        """Become a child subreaper and start the watchdog (once, at app start)."""
        if self.watchdog is not None:
            return
        self.subreaper = set_child_subreaper()
        if not self.subreaper:
            log.warning("cannot become a child subreaper; orphans go to init")
        try:
            self.watchdog = Watchdog.spawn(self.marker)
        except OSError as error:
            log.warning("cannot start the process watchdog: %s", error)

    def record(self, pid: int, start: int) -> None:
        """Tell the watchdog about a process of ours (sent with the next `flush()`)."""
        if self.watchdog is not None and self._recorded.get(pid) != start:
            self._recorded[pid] = start
            self.watchdog.record(pid, start)

    def flush(self) -> None:
        """Send the watchdog what was recorded (what it cannot take now goes next time)."""
        if self.watchdog is not None:
            self.watchdog.flush()

    def hold_terminal(self, master_fd: int, pid: int, start: int) -> None:
        """Let the watchdog keep the PTY of the command (pid, start) open while it runs."""
        if self.watchdog is not None:
            self.watchdog.hold(master_fd, pid, start)

    def hold_pty(self, master_fd: int) -> Callable[[], None]:
        """Before a terminal's command starts: let the watchdog keep its PTY open (under a key
        of its own, pid 0: no process). Returns what to call once the command has ended."""
        if self.watchdog is None:
            return lambda: None
        key = next(self._ptys)
        self.watchdog.hold(master_fd, 0, key)
        return lambda: self.drop_terminal(0, key)

    def drop_terminal(self, pid: int, start: int) -> None:
        """The command (pid, start) has ended: the watchdog closes its copy of the PTY."""
        if self.watchdog is not None:
            self.watchdog.drop(pid, start)

    def record_below(self, procs: Mapping[int, Proc]) -> None:
        """Record every process below acp-tui now (orphans re-parented to it included)."""
        if self.watchdog is None:
            return
        for pid in [pid for pid in self._recorded if pid not in procs]:
            del self._recorded[pid]
        me = os.getpid()
        for pid in descendants([me], procs):
            if pid not in (me, self.watchdog.pid):
                self.record(pid, procs[pid].start)
        self.flush()

    def kill_everything(self) -> dict[int, Proc]:
        """SIGKILL every process below acp-tui or carrying its marker (not the watchdog).

        Reaps nothing: asyncio's child watcher may still be waiting for some of them.
        """
        exclude = {self.watchdog.pid} if self.watchdog is not None else set()
        killed = kill_tree(marker=self.marker, below=[os.getpid()], exclude=exclude, watched=None)
        if killed:
            log.info("killed %d leftover processes", len(killed))
        return killed

    def close(self) -> None:
        """Kill what is left and let the watchdog go (it sweeps once more and exits)."""
        self.kill_everything()
        watchdog, self.watchdog = self.watchdog, None
        if watchdog is not None:
            watchdog.close(wait=2.0)
