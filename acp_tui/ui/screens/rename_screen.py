"""A modal that asks for a session's new title (the palette's "Rename session…")."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Static


class RenameScreen(ModalScreen[str | None]):
    """Dismisses with the title typed (Enter), or None (Esc)."""

    DEFAULT_CSS = """
    RenameScreen { align: center middle; }
    RenameScreen > Vertical {
        width: 70; max-width: 95%; height: auto;
        border: thick $primary; background: $surface; padding: 1 2;
    }
    RenameScreen #rename-help { color: $text-muted; margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "dismiss_none", "cancel")]

    def __init__(self, current: str, *, told_to_agent: bool) -> None:
        super().__init__()
        self.current = current
        self.told_to_agent = told_to_agent

    def compose(self) -> ComposeResult:
        where = (
            "The agent is told (session/set_title)."
            if self.told_to_agent
            else "The agent cannot be told: the title is acp-tui's own."
        )
        with Vertical():
            yield Static("Rename this session", markup=False)
            yield Input(self.current, placeholder="the session's title", id="rename-title")
            yield Static(f"enter renames · esc cancels. {where}", id="rename-help", markup=False)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
