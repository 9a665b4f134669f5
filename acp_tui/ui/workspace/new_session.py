"""ctrl+t: what the new session runs. Enter takes the first entry (the same agent in the same
directory); the others: every agent preset (same directory), the ACP registry's agents (same
directory; those that can start here: installed, or a binary downloaded when picked, with its
progress; the others greyed with why; the first `MAX_LISTED`, the rest counted in one line), the
same agent in another directory (typed, checked to be a directory), the same agent in a new git
worktree. `w` opens the highlighted agent, whichever it is, in a new git worktree of the
directory."""

from __future__ import annotations

import asyncio
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
from acp_tui.registry.agents import not_startable, startable, status
from acp_tui.ui.plain import notify
from acp_tui.ui.screens.agent_picker import STATE_WORDS
from acp_tui.ui.widgets.settings_text import safe_text
from acp_tui.ui.workspace.registry_agents import RegistryAgents, install
from acp_tui.ui.workspace.spec import SessionSpec
from acp_tui.ui.workspace.worktree_link import worktree_name
from acp_tui.worktrees.worktrees import WorktreeError, create_worktree

SAME = "same"
DIRECTORY = "directory"
WORKTREE = "worktree"
PRESET = "preset:"
REGISTRY = "registry:"
MORE = "more"
MAX_LISTED = 200
"""Registry agents listed at most (a registry of thousands is not a list to scroll)."""


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
    BINDINGS = [
        Binding("escape", "dismiss_none", "cancel", id="workspace.new-cancel"),
        Binding("w", "in_worktree", "in a new git worktree", id="workspace.new-worktree"),
    ]

    def __init__(
        self,
        current: SessionSpec,
        presets: tuple[Preset, ...],
        registry: RegistryAgents | None = None,
        current_name: str | None = None,
    ) -> None:
        super().__init__()
        self.current = current
        self.current_name = current_name or current.name
        """What the current tab's agent is called (its own name once it said it), not its
        command's module or program name."""
        self.presets = presets
        self.registry = registry
        self.registry_presets: tuple[Preset, ...] = ()
        """The registry's agents offered (those not among `presets` by name)."""
        self.installing: Preset | None = None
        """The registry agent being downloaded (picked; its tab opens once it is there)."""
        self.to_worktree = False
        """The agent picked goes into a new git worktree (`w`), not the directory itself."""

    def _options(self) -> list[Option]:
        current = self.current
        here = safe_text(str(current.cwd), limit=60)
        name = safe_text(self.current_name, limit=30)
        options = [Option(Text(f"{name} in {here}"), id=SAME)]
        for index, preset in enumerate(self.presets):
            if preset == current.preset:
                continue  # Enter's choice (the first line) already is this one
            options.append(Option(Text(f"{_name(preset)} in {here}"), id=f"{PRESET}{index}"))
        for index, preset in enumerate(self.registry_presets[:MAX_LISTED]):
            if preset == current.preset:
                continue
            options.append(_registry_option(preset, here, f"{REGISTRY}{index}"))
        if len(self.registry_presets) > MAX_LISTED:
            more = len(self.registry_presets) - MAX_LISTED
            text = Text(f"… {more} more registry agents, not listed (acp-tui --list-agents lists "
                        "them, acp-tui -a ID starts one)", style="dim")  # fmt: skip
            options.append(Option(text, id=MORE, disabled=True))
        options.append(Option(Text(f"{name} in another directory…"), id=DIRECTORY))
        options.append(Option(Text(f"{name} in a new git worktree"), id=WORKTREE))
        return options

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(
                Text("New session (Enter: the same agent here · w: the highlighted agent in a "
                     "new git worktree)"),
                id="new-title",
            )  # fmt: skip
            yield OptionList(*self._options(), id="new-options")
            yield Input(placeholder="directory (Enter opens the session there)", id="new-dir")
            yield Static(Text(""), id="new-error")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.highlighted = 0
        options.focus()
        if self.registry is not None:
            self.registry.load(asyncio.get_running_loop(), self._registry_agents)

    def _registry_agents(self, agents: tuple[Preset, ...], notices: list[str]) -> None:
        """The registry's agents read (cached, then refreshed): offered, the highlight kept."""
        if not self.is_attached:
            return  # the picker was closed meanwhile
        for notice in notices:
            notify(self.app, notice, severity="warning", timeout=10)
        names = {p.name for p in self.presets}
        offered = tuple(p for p in agents if p.name not in names)
        if offered == self.registry_presets:
            return
        options = self.query_one(OptionList)
        keep = self._key(options.highlighted)
        self.registry_presets = offered
        options.clear_options()
        options.add_options(self._options())
        found = (i for i in range(options.option_count) if self._key(i) == keep)
        options.highlighted = next(found, 0)

    def _key(self, index: int | None) -> str | None:
        """What the option at `index` offers, the same before and after the list changes."""
        if index is None:
            return None
        option_id = self.query_one(OptionList).get_option_at_index(index).id or ""
        if option_id.startswith(REGISTRY):
            return REGISTRY + self.registry_presets[int(option_id.removeprefix(REGISTRY))].name
        return option_id

    def show_error(self, message: str) -> None:
        """Say what went wrong (or what is under way); the picker stays open."""
        self.query_one("#new-error", Static).update(Text(message))

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        choice = event.option.id or SAME
        if choice == SAME:
            self.dismiss(self.current)
        elif choice.startswith(PRESET):
            self._open(self.presets[int(choice.removeprefix(PRESET))])
        elif choice.startswith(REGISTRY):
            self._pick_registry(self.registry_presets[int(choice.removeprefix(REGISTRY))])
        elif choice == DIRECTORY:
            directory = self.query_one("#new-dir", Input)
            directory.display = True
            directory.focus()
        elif choice == WORKTREE:
            self._into_worktree(self.current)

    def action_in_worktree(self) -> None:
        """`w`: the highlighted agent (the same, a preset or a registry agent) in a new git
        worktree of the directory."""
        options = self.query_one(OptionList)
        if options.highlighted is None or self.installing is not None:
            return
        choice = options.get_option_at_index(options.highlighted).id or SAME
        if choice in (SAME, WORKTREE):
            self._into_worktree(self.current)
        elif choice.startswith(PRESET):
            self._open(self.presets[int(choice.removeprefix(PRESET))], worktree=True)
        elif choice.startswith(REGISTRY):
            self.to_worktree = True
            self._pick_registry(self.registry_presets[int(choice.removeprefix(REGISTRY))])
        else:
            self.show_error("Highlight an agent, then w opens it in a new git worktree.")

    def _into_worktree(self, spec: SessionSpec) -> None:
        self.show_error("Creating the worktree…")
        self.run_worker(self._in_worktree(spec), group="worktree", exclusive=True)

    def _open(self, preset: Preset, *, worktree: bool = False) -> None:
        spec = SessionSpec(preset.command, self.current.cwd, preset, env=dict(preset.env))
        if worktree or self.to_worktree:
            self._into_worktree(spec)
        else:
            self.dismiss(spec)

    def _pick_registry(self, preset: Preset) -> None:
        """A registry agent: opened if it can start as it is, else downloaded first (the
        picker shows the progress, and stays open with the error if that fails)."""
        if self.installing is not None:
            return  # one download at a time; Esc leaves
        if preset.installed():
            self._open(preset)
            return
        why = not_startable(preset)
        if why is not None:
            self.to_worktree = False
            self.show_error(safe_text(why, limit=200))
            return
        self.installing = preset
        loop = asyncio.get_running_loop()
        install(loop, preset, self._progress, self._installed, self.registry)

    def _progress(self, line: str) -> None:
        if self.is_attached and self.installing is not None:
            self.show_error(line)

    def _installed(self, failed: str | None) -> None:
        preset, self.installing = self.installing, None
        if not self.is_attached or preset is None:
            return  # Esc while it downloaded: installed for next time, nothing opened
        if failed is not None:
            self.to_worktree = False
            self.show_error(safe_text(failed, limit=300))
            return
        self._open(preset)

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

    async def _in_worktree(self, spec: SessionSpec) -> None:
        name = worktree_name(spec.name)
        try:  # git runs as a subprocess awaited here: the event loop goes on
            worktree = await create_worktree(spec.cwd, name)
        except WorktreeError as error:
            self.to_worktree = False
            self.show_error(f"Could not create a worktree: {safe_text(str(error), limit=200)}")
            return
        self.dismiss(dataclasses.replace(spec, cwd=worktree.cwd, worktree=worktree))

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def _name(preset: Preset) -> str:
    title = f" · {preset.title}" if preset.title and preset.title != preset.name else ""
    return safe_text(f"{preset.name}{title}", limit=60)


def _registry_option(preset: Preset, here: str, option_id: str) -> Option:
    """A registry agent: its name, version and state (installed, runs with npx, downloads when
    picked), greyed with why when it cannot start here."""
    can_start = startable(preset)
    state = status(preset)
    version = f" {preset.version}" if preset.version else ""
    words = "downloads when picked" if state == "download" else STATE_WORDS.get(state, state)
    text = Text(f"{_name(preset)}{safe_text(version, limit=20)} in {here}")
    text.append(f"  (registry, {words})", style="dim")
    if not can_start:
        text.stylize("dim")
        why = not_startable(preset)
        if why is not None:
            text.append(f"\n  {safe_text(why, limit=120)}", style="dim")
    return Option(text, id=option_id, disabled=not can_start)
