"""Choose an agent preset when none was given (`acp-tui` alone): a tiny app run before the
main one. Installed presets can be picked; missing ones are listed with their install command.
Enter starts the highlighted agent, Esc/ctrl+q leaves. Text is plain (never markup).
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.presets import Preset, PresetTable


def _label(preset: Preset, installed: bool) -> Text:
    text = Text(preset.name, style="bold" if installed else "dim")
    if preset.title:
        text.append(f"  {preset.title}", style="" if installed else "dim")
    text.append(f"\n  {' '.join(preset.command)}", style="dim")
    if not installed:
        text.append("  (not installed", style="dim")
        text.append(f"; install: {preset.install})" if preset.install else ")", style="dim")
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

    def __init__(self, table: PresetTable) -> None:
        super().__init__()
        self.table = table
        presets = list(table.presets.values())
        installed = {p.name for p in presets if p.installed()}
        # installed first, each group in the table's order
        self.ordered = sorted(presets, key=lambda p: p.name not in installed)
        self.installed = installed

    def compose(self) -> ComposeResult:
        yield Static("Which agent?", id="agent-picker-title")
        yield Static(
            "No agent was given. Enter starts one; Esc quits. "
            "Next time: `acp-tui NAME`, or [agents.NAME] in config.toml.",
            id="agent-picker-help",
            markup=False,
        )
        options = [
            Option(
                _label(p, p.name in self.installed),
                id=p.name,
                disabled=p.name not in self.installed,
            )
            for p in self.ordered
        ]
        yield OptionList(*options, id="agent-options")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        name = event.option.id
        preset = self.table.get(name) if name is not None else None
        if preset is not None and name in self.installed:
            self.exit(preset)

    def action_quit_none(self) -> None:
        self.exit(None)


def pick_agent(table: PresetTable) -> Preset | None:
    """Run the picker in the terminal; the chosen preset, or None when the user left."""
    return AgentPickerApp(table).run()
