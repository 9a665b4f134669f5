"""What a new session is started from: the agent's command, its directory, its preset."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from acp_tui.client.session.agent_session import AgentSession
    from acp_tui.presets import Preset
    from acp_tui.ui.screen_ui import ScreenUi
    from acp_tui.worktrees.worktrees import Worktree


@dataclass(frozen=True)
class SessionSpec:
    """One session to open: the agent's argv (never a shell string), the directory it works
    in, the preset it came from (its env, MCP servers and defaults), the git worktree it works in
    if any (`cwd` is then `worktree.cwd`)."""

    argv: tuple[str, ...]
    cwd: Path
    preset: Preset | None = None
    worktree: Worktree | None = None
    env: dict[str, str] = field(default_factory=dict)

    @property
    def branch(self) -> str | None:
        """The worktree's branch (None: the session works in place)."""
        return self.worktree.branch if self.worktree is not None else None

    @property
    def name(self) -> str:
        """A short name for the agent before it tells its own: the preset's, else the command's."""
        if self.preset is not None:
            return self.preset.name
        from acp_tui.client.command_name import command_name

        return command_name(list(self.argv)) if self.argv else "agent"


SpawnSession = Callable[["ScreenUi", SessionSpec], "AgentSession"]
"""Builds the session of a new tab (its own agent process) around the tab's `ScreenUi`; the
guard, the settings and the per-directory rules are shared by whoever builds it."""
