"""LiveEntry: one conversation entry on screen, drawn as the frozen history draws it.

A live entry is an `EntryLines` with one item whose render function is the same one the
frozen history uses for that entry, reading the entry and its `EntryViewState`. It redraws
when the entry changes; what the user does to it (opening a section with a click on its
title) goes into the view state, so freezing it later shows it as the user left it. It takes
focus (Tab) and is then drawn with the cursor style.
"""

from __future__ import annotations

from acp_tui.thread.entries import Entry
from acp_tui.ui.widgets.entry_lines import EntryItem, EntryLines
from acp_tui.ui.widgets.entry_state import EntryViewState


class LiveEntry(EntryLines, can_focus=True):
    """One entry, live; ``state`` is its view state (kept by the conversation)."""

    def __init__(
        self,
        item: EntryItem,
        state: EntryViewState | None = None,
        *,
        classes: str | None = None,
    ) -> None:
        super().__init__([item], classes=classes)
        self.cursor = 0
        self.state = state if state is not None else EntryViewState()

    @property
    def item(self) -> EntryItem:
        """What this view draws (handed to the frozen history when the entry freezes)."""
        return self.items[0]

    @property
    def entry(self) -> Entry | None:
        """The thread entry this widget draws, if any."""
        return self.item.entry

    def redraw(self) -> None:
        """The entry or its view state changed: draw it again."""
        self.item_changed(self.item)

    def section_defaults(self) -> dict[str, bool]:
        """How sections show unless the user changes them (closed, unless said here)."""
        return {}

    def action_toggle_section(self, name: str) -> None:
        """Open or close section ``name`` (a click on its title); remembered in the state."""
        default = self.section_defaults().get(name, False)
        sections = self.state.sections
        shown = not sections.get(name, default)
        if shown == default:
            sections.pop(name, None)
        else:
            sections[name] = shown
        self.redraw()
