"""The sidebar shows on a screen wide enough for it (`first_frame.shows_sidebar`, as the
skeleton drawn before Textual does), unless the user chose with ctrl+b.

A terminal narrower than 59 columns kept the sidebar's 38 and left the conversation a strip of
a few columns (the skeleton had already dropped the sidebar there, so the first frames did not
even agree). The sidebar now hides there and comes back when the terminal is widened. Once the
user shows or hides it with ctrl+b, that choice holds whatever the width, for that tab.

The bound is the conversation's width, not the sidebar's: at 80 columns the sidebar left the
conversation 42, where a permission card's buttons ran off the screen. Below 118 columns
(`first_frame.CONVERSATION_MIN` beside the sidebar's 38) it hides.
"""

from __future__ import annotations

from collections.abc import Callable

from acp_tui.ui.first_frame import shows_sidebar
from acp_tui.ui.widgets.sidebar import Sidebar


class SidebarFit:
    """A main screen's sidebar follows the width until the user chooses (owned by the screen:
    its resize and ctrl+b delegate here)."""

    def __init__(self, sidebar: Callable[[], Sidebar]) -> None:
        self._sidebar = sidebar
        self.sidebar_chosen: bool | None = None
        """ctrl+b's choice: shown (True) or hidden (False); None: by the width."""

    def fit(self, columns: int) -> None:
        """Show or hide the sidebar for a screen `columns` wide (the user's choice first)."""
        sidebar = self._sidebar()
        shown = self.sidebar_chosen if self.sidebar_chosen is not None else shows_sidebar(columns)
        if sidebar.display != shown:
            sidebar.display = shown

    def toggle(self) -> None:
        """Show or hide the sidebar, whatever the width from now on (ctrl+b)."""
        sidebar = self._sidebar()
        self.sidebar_chosen = not sidebar.display
        sidebar.display = self.sidebar_chosen
