"""The session screen as the objects it owns (`ComposerActions`, `SettingsActions`) see it.

`MainScreen` is the one implementation. The parts type their screen as this class, so they never
import the screen that owns them (no import cycle, not even one for type checking). It declares
the screen's own members they use; everything else is the engine screen's (Textual's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from textual.screen import Screen

from acp_tui.ui.textual_internals.engine import EngineScreen

if TYPE_CHECKING:
    from acp_tui.client.session.facade import SessionFacade
    from acp_tui.ui.screen_ui import ScreenUi

T = TypeVar("T")


class SessionScreenPort(EngineScreen):
    """A session's screen: its session, its tab's `ScreenUi`, and the two ways its parts ask it
    for what they cannot do themselves."""

    session: SessionFacade
    ui: ScreenUi | None

    def show_question(self, screen: Screen[T], callback: Callable[[T | None], None]) -> None:
        raise NotImplementedError  # MainScreen's

    def pick_setting(self, category: str) -> None:
        raise NotImplementedError  # MainScreen's
