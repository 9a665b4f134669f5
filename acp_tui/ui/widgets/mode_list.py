"""The session's modes in the sidebar, the current one marked; selecting one asks to switch."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.message import Message
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.protocol.models import SessionMode

NO_MODES = "\0none"
"""The id of the "none" line shown while the agent has no modes (no mode id has a NUL)."""


@dataclass(frozen=True)
class ModeInfo:
    """A mode as the list shows it."""

    id: str
    name: str
    description: str | None


class ModeList(OptionList):
    """The agent's modes in the sidebar, the current one marked; choosing one asks the agent to
    switch."""

    DEFAULT_CSS = """
    ModeList { height: auto; max-height: 14; border: none; padding: 0; }
    """

    @dataclass
    class ModeChosen(Message):
        """The user chose a mode to switch to."""

        mode_id: str

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.modes: list[ModeInfo] = []
        self.current: str | None = None
        self._last_tried: str | None = None  # where shift+tab cycles on from
        self._rebuild()

    def set_modes(self, modes: list[ModeInfo], current: str | None) -> None:
        """Show `modes`, `current` marked (the list is built again only if either changed: the
        session's state, modes and config options each ask while it opens)."""
        if modes == self.modes and current == self.current:
            return
        self.modes = modes
        self._set_current(current)

    def set_current(self, current: str | None) -> None:
        """Mark `current` as the mode in force (cycling then goes on from it)."""
        if current != self.current:
            self._set_current(current)

    def _set_current(self, current: str | None) -> None:
        if current != self.current:
            self._last_tried = None  # a switch happened: cycle on from the new current mode
        self.current = current
        self._rebuild()

    def _rebuild(self) -> None:
        highlighted = self.highlighted
        self.clear_options()
        if not self.modes:  # as the Settings and Commands sections say it, not an empty line
            self.add_option(Option(Text("none", style="dim"), id=NO_MODES, disabled=True))
        for mode in self.modes:
            self.add_option(Option(self._label(mode), id=mode.id))
        if self.modes:
            index = next(
                (i for i, m in enumerate(self.modes) if m.id == self.current), highlighted or 0
            )
            self.highlighted = min(index, len(self.modes) - 1)

    def _label(self, mode: ModeInfo) -> Text:
        current = mode.id == self.current
        text = Text("● " if current else "○ ", style="bold green" if current else "dim")
        text.append(mode.name, style="bold" if current else "")
        if mode.description:
            text.append("\n  " + mode.description, style="dim")
        return text

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Ask for the chosen mode, unless it is the current one or the "no modes" line."""
        event.stop()
        if event.option.id not in (None, NO_MODES, self.current):
            self.post_message(self.ModeChosen(event.option.id))

    def highlight_mode(self, mode_id: str) -> None:
        """Show `mode_id` selected (shift+tab's choice, before the agent is asked)."""
        index = next((i for i, m in enumerate(self.modes) if m.id == mode_id), None)
        if index is not None:
            self.highlighted = index

    def next_mode_id(self) -> str | None:
        """The mode shift+tab asks for next, remembered as tried (None: nothing to switch to).

        It follows the mode tried last, not the current one: after the agent refused a mode,
        the next press moves on instead of asking for the same mode again. The current mode
        is skipped; with a single mode there is nothing to cycle to.
        """
        ids = [m.id for m in self.modes]
        if len(ids) < 2:
            return None
        start = self._last_tried if self._last_tried in ids else self.current
        index = ids.index(start) if start in ids else -1
        for step in range(1, len(ids) + 1):
            mode_id = ids[(index + step) % len(ids)]
            if mode_id != self.current:
                self._last_tried = mode_id
                return mode_id
        return None


def mode_infos(modes: Sequence[SessionMode]) -> list[ModeInfo]:
    """From the session's mode models to what the list shows."""
    return [ModeInfo(mode.id, mode.name or mode.id, mode.description) for mode in modes]
