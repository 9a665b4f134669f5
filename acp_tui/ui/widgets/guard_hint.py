"""The line a question shows while it waits to be chosen (`QuestionKeys.waits`): the user was
typing, so their keys go to the prompt, and f4 or a click answers here."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from acp_tui.ui.key_guard import WAITING_HINT, QuestionKeys


class GuardHint(Static):
    """Shown while its question waits to be chosen, hidden otherwise."""

    DEFAULT_CSS = """
    GuardHint { color: $warning; text-style: bold; height: auto; }
    """

    def __init__(self, keys: QuestionKeys, *, id: str | None = "guard-hint") -> None:
        super().__init__(Text(WAITING_HINT), id=id)
        self.keys = keys
        self.display = False

    def on_mount(self) -> None:
        """Follow the question's keys."""
        self.keys.changed.append(self.follow)
        self.follow()

    def on_unmount(self) -> None:
        """Stop following."""
        if self.follow in self.keys.changed:
            self.keys.changed.remove(self.follow)

    def follow(self) -> None:
        """Shown exactly while the question waits to be chosen."""
        self.display = self.keys.waits()
