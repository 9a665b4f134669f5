"""A screen shown again keeps its styles when nothing they come from changed.

Textual restyles every node of a screen each time it is resumed (`ScreenResume.refresh_styles`,
set by `App.switch_mode` and `pop_screen`): on a tab holding a 200-turn conversation that is
thousands of nodes, over a second on a loaded machine, for every switch back to the tab. The
styles of a suspended screen's nodes still follow their own class changes meanwhile (Textual
restyles a node whose classes change wherever it is); what only a resume catches is a change
of the app's CSS variables (the theme). `KeepStylesOnResume` remembers them when the screen is
suspended and lets the resume restyle only if they changed (`App.theme_variables`: the ones
Textual computed last, not computed again here). A step of `EngineScreen` (`engine.py`).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.screen import Screen


class KeepStylesOnResume:
    """Restyle on resume only when the app's CSS variables changed while suspended."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._styled_with: dict[str, str] | None = None

    def suspended(self) -> None:
        """The screen is suspended: remember the variables it is styled with."""
        self._styled_with = self._screen.app.theme_variables

    def resumed(self, event: events.ScreenResume) -> None:
        """The screen resumes (before Textual's handler): no restyle if nothing changed."""
        if self._styled_with is not None and self._styled_with == self._screen.app.theme_variables:
            event.refresh_styles = False
        self._styled_with = None
