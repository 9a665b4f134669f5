"""The workspace app as the objects it owns (the overview's actions, worktree closing, rewind's
branches, saving) see it.

`WorkspaceApp` is the one implementation. The parts type their app as this class, so they never
import the app that owns them (no import cycle, not even one for type checking). It declares the
app's own members they use; everything else is the engine app's (Textual's).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_tui.ui.textual_internals.engine import EngineApp

if TYPE_CHECKING:
    from acp_tui.client.session.history import OpenRequest
    from acp_tui.ui.screens.session_picker import PickedSession
    from acp_tui.ui.workspace.spec import SessionSpec, SpawnSession
    from acp_tui.ui.workspace.tab import SessionTab


class WorkspaceAppPort(EngineApp[int]):
    """The tabs in order, the one shown, how a tab is made, and what the parts ask of them."""

    tabs: list[SessionTab]
    current_tab: SessionTab
    spawn: SpawnSession | None

    def tab_of(self, session: object) -> SessionTab | None:
        raise NotImplementedError  # WorkspaceApp's

    async def show_tab(self, tab: SessionTab) -> None:
        raise NotImplementedError  # WorkspaceApp's

    async def open_tab(
        self, spec: SessionSpec, *, show: bool = True, request: OpenRequest | None = None
    ) -> SessionTab | None:
        raise NotImplementedError  # WorkspaceApp's

    async def close_tab(self, tab: SessionTab) -> None:
        raise NotImplementedError  # WorkspaceApp's

    async def open_picked(self, picked: PickedSession, tab: SessionTab | None = None) -> None:
        raise NotImplementedError  # AcpApp's

    def show_current_thread(self, tab: SessionTab | None = None) -> None:
        raise NotImplementedError  # AcpApp's
