"""What a conversation shows, read the same whether its entries are frozen or live.

A finished turn freezes into the frozen history (`FrozenHistory`, one widget for many entries)
at the turn end, as the app does for its users; these helpers read an entry's drawing wherever
it is (its live widget, or its item in a history), and `thaw` turns a frozen entry back into a
live widget as a user does: focus the history, walk its cursor to the entry, press Enter.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from textual.pilot import Pilot
from textual.widget import Widget

from acp_tui.thread.entries import Entry
from acp_tui.ui.compact_lines import packed_text
from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.entry_lines import EntryItem, EntryLines
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from tests.ui.headless_app import until


def _item_text(history: EntryLines, item: EntryItem) -> str:
    width = history.size.width or 80
    return "\n".join(packed_text(line).rstrip() for line in item.lines(history.look, width))


def _view_text(view: Widget) -> str:
    if isinstance(view, ToolCallCard | EntryLines):
        return view.text
    # a message still streaming: the Markdown it has so far
    return "".join(markdown.source for markdown in view.query(StreamingMarkdown))


def shown(conversation: ConversationView) -> Iterator[tuple[Entry | None, str]]:
    """Each entry or note the conversation shows, in order, with its text (None: a note; a
    message still streaming: its Markdown so far)."""
    for child in conversation.children:
        if isinstance(child, EntryLines):  # (a frozen history's many items; a live entry's one)
            for item in child.items:
                yield item.entry, _item_text(child, item)
        else:
            entry = getattr(child, "entry", None)
            yield entry if isinstance(entry, Entry) else None, _view_text(child)


def entry_text(conversation: ConversationView, entry_id: int) -> str:
    """The text entry `entry_id` is drawn with, frozen or live."""
    for entry, text in shown(conversation):
        if entry is not None and entry.id == entry_id:
            return text
    raise AssertionError(f"entry {entry_id} is not shown")


def note_texts(conversation: ConversationView) -> list[str]:
    """The notes between entries (stop reasons ■, notices —, background marks ↻), in order,
    without the blank line that spaces them."""
    return [text.strip() for entry, text in shown(conversation) if entry is None]


def conversation_text(conversation: ConversationView) -> str:
    """Everything the conversation shows, in order, as plain text."""
    return "\n".join(text for _, text in shown(conversation))


async def focus_entry(pilot: Pilot[Any], conversation: ConversationView, entry_id: int) -> None:
    """Put the focus on entry `entry_id` as a user does: its live widget, or in a frozen
    history, the history focused and its cursor walked there with up/down."""
    view = conversation.views.get(entry_id)
    if view is not None:
        view.focus()
        await until(pilot, lambda: view.has_focus_within, "the focus")
        return
    history = next(
        h for h in conversation.query_children(FrozenHistory) if _holds(h, entry_id) is not None
    )
    history.focus()
    await until(pilot, lambda: history.has_focus and history.cursor is not None, "the focus")
    target = _holds(history, entry_id)
    assert target is not None
    for _ in range(len(history.items)):
        if history.cursor == target:
            break
        assert history.cursor is not None
        await pilot.press("up" if history.cursor > target else "down")
    assert history.cursor == target, "the cursor never reached the entry"


async def thaw(pilot: Pilot[Any], conversation: ConversationView, entry_id: int) -> Widget:
    """Thaw frozen entry `entry_id` as a user does (its history focused, the cursor walked to
    it with up/down, Enter); returns its live widget once mounted."""
    assert entry_id in conversation.frozen_entry_ids, f"entry {entry_id} is not frozen"
    await focus_entry(pilot, conversation, entry_id)
    await pilot.press("enter")
    await until(
        pilot,
        lambda: (view := conversation.views.get(entry_id)) is not None and view.is_mounted,
        f"entry {entry_id} thawed",
    )
    return conversation.views[entry_id]


def _holds(history: FrozenHistory, entry_id: int) -> int | None:
    return next(
        (i for i, item in enumerate(history.items) if item.entry_id == entry_id),
        None,
    )


async def thaw_all(pilot: Pilot[Any], conversation: ConversationView) -> None:
    """Thaw every frozen entry, one after the other, by keys (see `thaw`)."""
    for entry_id in sorted(conversation.frozen_entry_ids):
        await thaw(pilot, conversation, entry_id)


async def live_view(pilot: Pilot[Any], conversation: ConversationView, entry_id: int) -> Widget:
    """Entry `entry_id`'s live widget once the turn end is done with it: thawed by Enter if
    it froze (see `thaw`), else the one it has."""
    await until(pilot, lambda: conversation.turn_end_settled, "the turn end's freezing")
    if entry_id in conversation.frozen_entry_ids:
        return await thaw(pilot, conversation, entry_id)
    await until(pilot, lambda: entry_id in conversation.views, f"entry {entry_id} shown")
    return conversation.views[entry_id]


async def live_card(
    pilot: Pilot[Any], conversation: ConversationView, entry_id: int
) -> ToolCallCard:
    """Tool call `entry_id`'s live card (see `live_view`)."""
    view = await live_view(pilot, conversation, entry_id)
    assert isinstance(view, ToolCallCard), view
    return view
