"""What the tabs need of git worktrees beyond `acp_tui.worktrees.worktrees`: a new worktree's
name, and the per-path locks of the main checkout a worktree is applied into."""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.host.reverts import PathLocks

if TYPE_CHECKING:
    from acp_tui.ui.workspace.tab import SessionTab
    from acp_tui.worktrees.worktrees import Worktree


def worktree_name(agent: str) -> str:
    """A branch-friendly name for a new session's worktree: the agent and the time."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in agent).strip("-") or "agent"
    return f"{safe}-{time.strftime('%Y%m%d-%H%M%S')}"


def checkout_locks(wt: Worktree, tabs: Iterable[SessionTab]) -> PathLocks:
    """The locks the writes into `wt`'s main checkout go under: those of an open session working
    in place in that checkout (its reverts and the apply then never interleave on a file), else
    new ones."""
    repo = Path(wt.repo)
    for tab in tabs:
        cwd = Path(tab.session.cwd)
        if tab.spec.worktree is None and (cwd == repo or cwd.is_relative_to(repo)):
            return tab.session.fs.reverts.locks
    return PathLocks()
