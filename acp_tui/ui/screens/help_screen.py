"""The help screen (f1, or `?` in an empty prompt): acp-tui's keys by where they work, its `//`
commands and where the settings live; Esc closes it.

The keys are read from the bindings themselves, with the user's keymap applied (a remapped key
shows remapped), so the screen cannot drift from what the keys do. Textual's own key panel
(ctrl+p → "Keys") listed some thirty TextArea cursor keys before the app's and did not close
with Esc; the palette's "Keys" opens this screen instead.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.ui.help_keys import Row, sections
from acp_tui.ui.key_labels import keys_label


class HelpScreen(ModalScreen[None]):
    """Keys by context, the `//` commands, where the settings live."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 100;
        max-width: 100%;
        height: 90%;
        border: round $primary;
        background: $surface;
        padding: 0 1;
    }
    HelpScreen Static { margin-bottom: 1; }
    """
    BINDINGS = [Binding("escape,q,f1", "close", "close", id="help.close")]

    def __init__(self, config_file: str, local_commands: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.config_file = config_file
        self.local_commands = local_commands

    def compose(self) -> ComposeResult:
        app = self.app
        close = keys_label(app, "help.close", "escape,q,f1")
        parts: list[RenderableType] = [_table(title, rows) for title, rows in sections(app)]
        commands = [(f"//{name}", text) for name, text in self.local_commands]
        parts.append(_table("acp-tui's commands (typed at the start of the prompt)", commands))
        settings = Text()
        settings.append("Settings\n", style="bold underline")
        settings.append("  " + self.config_file + "\n")
        settings.append(
            "  (or $ACP_TUI_CONFIG; each setting also as ACP_TUI_<NAME>). Keys are remapped "
            'under [keymap] by binding id, e.g. "main.changes" = "f7"; the README lists '
            "the settings and the ids."
        )
        parts.append(settings)
        self.parts = parts
        with VerticalScroll() as scroll:
            scroll.border_title = f"acp-tui help · {close} closes"
            for part in parts:
                yield Static(part)

    def on_mount(self) -> None:
        """The list scrolls with the keys (the screen has nothing else to focus)."""
        self.query_one(VerticalScroll).focus()

    def action_close(self) -> None:
        """Close the help."""
        self.dismiss(None)


def _table(title: str, rows: Sequence[Row]) -> Group:
    table = Table.grid(padding=(0, 2))
    table.add_column(no_wrap=True, min_width=12)
    table.add_column(ratio=1)
    for keys, what in rows:
        table.add_row(Text("  " + keys, style="bold"), Text(what))
    return Group(Text(title, style="bold underline"), table)
