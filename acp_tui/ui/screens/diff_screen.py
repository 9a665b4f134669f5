"""A read-only full-screen diff of a tool call's proposed change (`d` on a card)."""

from __future__ import annotations

from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Static

from acp_tui.thread.diff import FileDiff
from acp_tui.ui.widgets.diff_view import DiffView


class DiffScreen(ModalScreen[None]):
    """One file's diff full screen (a tool call's or a turn's change), closed with escape or q."""

    DEFAULT_CSS = """
    DiffScreen { align: center middle; }
    DiffScreen > Vertical { width: 98%; height: 95%; border: thick $accent; background: $surface; }
    DiffScreen DiffView { height: 1fr; }
    DiffScreen #hint { height: 1; color: $text-muted; }
    """
    BINDINGS = [Binding("escape,q", "close", "close")]

    def __init__(self, diffs: list[FileDiff], *, root: Path | None = None) -> None:
        """`root`: the project's directory (a path inside it is shown relative to it)."""
        super().__init__()
        self.diffs = diffs
        self.root = root

    def compose(self) -> ComposeResult:
        with Vertical():
            for diff in self.diffs:
                yield DiffView(diff, root=self.root)
            yield Static("n/p next/prev hunk · s unified/split · esc close", id="hint")

    def on_mount(self) -> None:
        """Focus the first diff view so its keys work at once."""
        self.query(DiffView).first().focus()

    def action_close(self) -> None:
        """Close the diff."""
        self.dismiss(None)
