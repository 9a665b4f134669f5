"""The Settings section of the sidebar: the agent's config options (and unstable models).

One focusable row per option: its name, its current value, its description. Enter (or a click)
on a select opens a `ChoicePicker` with its choices, grouped as the agent grouped them; on a
boolean it flips the value. The section never talks to the agent: it posts `ChangeRequested`
(or `ModelRequested` for the unstable models list) and redraws when the thread says the options
changed, so what it shows is always what the agent last said.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from acp_tui.protocol.models import SessionConfigBoolean, SessionConfigOption, SessionConfigSelect
from acp_tui.thread import thread_changes
from acp_tui.thread.config_options import MODEL, ModelState, option_by_category, value_name
from acp_tui.thread.thread import Thread
from acp_tui.ui.widgets.settings_text import safe_text

if TYPE_CHECKING:
    from acp_tui.ui.screens.choice_picker import Choice

MODELS_ROW = "models"


def select_choices(option: SessionConfigSelect) -> list[Choice]:
    """A select option's values as picker choices, in the agent's groups."""
    from acp_tui.thread.config_options import choice_groups
    from acp_tui.ui.screens.choice_picker import Choice  # (the picker's: opened, not shown first)

    return [
        Choice(c.value, c.name, c.description, group.name)
        for group in choice_groups(option)
        for c in group.choices
    ]


def model_choices(models: ModelState) -> list[Choice]:
    """The unstable `models` list as picker choices."""
    from acp_tui.ui.screens.choice_picker import Choice  # (the picker's: opened, not shown first)

    return [Choice(m.id, m.name, m.description) for m in models.available]


class SettingRow(Static, can_focus=True):
    """One option: name, value and description; Enter or a click changes it."""

    DEFAULT_CSS = """
    SettingRow { height: auto; padding: 0 0 0 1; margin-bottom: 1; }
    SettingRow:focus { background: $boost; }
    SettingRow:hover { background: $boost; }
    """
    BINDINGS = [
        Binding("enter", "activate", "change", show=False),
        Binding("space", "activate", "change", show=False),
    ]

    @dataclass
    class Activated(Message):
        """The user activated the row (Enter or a click) to change its option."""

        row: SettingRow

    def __init__(self, row_id: str, label: Text) -> None:
        super().__init__(label, id=None)
        self.row_id = row_id

    def action_activate(self) -> None:
        """Ask the section to change this setting."""
        self.post_message(self.Activated(self))

    def on_click(self) -> None:
        """A click activates the row."""
        self.action_activate()


def _key(widget: object) -> str | None:
    """The row id a shown row stands for (None: the "none" line)."""
    return widget.row_id if isinstance(widget, SettingRow) else None


def _row_widget(row_id: str | None, label: Text) -> Static:
    if row_id is None:
        return Static(label, classes="settings-none")
    return SettingRow(row_id, label)


def _row_label(name: str, value: str, description: str | None, *, toggle: bool | None) -> Text:
    text = Text(safe_text(name), style="bold")
    text.append("\n")
    if toggle is None:
        text.append(f"▾ {safe_text(value)}", style="green")
    else:
        text.append("● on" if toggle else "○ off", style="green" if toggle else "dim")
    if description:
        text.append("\n" + safe_text(description), style="dim")
    return text


class SettingsSection(Vertical):
    """The Settings section of the sidebar: one row per config option (see the module doc)."""

    DEFAULT_CSS = """
    SettingsSection { height: auto; }
    SettingsSection .settings-none { color: $text-muted; }
    """

    @dataclass
    class ChangeRequested(Message):
        """The user picked a value for a config option."""

        config_id: str
        value: str | bool

    @dataclass
    class ModelRequested(Message):
        """The user picked a model from the unstable `models` list."""

        model_id: str

    def __init__(self, thread: Thread, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.thread = thread
        self._unsubscribe: object = None
        self._rebuild_pending = False

    def compose(self) -> ComposeResult:
        yield from self._rows()

    def on_mount(self) -> None:
        """Follow the thread, where the agent's settings live."""
        self._unsubscribe = self.thread.subscribe(self._on_change)

    def on_unmount(self) -> None:
        """Stop following the thread."""
        if callable(self._unsubscribe):
            self._unsubscribe()

    def _on_change(self, change: object) -> None:
        if isinstance(change, thread_changes.ConfigOptionsChanged | thread_changes.ModelsChanged):
            self.rebuild()

    def rebuild(self) -> None:
        """Redraw from the thread, once per burst of changes."""
        if self.is_mounted and not self._rebuild_pending:
            self._rebuild_pending = True
            self.call_later(self._rebuild)

    async def _rebuild(self) -> None:
        self._rebuild_pending = False
        specs = self._row_specs()
        shown = list(self.children)
        if [_key(child) for child in shown] == [row_id for row_id, _label in specs]:
            # the same rows (a value or a description changed): updated in place, not removed
            # and mounted again (no frame without them; the focus stays where it is)
            for child, (_row_id, label) in zip(shown, specs, strict=True):
                if isinstance(child, Static):
                    child.update(label)
            return
        focused = self.screen.focused if self.is_attached else None
        refocus = focused.row_id if isinstance(focused, SettingRow) else None
        await self.remove_children()
        rows = [_row_widget(row_id, label) for row_id, label in specs]
        await self.mount_all(rows)
        # The sidebar can keep an arrangement made while the new rows were not styled yet
        # (their heights 0) and size this section from it: the rows laid out in a section 0
        # rows high, never painted, until something else laid the sidebar out again (about 1
        # launch in 10). A layout asked for by this section once that frame is drawn drops it
        # (a widget's layout request clears its ancestors' arrangements).
        self.call_after_refresh(self.refresh, layout=True)
        for row in rows:
            if isinstance(row, SettingRow) and row.row_id == refocus:
                row.focus()

    def _rows(self) -> list[Static]:
        return [_row_widget(row_id, label) for row_id, label in self._row_specs()]

    def _row_specs(self) -> list[tuple[str | None, Text]]:
        """(row id, label) per row, from the thread; (None, "none") when it has none."""
        specs: list[tuple[str | None, Text]] = []
        options = self.thread.config_options
        models = self.thread.models
        if models is not None and option_by_category(options, MODEL) is None:
            specs.append(
                (MODELS_ROW, _row_label("Model", models.current_name(), None, toggle=None))
            )
        for option in options:
            toggle = option.current_value if isinstance(option, SessionConfigBoolean) else None
            label = _row_label(option.name, value_name(option), option.description, toggle=toggle)
            specs.append((option.id, label))
        if not specs:
            specs.append((None, Text("none", style="dim")))
        return specs

    def option(self, row_id: str) -> SessionConfigOption | None:
        """The config option shown in row `row_id`, if it still exists."""
        return next((o for o in self.thread.config_options if o.id == row_id), None)

    def on_setting_row_activated(self, event: SettingRow.Activated) -> None:
        """Open the picker of the activated setting."""
        event.stop()
        self.activate(event.row.row_id)

    def pick_category(self, category: str) -> bool:
        """Open the picker of the option of this category (`model`, `thought_level`); False if
        the agent offers none."""
        option = option_by_category(self.thread.config_options, category)
        if option is not None:
            self.activate(option.id)
            return True
        if category == MODEL and self.thread.models is not None:
            self.activate(MODELS_ROW)
            return True
        return False

    def activate(self, row_id: str) -> None:
        """Change the option of this row: flip a boolean, or pick from a list."""
        from acp_tui.ui.screens.choice_picker import ChoicePicker  # (not on the first screen)

        if row_id == MODELS_ROW:
            models = self.thread.models
            if models is not None:
                self.app.push_screen(
                    ChoicePicker("Model", model_choices(models), models.current_id),
                    lambda picked: self._picked_model(picked),
                )
            return
        option = self.option(row_id)
        if isinstance(option, SessionConfigBoolean):
            self.post_message(self.ChangeRequested(option.id, not option.current_value))
        elif isinstance(option, SessionConfigSelect):
            config_id, current = option.id, option.current_value
            self.app.push_screen(
                ChoicePicker(option.name, select_choices(option), current),
                lambda picked: self._picked(config_id, current, picked),
            )

    def _picked(self, config_id: str, current: str, picked: str | None) -> None:
        if picked is not None and picked != current:
            self.post_message(self.ChangeRequested(config_id, picked))

    def _picked_model(self, picked: str | None) -> None:
        models = self.thread.models
        if picked is not None and models is not None and picked != models.current_id:
            self.post_message(self.ModelRequested(picked))
