"""Small parts of the conversation view: the notes between entries, what may freeze, focus."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.errors import NoWidget
from textual.screen import Screen
from textual.widget import Widget

from acp_tui.protocol import models as m
from acp_tui.thread import entries as thread_entries
from acp_tui.thread.entries import Entry, ToolCallEntry
from acp_tui.ui.widgets import card_lines
from acp_tui.ui.widgets import entry_renderables as er
from acp_tui.ui.widgets.entry_lines import EntryItem, EntryLines, Render
from acp_tui.ui.widgets.tool_call_facts import RUNNING

STOP_REASON_TEXT = {
    "max_tokens": "the agent stopped: it reached its token limit",
    "max_turn_requests": "the agent stopped: it reached its limit of requests in one turn",
    "refusal": "the agent refused to continue",
    "cancelled": "cancelled",
    "error": "the turn ended with an error",
}


class ConversationNote(EntryLines):
    """A stop reason or a notice between entries (``kind``: the `Look` style name); freezes
    as it is (its one item moves into the frozen history)."""

    def __init__(self, text: str, kind: str) -> None:
        shown = Text(text)
        render: Render = lambda look, width: er.note_lines(shown, kind, look, width)  # noqa: E731
        super().__init__([EntryItem(render)], classes=kind)
        self.note = text
        self.kind = kind


def is_user_message(entry: Entry) -> bool:
    """Whether the entry is a message the user sent."""
    return isinstance(entry, thread_entries.MessageEntry) and entry.role == "user"


def focused_entry(focused: Widget | None) -> Entry | None:
    """The conversation entry `focused` (or a widget around it) shows: a live entry's, a card's,
    or the one under a focused frozen history's cursor (a finished turn's message)."""
    from acp_tui.ui.widgets.frozen_history import FrozenHistory
    from acp_tui.ui.widgets.live_entry import LiveEntry
    from acp_tui.ui.widgets.tool_call_card import ToolCallCard

    widget = focused
    while widget is not None and not isinstance(widget, Screen):
        if isinstance(widget, FrozenHistory):
            return widget.cursor_entry
        if isinstance(widget, LiveEntry | ToolCallCard):
            return widget.entry
        parent = widget.parent
        widget = parent if isinstance(parent, Widget) else None
    return None


def focus_within(view: Widget) -> None:
    """Focus the first focusable widget of a thawed view (a card's header), or the view."""
    targets = [widget for widget in view.query("*") if widget.focusable]
    if targets:
        targets[0].focus()
    elif view.focusable:
        view.focus()


def forward_click(screen: Screen[object], click: events.Click) -> None:
    """Give `click` again to whatever is now at its place on `screen` (a frozen entry thawed
    by it: the live view under the pointer gets the click the history took), with the style
    drawn there: a click on a message's section title runs the action its line carries."""
    try:
        widget, region = screen.get_widget_at(click.screen_x, click.screen_y)
    except NoWidget:
        return
    widget.post_message(
        events.Click(
            widget,
            click.screen_x - region.x,
            click.screen_y - region.y,
            0,
            0,
            click.button,
            click.shift,
            click.meta,
            click.ctrl,
            screen_x=click.screen_x,
            screen_y=click.screen_y,
            style=screen.get_style_at(click.screen_x, click.screen_y),
        )
    )


def card_freezes(entry: ToolCallEntry, *, crowded: bool = False) -> bool:
    """Whether a card can freeze: never while it shows a terminal or the question asked now;
    while it runs or a question of it waits its turn, only when live widgets are `crowded`
    (a flood of calls: their cards are drawn from data until the user thaws one)."""
    if card_lines.asked_now(entry) or any(isinstance(i, m.Terminal) for i in entry.content):
        return False
    if entry.status in RUNNING or card_lines.open_question(entry):
        return crowded
    return True
