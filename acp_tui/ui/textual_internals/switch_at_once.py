"""A switch to a screen that is already built shows it at the next frame, not 50 ms later.

A fix Textual could take upstream: `switch_mode` need not hold the frames for a built screen.

`App.switch_mode` begins with `App.delay_update()`: no frame for 50 ms, to hide a screen being
composed and mounted. A tab switched back to has its screen mounted and arranged: nothing to
hide, and those 50 ms were most of a switch (a 200-turn tab: 61 ms, of which the frame itself
took about 10). `SwitchAtOnce.switch_to_built` switches without the delay; a mode whose screen
is not built yet still waits, as Textual does.

The app's first screen is not built when it is switched to, but nothing needs hiding either:
Textual runs the app's `on_mount` inside a batch of its own (no frame until it returns), and
`on_mount` awaits the screen's mount. The 50 ms only held the first frame back, when the screen
was mounted sooner (`switch_in_mount`). A step of `EngineApp` (`engine.py`).
"""

from __future__ import annotations

from typing import Any

from textual.app import App
from textual.widget import AwaitMount


class SwitchAtOnce:
    """`switch_to_built`: `switch_mode` without the 50 ms of no frames."""

    def __init__(self, app: App[Any]) -> None:
        self._app = app
        self._switching_to_built = False

    def delays(self) -> bool:
        """Whether `App.delay_update` holds the frames now (not while switching to a built
        screen)."""
        return not self._switching_to_built

    def switch_to_built(self, mode: str) -> AwaitMount:
        """`switch_mode` to `mode`, whose screens are mounted: painted at the next frame."""
        return self._switch_without_delay(mode)

    def switch_in_mount(self, mode: str) -> AwaitMount:
        """`switch_mode` to `mode` from the app's `on_mount`, which awaits the screen's mount
        before it returns: painted at the next frame after it."""
        return self._switch_without_delay(mode)

    def _switch_without_delay(self, mode: str) -> AwaitMount:
        self._switching_to_built = True
        try:
            return self._app.switch_mode(mode)
        finally:
            self._switching_to_built = False
