"""Choose an agent when none was given (`acp-tui` alone): a tiny app run before the main one.

It lists the presets, the config's agents and the ACP registry's agents (name, version,
description, installed or not), and the built-in demo agent. Installed ones can be picked, and
registry binaries (downloaded once picked); missing ones are listed with how to get them. The
registry's index is shown from the cache at once and refreshed in a thread; a failed refresh is
a toast. What is typed filters the list (name, registry id, title, description); ↑ ↓ move,
Enter starts the highlighted agent, Esc/ctrl+q leaves. Text is plain (never markup): registry
text is the registry's, made safe where it entered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Literal

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Input, OptionList, Static
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

DEMO: Literal["demo"] = "demo"
"""What the picker returns for the demo agent (`acp-tui --demo`)."""
DEMO_ID = "acp-tui:demo"
"""The demo's option id (a preset name with a colon cannot come from the registry)."""
DEMO_WORDS = "demo built-in scripted agent no network no api key tour"

Picked = Preset | Literal["demo"] | None
"""A preset, the demo agent, or nothing (the user left)."""


def _demo_label() -> Text:
    text = Text("demo", style="bold")
    text.append("  the built-in demo agent  (no network, no API key)", style="")
    text.append(
        "\n  a scripted agent in a sample project, to see what acp-tui does: try /tour",
        style="dim",
    )
    return text


def matches(preset: Preset, words: str) -> bool:
    """Whether every word typed in the filter is in the agent's name, registry id, title or
    description (any case)."""
    about = " ".join(
        part for part in (preset.name, preset.registry_id, preset.title, preset.description) if part
    ).casefold()
    return all(word in about for word in words.casefold().split())


def _label(preset: Preset, state: str, can_start: bool) -> Text:
    dim = "" if can_start else "dim"
    text = Text(preset.name, style="bold" if can_start else "dim")
    if preset.title:
        text.append(f"  {preset.title}", style=dim)
    if preset.registry_id is not None:
        text.append(f"  also: {preset.registry_id}", style="dim")
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


class AgentPickerApp(App[Picked]):
    TITLE = "acp-tui"
    CSS = """
    #agent-picker-title { text-style: bold; margin: 1 2 0 2; }
    #agent-picker-help { color: $text-muted; margin: 0 2 1 2; }
    #agent-filter { margin: 0 2; }
    OptionList { margin: 0 2; height: 1fr; }
    """
    BINDINGS = [
        Binding("escape", "quit_none", "quit", id="agents.cancel"),
        Binding("ctrl+q", "quit_none", "quit", priority=True, id="agents.quit"),
        Binding("down", "move('cursor_down')", show=False),
        Binding("up", "move('cursor_up')", show=False),
        Binding("pagedown", "move('page_down')", show=False),
        Binding("pageup", "move('page_up')", show=False),
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

    def _options(self, words: str = "") -> list[Option]:
        """The agents the filter `words` leaves: those that start first, then the demo, then
        the rest (greyed, with why); the first `MAX_LISTED`, the rest counted in one line."""
        shown = [p for p in self.ordered if matches(p, words)]
        listed = shown[:MAX_LISTED]
        startable = [p for p in listed if p.name in self.startable]
        options = [self._option(p) for p in startable]
        if all(word in DEMO_WORDS for word in words.casefold().split()):
            options.append(Option(_demo_label(), id=DEMO_ID))
        options += [self._option(p) for p in listed if p.name not in self.startable]
        if len(shown) > MAX_LISTED:
            more = len(shown) - MAX_LISTED
            words = f"… {more} more agents, not listed (type to filter; acp-tui --list-agents"
            words += " lists them, acp-tui -a ID starts one)"
            text = Text(words, style="dim")
            options.append(Option(text, id=None, disabled=True))
        return options

    def _option(self, preset: Preset) -> Option:
        can_start = preset.name in self.startable
        label = _label(preset, self.states[preset.name], can_start)
        return Option(label, id=preset.name, disabled=not can_start)

    def compose(self) -> ComposeResult:
        yield Static("Which agent?", id="agent-picker-title")
        yield Static(self._help(), id="agent-picker-help", markup=False)
        yield Input(placeholder="filter: a name or a word of its description", id="agent-filter")
        yield OptionList(*self._options(), id="agent-options")

    def _help(self) -> str:
        none = (
            "None of the known agents can start here: try the demo, or install one (how: "
            "under each). "
            if not self.startable
            else ""
        )
        return (
            f"No agent was given. {none}Type to filter, Enter starts one; Esc quits. "
            "Next time: `acp-tui NAME`, or [agents.NAME] in config.toml."
        )

    @property
    def words(self) -> str:
        """What is typed in the filter."""
        return self.query_one(Input).value

    def on_input_changed(self, event: Input.Changed) -> None:
        """Show only the agents the filter leaves, the first that can start highlighted."""
        self._show(keep=None)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the filter starts the highlighted agent."""
        options = self.query_one(OptionList)
        if options.highlighted is not None:
            self._choose(options.get_option_at_index(options.highlighted).id)

    def action_move(self, how: str) -> None:
        """↑ ↓ PgUp PgDn move in the list while the filter keeps the keys typed."""
        getattr(self.query_one(OptionList), f"action_{how}")()

    def _show(self, keep: str | None) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(self._options(self.words))
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        enabled = [
            i for i in range(options.option_count) if not options.get_option_at_index(i).disabled
        ]
        if keep in self.startable and keep in ids:  # (a preset the user moved to)
            options.highlighted = ids.index(keep)
        elif enabled:
            options.highlighted = enabled[0]

    def on_mount(self) -> None:
        """Focus the list and refresh the registry's agents in a daemon thread (leaving never waits
        on the network).
        """
        self.query_one(Input).focus()
        self._show(keep=None)
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
        self._show(keep=current)
        self.query_one("#agent-picker-help", Static).update(self._help())
        self._notify(notices)

    def _notify(self, notices: list[str]) -> None:
        for notice in notices:
            notify(self, notice, severity="warning", timeout=10)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        """A click (or Enter in the list): start that agent."""
        self._choose(event.option.id)

    def _choose(self, option_id: str | None) -> None:
        """Exit with the chosen agent, if it can be started here."""
        if option_id == DEMO_ID:
            self.exit(DEMO)
            return
        preset = self.table.get(option_id) if option_id is not None else None
        if preset is not None and option_id in self.startable:
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


def pick_agent(catalog: Catalog) -> Picked:
    """Run the picker in the terminal; the chosen agent (or `DEMO`), or None when the user
    left."""
    return picker_for(catalog).run()
