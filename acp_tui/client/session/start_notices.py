"""What the user is told once, when a session first connects (not at every restart): the
sandbox's notice (off for want of Landlock), and a `--log` file the agent can read.

The `--log` file holds every frame: what the user typed, what the agent read, any secret that
passed over the wire. acp-tui refuses it to the agent's `fs/*` requests (`host/own_files.py`),
but the agent's own process and its terminals read the disk directly: a log inside the project
is theirs to read, and under a sandbox that lets them write its directory, to change (Landlock
cannot exempt one file in a writable directory). It is the user's choice, so it is said, not
refused.
"""

from __future__ import annotations

from pathlib import Path

from acp_tui.client.events import Notice
from acp_tui.host.local_files import real_path
from acp_tui.sandbox.policy import SandboxPolicy
from acp_tui.signal import Signal


def exposed_log(log_path: Path, cwd: Path, sandbox: SandboxPolicy | None) -> str | None:
    """Why the agent's process can reach the `--log` file directly, as a warning for the user
    (with what to do), or None when it is outside the project and every writable directory.

    Args:
        log_path: the `--log` file (a later tab's file beside it).
        cwd: the session directory (the project).
        sandbox: the sandbox the agent runs in (its writable directories), if any.
    """
    # (its directory resolved, not a link planted at the path: the log refuses to follow one)
    log = real_path(log_path.parent) / log_path.name
    writable = sandbox.writable if sandbox is not None and sandbox.active else ()
    if log.is_relative_to(real_path(cwd)):
        where = "is inside the project: the agent and the commands it runs can read it"
    elif any(log.is_relative_to(directory) for directory in writable):
        where = (
            "is in a directory the sandbox lets the agent write: the agent can read and change it"
        )
    else:
        return None
    return (
        f"The --log file {log} {where}. It holds all the ACP traffic, what you type and any "
        "secret sent over the wire included. A path outside the project keeps it yours "
        "(e.g. --log ~/acp-traffic.jsonl)."
    )


class StartNotices:
    """The notices told at a session's first connect, once."""

    def __init__(
        self,
        notices: Signal[Notice],
        *,
        cwd: Path,
        sandbox: SandboxPolicy | None,
        log_path: Path | None,
    ) -> None:
        self._notices = notices
        self._cwd = cwd
        self._sandbox = sandbox
        self._log_path = log_path
        self._told = False

    def tell(self) -> None:
        """Tell them, the first time only (a restart connects again)."""
        if self._told:
            return
        self._told = True
        if self._sandbox is not None and self._sandbox.notice:
            self._notices.emit(Notice(self._sandbox.notice, "warning"))
        if self._log_path is not None:
            exposed = exposed_log(self._log_path, self._cwd, self._sandbox)
            if exposed is not None:
                self._notices.emit(Notice(exposed, "warning"))
