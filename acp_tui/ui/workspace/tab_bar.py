"""The tab bar at the top of a session's screen: every session (agent, title) with its state,
shown when there are two or more. Names and titles are agent text: made safe here and drawn as
`rich.text.Text`, never parsed as markup. When the labels do not fit, `tab_fit` shortens them so
that each tab stays distinguishable; the tab under the pointer shows its full label as a
tooltip."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.text import Text
from textual import events
from textual.widget import Widget

from acp_tui.ui.textual_internals import tell_screen_now
from acp_tui.ui.widgets.settings_text import safe_text
from acp_tui.ui.workspace.tab_fit import SEPARATOR, TabSource, fit_tabs, full_parts

_TEXT_STYLES = {
    "working": "bold cyan",
    "needs you": "bold reverse yellow",
    "finished unread": "bold green",
    "crashed": "bold red",
    "idle": "dim",
}

# Agent strings are made safe and bounded once; the bar shortens them further to fit.
_NAME_LIMIT = 200
_TITLE_LIMIT = 200


@dataclass(frozen=True)
class TabLabel:
    """What the bar shows of one tab (the app computes it; strings may be raw agent text)."""

    agent: str
    title: str
    state: str
    current: bool
    subagents: int = 0
    """Subagent sessions of the tab running now (shown as ⧉N after its state)."""


def sources(labels: Sequence[TabLabel]) -> list[TabSource]:
    """The labels' text made safe (one line each), with whether each state is worth saying."""
    return [
        TabSource(
            safe_text(label.agent, limit=_NAME_LIMIT),
            safe_text(label.title, limit=_TITLE_LIMIT),
            label.state,
            label.state != "idle" or not label.current,
        )
        for label in labels
    ]


def bar_text(labels: Sequence[TabLabel], width: int) -> tuple[Text, list[tuple[int, int]]]:
    """`1 agent: title [state] │ 2 …` fitted into `width` cells, the current tab in bold
    reverse; with the cells `[start, end)` each tab takes."""
    text = Text(no_wrap=True, overflow="ellipsis")
    spans: list[tuple[int, int]] = []
    for index, (label, parts) in enumerate(
        zip(labels, fit_tabs(sources(labels), width), strict=True)
    ):
        if index:
            text.append(SEPARATOR, style="dim")
        start = text.cell_len
        text.append(parts.label, style="bold reverse" if label.current else "")
        if parts.state:
            text.append(f" {parts.state}", style=_TEXT_STYLES.get(label.state, ""))
        if label.subagents:
            text.append(f" ⧉{label.subagents}", style="dim")
        spans.append((start, text.cell_len))
    return text, spans


def full_label(number: int, label: TabLabel) -> Text:
    """The tab's whole label (its tooltip): nothing shortened, the state as a word."""
    (source,) = sources([label])
    parts = full_parts(number, TabSource(source.name, source.title, source.state, True))
    return Text(parts.text, no_wrap=False)


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
        self._drawn: tuple[tuple[TabLabel, ...], int] | None = None
        self._text = Text("")
        self._spans: list[tuple[int, int]] = []
        self._hovered: int | None = None

    def render(self) -> Text:
        width = self.content_size.width
        if self._drawn != (self.labels, width):
            self._drawn = (self.labels, width)
            self._text, self._spans = bar_text(self.labels, width)
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
            # its screen is told now, not at the bar's idle: a tab switched to gets its bar
            # while hidden, and the first frame of the switch (its kept frame, at once) could
            # come before that idle, without the bar
            tell_screen_now(self)
        if self._hovered is not None:
            self._show_tooltip(self._hovered)
        self.refresh()

    def tab_at(self, x: int) -> int | None:
        """The index of the tab drawn at cell `x` of the bar's content (None: none there)."""
        self.render()
        for index, (start, end) in enumerate(self._spans):
            if start <= x < end:
                return index
        return None

    def on_mouse_move(self, event: events.MouseMove) -> None:
        offset = event.get_content_offset(self)
        index = self.tab_at(offset.x) if offset is not None else None
        if index != self._hovered:
            self._show_tooltip(index)

    def on_leave(self, _event: events.Leave) -> None:
        self._show_tooltip(None)

    def _show_tooltip(self, index: int | None) -> None:
        self._hovered = index if index is not None and index < len(self.labels) else None
        if self._hovered is None:
            self.tooltip = None
        else:
            self.tooltip = full_label(self._hovered + 1, self.labels[self._hovered])
