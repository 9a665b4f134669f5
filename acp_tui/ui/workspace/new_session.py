"""ctrl+t: what the new session runs. Enter takes the first entry (the same agent in the same
directory); the others: every agent preset (same directory), the same agent in another
directory (typed, checked to be a directory), the same agent in a new git worktree."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.host.local_files import directory_at
from acp_tui.presets import Preset
from acp_tui.ui.widgets.settings_text import safe_text
from acp_tui.ui.workspace.spec import SessionSpec
from acp_tui.ui.workspace.worktree_link import worktree_name
from acp_tui.workspace.worktrees import WorktreeError, create_worktree

SAME = "same"
DIRECTORY = "directory"
WORKTREE = "worktree"
PRESET = "preset:"


class NewSessionScreen(ModalScreen[SessionSpec | None]):
    """Pick what a new session runs; dismisses with its `SessionSpec`, or None (Esc)."""

    DEFAULT_CSS = """
    NewSessionScreen { align: center middle; }
    NewSessionScreen > Vertical {
        width: 90; max-width: 95%; height: auto; max-height: 90%;
        border: thick $primary; background: $surface; padding: 0 1;
    }
    NewSessionScreen #new-title { text-style: bold; margin: 1 0; }
    NewSessionScreen OptionList { height: auto; max-height: 20; border: none; }
    NewSessionScreen #new-dir { display: none; margin: 1 0 0 0; }
    NewSessionScreen #new-error { color: $error; margin: 0 0 1 0; }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "cancel", id="workspace.new-cancel")]

    def __init__(self, current: SessionSpec, presets: tuple[Preset, ...]) -> None:
        super().__init__()
        self.current = current
        self.presets = presets

    def compose(self) -> ComposeResult:
        current = self.current
        here = safe_text(str(current.cwd), limit=60)
        options = [Option(Text(f"{safe_text(current.name, limit=30)} in {here}"), id=SAME)]
        for index, preset in enumerate(self.presets):
            if preset == current.preset:
                continue  # Enter's choice (the first line) already is this one
            title = f" · {preset.title}" if preset.title and preset.title != preset.name else ""
            label = safe_text(f"{preset.name}{title}", limit=60)
            options.append(Option(Text(f"{label} in {here}"), id=f"{PRESET}{index}"))
        options.append(Option(Text(f"{safe_text(current.name, limit=30)} in another directory…"),
                              id=DIRECTORY))  # fmt: skip
        options.append(Option(Text(f"{safe_text(current.name, limit=30)} in a new git worktree"),
                              id=WORKTREE))  # fmt: skip
        with Vertical():
            yield Static(Text("New session (Enter: the same agent here)"), id="new-title")
            yield OptionList(*options, id="new-options")
            yield Input(placeholder="directory (Enter opens the session there)", id="new-dir")
            yield Static(Text(""), id="new-error")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()

    def show_error(self, message: str) -> None:
        """Say what went wrong; the picker stays open."""
        self.query_one("#new-error", Static).update(Text(message))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = event.option.id or SAME
        if choice == SAME:
            self.dismiss(self.current)
        elif choice.startswith(PRESET):
            preset = self.presets[int(choice.removeprefix(PRESET))]
            self.dismiss(
                SessionSpec(preset.command, self.current.cwd, preset, env=dict(preset.env))
            )
        elif choice == DIRECTORY:
            directory = self.query_one("#new-dir", Input)
            directory.display = True
            directory.focus()
        elif choice == WORKTREE:
            self.show_error("Creating the worktree…")
            self.run_worker(self._in_worktree(), group="worktree", exclusive=True)

    @on(Input.Submitted, "#new-dir")
    def _directory(self, event: Input.Submitted) -> None:
        event.stop()
        typed = event.value.strip()
        if not typed:
            self.show_error("Type a directory.")
            return
        path = Path(os.path.expanduser(typed))
        if not path.is_absolute():
            path = self.current.cwd / path
        where = directory_at(path)
        if where is None:
            self.show_error(f"Not a directory: {safe_text(str(path), limit=70)}")
            return
        self.dismiss(dataclasses.replace(self.current, cwd=where, worktree=None))

    async def _in_worktree(self) -> None:
        name = worktree_name(self.current.name)
        try:  # git runs as a subprocess awaited here: the event loop goes on
            worktree = await create_worktree(self.current.cwd, name)
        except WorktreeError as error:
            self.show_error(f"Could not create a worktree: {safe_text(str(error), limit=200)}")
            return
        self.dismiss(dataclasses.replace(self.current, cwd=worktree.cwd, worktree=worktree))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
