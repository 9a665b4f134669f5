"""The least a Textual app shows: import Textual, show one `Static` (the start-up reference).

    python bench/minimal_textual.py

Its text, "minimal ready", on screen is the soonest any Textual app can offer a prompt.
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Static


class MinimalApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("minimal ready")


if __name__ == "__main__":
    MinimalApp().run()
