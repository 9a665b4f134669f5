"""The rewind's confirmation: what will be restored and what cannot be undone.

Each file is listed with what happens to it (reverted, deleted because it did not exist,
recreated) and its +/- line counts; a file changed after the agent did is a conflict, named by
who changed it (you, or another tab's agent), kept as it is unless the user picks it and presses
`o` (overwrite; `k` keeps it again).
Below: files acp-tui could not observe, commands that ran and other tool calls ("not undone").
Enter confirms (dismissing with the conflicts to overwrite), Esc cancels (None). Guarded like
every question (`QuestionKeys`): keys typed just before the screen appeared, or in a run of
typing, decide nothing: they go to the composer the user was typing in, and a confirmation that
came while the user typed waits until they choose it (f4, or a click). Every path and title is
shown as plain text.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from acp_tui.client.rewind import FileStep, RewindPlan
from acp_tui.client.write_review import display_path
from acp_tui.safe_text import safe_line
from acp_tui.ui.key_guard import CHOOSE_KEY, QuestionKeys
from acp_tui.ui.widgets.guard_hint import GuardHint

KEYS = "enter restore · o overwrite the selected conflict · k keep it · esc cancel"


class RewindScreen(ModalScreen[frozenset[Path] | None]):
    """Confirm a `RewindPlan`: dismisses with the conflicting files to overwrite, or None."""

    DEFAULT_CSS = """
    RewindScreen { align: center middle; }
    RewindScreen > Vertical {
        width: 100; max-width: 95%; height: auto; max-height: 95%;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    RewindScreen #rewind-title { text-style: bold; margin: 1 0 0 0; }
    RewindScreen #rewind-files { height: auto; max-height: 20; border: none; margin: 1 0 0 0; }
    RewindScreen #rewind-undone { margin: 1 0 0 0; }
    RewindScreen #rewind-keys { color: $text-muted; margin: 1 0; }
    """
    BINDINGS = [
        Binding("escape", "cancel", "cancel", id="rewind.cancel"),
        Binding("enter", "confirm", "restore", priority=True, id="rewind.confirm"),
        Binding("o", "overwrite(True)", "overwrite", id="rewind.overwrite"),
        Binding("k", "overwrite(False)", "keep it", id="rewind.keep"),
        Binding(CHOOSE_KEY, "choose_question", "answer here", show=False),
    ]

    def __init__(self, plan: RewindPlan, root: Path, title: str, *, forward: bool = False) -> None:
        super().__init__()
        self.plan = plan
        self.root = root
        self.heading = title
        self.forward = forward
        self.overwrite: set[Path] = set()
        self.keys = QuestionKeys()

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Text(self.heading), id="rewind-title")
            yield OptionList(id="rewind-files")
            yield Static(self.undone_text(), id="rewind-undone")
            yield GuardHint(self.keys)
            yield Static(Text(KEYS), id="rewind-keys")

    def on_mount(self) -> None:
        """Arm the key guard, fill the list of file steps and focus it."""
        self.keys.arm(self.app)
        self._fill()
        self.query_one(OptionList).focus()

    def _fill(self) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        options.clear_options()
        for step in self.plan.files:
            options.add_option(Option(self.file_line(step), id=str(step.path)))
        if not self.plan.files:
            options.add_option(Option(Text("no file to restore", style="dim"), disabled=True))
        if options.option_count:
            options.highlighted = min(highlighted or 0, options.option_count - 1)

    def file_line(self, step: FileStep) -> Text:
        """One line for a file step: +/- counts, the path and what rewinding does to it (and its
        conflict, if any).
        """
        added, removed = step.counts
        text = Text()
        text.append(f"+{added}", "green")
        text.append(f" \N{MINUS SIGN}{removed} ", "red")
        text.append(display_path(step.path, self.root), "bold")
        text.append(f"  {step.describe(forward=self.forward)}")
        if step.conflict:
            if step.path in self.overwrite:
                text.append("  ⚠ changed since the agent: OVERWRITE", "bold red")
            elif step.leads_to is not None:
                text.append("  ⚠ left as it is (o restores it, asking first)", "yellow")
            else:
                text.append(f"  ⚠ {safe_line(step.who)} changed it since the agent: keep "
                            f"{step.theirs} (o overwrites)", "yellow")  # fmt: skip
        return text

    def undone_text(self) -> Text:
        """What rewinding cannot undo: unknown files, commands that ran, other side effects (all
        terminal-safe).
        """
        plan = self.plan
        text = Text()
        for path, why in plan.unknown:
            text.append(f"? {display_path(path, self.root)}: unknown, {why}\n", "yellow")
        for command in plan.commands:
            text.append(f"$ {safe_line(command)}: command ran, not undone\n", "yellow")
        for title in plan.other:
            text.append(f"• {safe_line(title)}: side effects, not undone\n", "yellow")
        if not text:
            text.append("Nothing else to undo.", "dim")
        text.rstrip()
        return text

    def on_key(self, event: events.Key) -> None:
        """Keys too soon after the screen appeared, or in a run of typing, decide nothing."""
        self.keys.hold(event, focus=False)

    def on_click(self) -> None:
        """A click on the confirmation chooses it: its keys decide from now on."""
        self.keys.choose()

    def action_choose_question(self) -> None:
        """f4: the user goes to the confirmation on purpose."""
        self.keys.choose()

    def _selected(self) -> FileStep | None:
        options = self.query_one(OptionList)
        if options.highlighted is None or not self.plan.files:
            return None
        return self.plan.files[options.highlighted]

    def action_overwrite(self, on: bool) -> None:
        """Mark (or unmark) the selected conflicting file to be overwritten anyway."""
        step = self._selected()
        if step is None or not step.conflict:
            return
        if on:
            self.overwrite.add(step.path)
        else:
            self.overwrite.discard(step.path)
        self._fill()

    def action_confirm(self) -> None:
        """Dismiss with the files to overwrite, unless the key guard still holds."""
        if self.keys.holds():
            return  # (a priority binding runs before `on_key`: held here too)
        self.dismiss(frozenset(self.overwrite))

    def action_cancel(self) -> None:
        """Dismiss without rewinding."""
        self.dismiss(None)
