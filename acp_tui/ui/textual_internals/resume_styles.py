"""A screen shown keeps its styles when nothing they come from changed since they were applied.

Textual restyles every node of a screen each time it is resumed (`ScreenResume.refresh_styles`,
set by `App.switch_mode` and `pop_screen`): on a tab holding a 200-turn conversation that is
thousands of nodes, over a second on a loaded machine, for every switch back to the tab. The
styles of a suspended screen's nodes still follow their own class changes meanwhile (Textual
restyles a node whose classes change wherever it is); what only a resume catches is a change
of what every node's styles come from: the app's CSS variables (the theme), the stylesheet's
unscoped sources (an app's or a screen's `CSS`, a `DEFAULT_CSS` with `SCOPED_CSS = False`), the
app's classes and pseudo-classes. `KeepStylesOnResume` remembers them (`StylesStamp`) when the
screen is suspended and lets the resume restyle only if they changed (`App.theme_variables`:
the ones Textual computed last, not computed again here).

The first resume, the screen's first showing, restyles its nodes just after they were styled
as they were mounted: on the main screen at start-up, twice (`switch_mode` resumes a new mode's
screen twice): 80 of the ~145 node stylings from `App.run` to "ready". The stamp is taken when the
screen is built too, before any of its nodes is styled: if nothing changed by its first resume,
every node was styled from what is still there. A scoped `DEFAULT_CSS` added meanwhile (a
widget class mounted for the first time) does not count: its rules match only nodes of its
class or inside one, and such a node was styled after the class's CSS was added (Textual adds
it as the first node of the class is registered, before styling it).

Before that resume, `App.switch_mode` refreshed the app's CSS twice for a new mode's screen
(`App.refresh_css`: the variables computed again, every source parsed again, every node of the
app styled again): a screen built holds `_css_update_count` -1, "styled before any change", and
the first refresh marks the screen shown until then, not the new one. A screen built in an app
is styled from the CSS as it is then: it takes the app's count, and a change of the theme after
it was built (which counts one more) still refreshes as it shows. A step of `EngineScreen`
(`engine.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual import events
from textual.app import App
from textual.screen import Screen


@dataclass(frozen=True)
class StylesStamp:
    """What the styles of every node come from, beside each node's own classes and state."""

    variables: dict[str, str]
    unscoped: tuple[tuple[object, str], ...]
    """The stylesheet's sources that may match any node: where from, and the CSS."""
    app_classes: frozenset[str]
    app_state: frozenset[str]
    """The app's pseudo-classes (its focus, dark or light, ANSI colors, ...)."""

    @classmethod
    def of(cls, app: App[Any]) -> StylesStamp:
        sources = app.stylesheet.source.items()
        unscoped = tuple(
            (where, css.content) for where, css in sources if not (css.is_defaults and css.scope)
        )
        return cls(
            dict(app.theme_variables),
            unscoped,
            frozenset(app.classes),
            frozenset(app.get_pseudo_classes()),
        )


class KeepStylesOnResume:
    """Restyle on resume only when what styles come from changed since they were applied."""

    def __init__(self, screen: Screen[Any]) -> None:
        self._screen = screen
        self._styled_with: StylesStamp | None = None

    def built(self, app: App[Any] | None) -> None:
        """The screen is built in `app` (None: outside any app): remember what its nodes will
        be styled with, and that they are styled from the CSS as it is now (see below)."""
        if app is None:
            return
        self._styled_with = StylesStamp.of(app)
        self._screen._css_update_count = app._css_update_count

    def suspended(self) -> None:
        """The screen is suspended: remember what it is styled with."""
        self._styled_with = StylesStamp.of(self._screen.app)

    def resumed(self, event: events.ScreenResume) -> None:
        """The screen resumes (before Textual's handler): no restyle if nothing changed. Either
        way its nodes are then styled from what is there now (`switch_mode` resumes a new
        mode's screen twice: the second finds nothing changed)."""
        now = StylesStamp.of(self._screen.app)
        if self._styled_with == now:
            event.refresh_styles = False
        self._styled_with = now
