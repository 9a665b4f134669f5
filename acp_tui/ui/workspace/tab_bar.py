"""The tab bar at the top of a session's screen: every session (agent, title) with its state,
shown when there are two or more. Names and titles are agent text: made safe here and drawn as
`rich.text.Text`, never parsed as markup."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual.widget import Widget

from acp_tui.ui.widgets.settings_text import safe_text

_TEXT_STYLES = {
    "working": "bold cyan",
    "needs you": "bold reverse yellow",
    "finished unread": "bold green",
    "crashed": "bold red",
    "idle": "dim",
}


@dataclass(frozen=True)
class TabLabel:
    """What the bar shows of one tab (the app computes it; strings may be raw agent text)."""

    agent: str
    title: str
    state: str
    current: bool


def bar_text(labels: Sequence[TabLabel]) -> Text:
    """`1 agent: title [state]  2 …`, the current tab in bold reverse."""
    text = Text(no_wrap=True, overflow="ellipsis")
    for number, label in enumerate(labels, start=1):
        if number > 1:
            text.append(" │ ", style="dim")
        name = safe_text(label.agent, limit=24)
        title = safe_text(label.title, limit=32)
        key = f"{number} " if number <= 9 else ""
        shown = f"{key}{name}: {title}" if title else f"{key}{name}"
        text.append(shown, style="bold reverse" if label.current else "")
        if label.state != "idle" or not label.current:
            text.append(f" [{label.state}]", style=_TEXT_STYLES.get(label.state, ""))
    return text


class TabBar(Widget):
    """One line naming every session of the workspace with its state (alt+N goes to tab N).

    Its size never depends on its text (one line, the screen's width): a change of the tabs
    repaints it and lays nothing out (a switch changes which tab is current)."""

    DEFAULT_CSS = """
    TabBar { height: 1; width: 1fr; background: $panel; padding: 0 1; display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.labels: tuple[TabLabel, ...] = ()
        self._text = Text("")

    def render(self) -> Text:
        return self._text

    def show_tabs(self, labels: Sequence[TabLabel]) -> None:
        """Show these tabs (hidden with fewer than two); nothing redrawn when nothing changed."""
        labels = tuple(labels)
        if labels == self.labels:
            return
        self.labels = labels
        shown = len(labels) >= 2
        if self.display != shown:
            self.display = shown
        self._text = bar_text(labels)
        self.refresh()
