"""Choose an agent when none was given (`acp-tui` alone): a tiny app run before the main one.

It lists the presets, the config's agents and the ACP registry's agents (name, version,
description, installed or not). Installed ones can be picked, and registry binaries (downloaded
once picked); missing ones are listed with how to get them. The registry's index is shown from
the cache at once and refreshed in a thread; a failed refresh is a toast. Enter starts the
highlighted agent, Esc/ctrl+q leaves. Text is plain (never markup): registry text is the
registry's, made safe where it entered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.presets import Preset, PresetTable
from acp_tui.registry.agents import not_startable, startable, status
from acp_tui.ui.plain import notify

if TYPE_CHECKING:
    from acp_tui.registry.catalog import Catalog

log = logging.getLogger(__name__)

Refresh = Callable[[], tuple[PresetTable, list[str]]]
"""Refresh the registry (blocking: run in a thread): the new table and the notices."""

STATE_WORDS = {"download": "downloads when started", "npx": "runs with npx", "uvx": "runs with uvx"}
MAX_LISTED = 200
"""Agents listed at most, those that can start first (the rest counted in one line)."""


def _label(preset: Preset, state: str, can_start: bool) -> Text:
    dim = "" if can_start else "dim"
    text = Text(preset.name, style="bold" if can_start else "dim")
    if preset.title:
        text.append(f"  {preset.title}", style=dim)
    if preset.version:
        text.append(f"  {preset.version}", style="dim")
    text.append(f"  ({STATE_WORDS.get(state, state)})", style="dim")
    if preset.description:
        text.append(f"\n  {preset.description}", style=dim)
    text.append(f"\n  {' '.join(preset.command)}", style="dim")
    if not can_start:
        why = not_startable(preset)
        hint = why or (f"install: {preset.install}" if preset.install else "")
        if hint:
            text.append(f"\n  {hint}", style="dim")
    return text


class AgentPickerApp(App[Preset | None]):
    TITLE = "acp-tui"
    CSS = """
    #agent-picker-title { text-style: bold; margin: 1 2 0 2; }
    #agent-picker-help { color: $text-muted; margin: 0 2 1 2; }
    OptionList { margin: 0 2; height: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "quit_none", "quit", id="agents.cancel"),
        Binding("ctrl+q", "quit_none", "quit", priority=True, id="agents.quit"),
    ]

    def __init__(self, table: PresetTable, refresh: Refresh | None = None) -> None:
        super().__init__()
        self._refresh = refresh
        self._set_table(table)

    def _set_table(self, table: PresetTable) -> None:
        self.table = table
        presets = list(table.presets.values())
        self.states = {p.name: status(p) for p in presets}
        self.startable = {p.name for p in presets if startable(p)}
        self.installed = {p.name for p in presets if p.installed()}
        # installed first, then what downloads when started, then the rest; each in order
        self.ordered = sorted(
            presets, key=lambda p: (p.name not in self.installed, p.name not in self.startable)
        )

    def _options(self) -> list[Option]:
        options = [
            Option(
                _label(p, self.states[p.name], p.name in self.startable),
                id=p.name,
                disabled=p.name not in self.startable,
            )
            for p in self.ordered[:MAX_LISTED]
        ]
        if len(self.ordered) > MAX_LISTED:
            more = len(self.ordered) - MAX_LISTED
            text = Text(f"… {more} more agents, not listed (acp-tui --list-agents lists them, "
                        "acp-tui -a ID starts one)", style="dim")  # fmt: skip
            options.append(Option(text, id=None, disabled=True))
        return options

    def compose(self) -> ComposeResult:
        yield Static("Which agent?", id="agent-picker-title")
        yield Static(
            "No agent was given. Enter starts one; Esc quits. "
            "Next time: `acp-tui NAME`, or [agents.NAME] in config.toml.",
            id="agent-picker-help",
            markup=False,
        )
        yield OptionList(*self._options(), id="agent-options")

    def on_mount(self) -> None:
        """Focus the list and refresh the registry's agents in a daemon thread (leaving never waits
        on the network).
        """
        self.query_one(OptionList).focus()
        if self._refresh is not None:
            # a daemon thread, not a worker: leaving the picker never waits for the network
            loop = asyncio.get_running_loop()
            thread = threading.Thread(
                target=self._refresh_in_thread, args=(loop,), name="acp-tui-picker", daemon=True
            )
            thread.start()

    def _refresh_in_thread(self, loop: asyncio.AbstractEventLoop) -> None:
        assert self._refresh is not None
        try:
            table, notices = self._refresh()
        except Exception as error:  # a bug, not the network: logged, and said
            log.exception("refreshing the agent registry")
            failed = [f"registry refresh failed: {error}"]
            _call_soon(loop, lambda: self._notify(failed))
            return
        _call_soon(loop, lambda: self._refreshed(table, notices))

    def _refreshed(self, table: PresetTable, notices: list[str]) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        current = options.get_option_at_index(highlighted).id if highlighted is not None else None
        self._set_table(table)
        options.clear_options()
        options.add_options(self._options())
        listed = {p.name for p in self.ordered[:MAX_LISTED]}
        keep = current if current in self.startable and current in listed else None
        first = next((p.name for p in self.ordered if p.name in self.startable), None)
        if keep or first:
            options.highlighted = options.get_option_index(keep or first or "")
        self._notify(notices)

    def _notify(self, notices: list[str]) -> None:
        for notice in notices:
            notify(self, notice, severity="warning", timeout=10)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """Exit with the chosen preset, if it can be started here."""
        name = event.option.id
        preset = self.table.get(name) if name is not None else None
        if preset is not None and name in self.startable:
            self.exit(preset)

    def action_quit_none(self) -> None:
        """Leave the picker without choosing an agent."""
        self.exit(None)


def _call_soon(loop: asyncio.AbstractEventLoop, callback: Callable[[], None]) -> None:
    """Run `callback` on the picker's loop (nothing when the picker has closed meanwhile)."""
    with contextlib.suppress(RuntimeError):  # the loop is closed
        loop.call_soon_threadsafe(callback)


def picker_for(catalog: Catalog) -> AgentPickerApp:
    """The picker over `catalog`: the cached registry at once, refreshed in a thread."""

    def refresh() -> tuple[PresetTable, list[str]]:
        table = catalog.table(refresh=True)
        return table, list(catalog.notices)

    return AgentPickerApp(catalog.table(), refresh if catalog.enabled else None)


def pick_agent(catalog: Catalog) -> Preset | None:
    """Run the picker in the terminal; the chosen agent, or None when the user left."""
    return picker_for(catalog).run()
