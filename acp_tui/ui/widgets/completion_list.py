"""The drop-down above the prompt: slash commands or @-mention paths, one highlighted.

It never takes focus: the prompt keeps the cursor and forwards up/down/tab/enter/escape here
while the list is open. Every label is built as `rich.text.Text` (agent command names and
descriptions are never parsed as markup).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widgets import OptionList
from textual.widgets.option_list import Option

from acp_tui.composer.slash import SlashCommand

MAX_SHOWN = 50


@dataclass(frozen=True, slots=True)
class Completion:
    """What choosing an item inserts, replacing the text from `start` to the cursor."""

    kind: str  # "slash" | "mention"
    value: str
    """A path, or what follows a command's first `/` (`review`, `/export` for `//export`)."""
    start: int


class CompletionList(OptionList, can_focus=False):
    """The list under the prompt that completes a slash command or an @-mention; the prompt keeps
    the focus and drives it."""

    DEFAULT_CSS = """
    CompletionList {
        height: auto;
        max-height: 10;
        border: round $accent;
        padding: 0 1;
        display: none;
    }
    CompletionList.-open { display: block; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.items: list[Completion] = []

    @property
    def is_open(self) -> bool:
        """True while the list is shown."""
        return self.has_class("-open")

    def show_commands(self, commands: Sequence[SlashCommand], start: int) -> None:
        """Open the list on `commands` (the first `MAX_SHOWN`), completing from column `start`."""
        options = []
        width = max((len(c.typed) for c in commands[:MAX_SHOWN]), default=0) + 2
        for command in commands[:MAX_SHOWN]:
            label = Text(command.typed.ljust(width), style="bold", no_wrap=True,
                         overflow="ellipsis")  # fmt: skip
            if command.local:
                label.append("acp-tui ", style="italic cyan")
            else:
                label.append("agent   ", style="italic green")
            label.append(command.description.splitlines()[0] if command.description else "",
                         style="dim")  # fmt: skip
            if command.hint:
                label.append(f"  <{command.hint}>", style="dim italic")
            options.append(Option(label))
        items = [Completion("slash", c.typed[1:], start) for c in commands[:MAX_SHOWN]]
        self._show(options, items)
        self.border_title = "commands"

    def show_paths(self, paths: Sequence[str], start: int) -> None:
        """Open the list on `paths` (the first `MAX_SHOWN`), completing from column `start`."""
        options = []
        for path in paths[:MAX_SHOWN]:
            icon = "📁 " if path.endswith("/") else "📄 "
            head, _, name = path.rstrip("/").rpartition("/")
            label = Text(icon, no_wrap=True, overflow="ellipsis")
            label.append(name + ("/" if path.endswith("/") else ""), style="bold")
            if head:
                label.append(f"  {head}/", style="dim")
            options.append(Option(label))
        self._show(options, [Completion("mention", p, start) for p in paths[:MAX_SHOWN]])
        self.border_title = "files"

    def _show(self, options: list[Option], items: list[Completion]) -> None:
        self.items = items
        self.set_options(options)
        if items:
            self.highlighted = 0
            self.add_class("-open")
        else:
            self.close()

    def close(self) -> None:
        """Hide the list and forget its items."""
        self.items = []
        self.remove_class("-open")

    def move(self, delta: int) -> None:
        """Move the highlight by `delta`, wrapping around."""
        if not self.items:
            return
        current = self.highlighted if self.highlighted is not None else 0
        self.highlighted = (current + delta) % len(self.items)

    def chosen(self) -> Completion | None:
        """The highlighted completion while the list is open."""
        if not self.is_open or self.highlighted is None or not self.items:
            return None
        return self.items[self.highlighted]
