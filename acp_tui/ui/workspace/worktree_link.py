"""The one call from the UI into git worktrees (`acp_tui.workspace.worktrees`, written apart):
looked up when used, so this build runs without it and says so clearly."""

from __future__ import annotations

import importlib
import time
from pathlib import Path


class WorktreeError(Exception):
    """A worktree could not be made (the message says why, for the user)."""


def worktree_name(agent: str) -> str:
    """A branch-friendly name for a new session's worktree: the agent and the time."""
    safe = "".join(c if c.isalnum() or c in "-_" else "-" for c in agent).strip("-") or "agent"
    return f"{safe}-{time.strftime('%Y%m%d-%H%M%S')}"


def create_session_worktree(repo: Path, name: str) -> tuple[Path, str]:
    """`git worktree add` of `repo` on a new branch `name`; its (path, branch). Blocking: call
    it from a thread. Raises `WorktreeError` with the reason."""
    try:
        module = importlib.import_module("acp_tui.workspace.worktrees")
    except ImportError:
        raise WorktreeError("git worktrees are not available in this build of acp-tui") from None
    create = module.create_worktree
    try:
        worktree = create(repo, name)
    except Exception as error:
        raise WorktreeError(str(error) or type(error).__name__) from error
    return Path(worktree.path), str(worktree.branch)
