"""A modal list to pick one value: a config option's choices (grouped), a model, a mode.

Type to filter; Enter picks; Esc dismisses with None. Group names are shown as headings that
cannot be picked; the current value is marked. All text is shown as plain text (never markup).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.ui.widgets.settings_text import safe_text


@dataclass(frozen=True)
class Choice:
    """One value to pick: what is sent (`value`), what is shown, the group it is listed under."""

    value: str
    name: str
    description: str | None = None
    group: str | None = None


class ChoicePicker(ModalScreen[str | None]):
    """Pick one of `Choice`s, filtered by typing, grouped under headings; dismisses with the value
    or None."""

    DEFAULT_CSS = """
    ChoicePicker { align: center middle; }
    ChoicePicker > Vertical {
        width: 80; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    ChoicePicker #picker-title { text-style: bold; margin: 1 0 0 0; }
    ChoicePicker #picker-filter { margin: 1 0 0 0; }
    ChoicePicker OptionList { height: auto; max-height: 24; border: none; margin-bottom: 1; }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "cancel", id="picker.cancel")]

    def __init__(
        self, title: str, choices: list[Choice], current: str | None, *, filtered: bool = False
    ) -> None:
        super().__init__()
        self.picker_title = title
        self.choices = choices
        self.current = current
        self.filtered = filtered or len(choices) > 8
        """A filter field above the list (always with `filtered`, else past 8 choices)."""

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(safe_text(self.picker_title)), id="picker-title")
            if self.filtered:
                yield Input(placeholder="type to filter", id="picker-filter")
            yield OptionList(id="picker-options")

    def on_mount(self) -> None:
        """Fill the list unfiltered and focus the filter field when there is one, else the list."""
        self._fill("")
        self.query_one(OptionList).focus()
        for field in self.query(Input):
            field.focus()

    @on(Input.Changed, "#picker-filter")
    def _filter(self, event: Input.Changed) -> None:
        self._fill(event.value)

    @on(Input.Submitted, "#picker-filter")
    def _pick_first(self, event: Input.Submitted) -> None:
        options = self.query_one(OptionList)
        index = options.highlighted
        if index is not None:
            option = options.get_option_at_index(index)
            if option.id is not None and not option.disabled:
                self.dismiss(option.id)

    def _fill(self, needle: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        needle = needle.strip().lower()
        group: str | None = None
        highlight: int | None = None
        first: int | None = None
        for choice in self.choices:
            haystack = f"{choice.name} {choice.value} {choice.group or ''}".lower()
            if needle and needle not in haystack:
                continue
            if choice.group is not None and choice.group != group:
                heading = Text(safe_text(choice.group), style="bold underline")
                options.add_option(Option(heading, disabled=True))
            group = choice.group
            options.add_option(Option(self._label(choice), id=choice.value))
            index = options.option_count - 1
            if first is None:
                first = index
            if choice.value == self.current:
                highlight = index
        if highlight is not None or first is not None:
            options.highlighted = highlight if highlight is not None else first

    def _label(self, choice: Choice) -> Text:
        current = choice.value == self.current
        text = Text("● " if current else "○ ", style="bold green" if current else "dim")
        text.append(safe_text(choice.name), style="bold" if current else "")
        if choice.description:
            text.append("\n  " + safe_text(choice.description), style="dim")
        return text

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id is not None:
            self.dismiss(event.option.id)

    def on_key(self, event: events.Key) -> None:
        """Up and down in the filter field move the list's cursor."""
        # Up/down in the filter move through the list.
        key = event.key
        filters = list(self.query(Input))
        if key in ("down", "up") and filters and filters[0].has_focus:
            options = self.query_one(OptionList)
            if key == "down":
                options.action_cursor_down()
            else:
                options.action_cursor_up()

    def action_dismiss_none(self) -> None:
        """Dismiss without a choice."""
        self.dismiss(None)
