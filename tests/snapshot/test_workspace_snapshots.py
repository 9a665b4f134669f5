"""How the overview and compare screens look, with a hostile agent's name, title and last line
(escape sequences and Rich markup drawn as inert text)."""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.screen import Screen

from acp_tui.client.session.overview import named_changes
from acp_tui.ui.screens.compare_screen import CompareScreen
from acp_tui.ui.screens.overview_screen import OverviewScreen
from tests.agents.hostile import hostile
from tests.ui.workspace_sessions import Workspace
from tests.unit.thread_support import Clock


class ScreenApp(App[None]):
    """An app that shows one screen over an empty default screen."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__()
        self.shown = screen

    def on_mount(self) -> None:
        self.push_screen(self.shown)


def test_overview(snap_compare) -> None:
    workspace = Workspace(Clock())
    assert snap_compare(
        ScreenApp(OverviewScreen(workspace.rows, current=1)), terminal_size=(150, 16)
    )


def test_compare_side_by_side(snap_compare) -> None:
    claude, _, codex = Workspace(Clock()).sessions
    screen = CompareScreen(named_changes(claude, hostile("agent")), named_changes(codex))
    assert snap_compare(ScreenApp(screen), terminal_size=(170, 24))
