"""Entries drawn from their data live as they are frozen: one rendering path.

Messages, thoughts, plans, unknown updates and notes are `EntryLines` widgets drawn by the same
functions as the frozen history; a streamed message, once finished, is replaced by its drawing
from data without a cell changing and without parsing its text again. Sections opened by a
click (a thought, an embedded resource) are view state: they freeze and thaw as shown.
"""

from __future__ import annotations

from typing import Any

import pytest

from acp_tui.protocol.models import text_block
from acp_tui.thread.entries import MessageEntry
from acp_tui.ui.markdown import StreamingMarkdown
from acp_tui.ui.markdown.blocks import BlockSplitter
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.entry_state import THOUGHT
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.message_lines import block_section
from acp_tui.ui.widgets.message_view import AgentMessageView, MessageLines
from bench.turns import update
from tests.ui.conversation_text import entry_text, thaw
from tests.ui.headless_app import until
from tests.ui.test_conversation_window import (
    assert_same_cells,
    conversation_area,
    headless_app,
    settled,
)

MARKDOWN = (
    "## Findings\n\nSome **bold** prose that wraps across the width of the view, twice over "
    "so that it is long enough to wrap.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
    "```python\nprint('hi')\n```\n\n> quoted\n"
)
RESOURCE = {
    "type": "resource",
    "resource": {"uri": "file:///p/a.py", "text": "x = 1\ny = 2\n", "mimeType": "text/x-python"},
}


def message_view(conversation: ConversationView, role: str) -> MessageLines:
    (view,) = [
        v for v in conversation.query(MessageLines) if v.message.role == role and v.is_mounted
    ]
    return view


async def test_a_finished_message_is_drawn_from_data_exactly_as_it_streamed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        thread = app.session.thread
        thread.add_user_prompt([text_block("explain")])
        thread.begin_turn()
        for start in range(0, len(MARKDOWN), 7):
            chunk = {"type": "text", "text": MARKDOWN[start : start + 7]}
            thread.apply_notification(update("agent_message_chunk", content=chunk))
        await settled(pilot, conversation)
        streaming = conversation.query_one(AgentMessageView)
        streaming.finish()  # the streaming view takes its exact height
        markdown = streaming.query_one(StreamingMarkdown)
        drawn: list[bool] = []
        markdown.when_drawn(lambda: drawn.append(True))
        await until(pilot, lambda: drawn, "the last flush")
        await settled(pilot, conversation)
        streamed = conversation_area(app)
        assert "Findings" in "\n".join(strip.text for strip in streamed)

        fed: list[str] = []
        feed = BlockSplitter.feed

        def counting_feed(self: BlockSplitter, text: str) -> None:
            fed.append(text)
            feed(self, text)

        monkeypatch.setattr(BlockSplitter, "feed", counting_feed)
        thread.end_turn("end_turn")
        await until(pilot, lambda: not conversation.query(AgentMessageView), "the swap")
        await until(pilot, lambda: conversation.turn_end_settled, "the turn end's freezing")
        await settled(pilot, conversation)
        (answer,) = messages(app, "agent")
        assert answer.id in conversation.frozen_entry_ids, "drawn from data, then frozen"
        assert_same_cells(streamed, conversation_area(app))
        assert fed == [], "the streamed document was handed over, not parsed again"


def messages(app: Any, role: str) -> list[MessageEntry]:
    entries = app.session.thread.entries
    return [e for e in entries if isinstance(e, MessageEntry) and e.role == role]


def feed_turn(app: Any) -> None:
    """A turn (its user's resource, a thought, an answer) that has not ended yet."""
    thread = app.session.thread
    thread.apply_notification(update("user_message_chunk", content=RESOURCE))
    thread.begin_turn()
    thought = {"type": "text", "text": "I should **look** at the file first."}
    thread.apply_notification(update("agent_thought_chunk", content=thought))
    answer = {"type": "text", "text": "Done."}
    thread.apply_notification(update("agent_message_chunk", content=answer))


async def end_turn(app: Any, pilot: Any, conversation: ConversationView) -> None:
    """End the turn; its entries freeze into the history, as they do for users."""
    app.session.thread.end_turn("end_turn")
    await until(pilot, lambda: conversation.turn_end_settled, "the turn end's freezing")
    await settled(pilot, conversation)
    assert [type(c) for c in conversation.children] == [FrozenHistory]


async def test_a_click_on_a_thought_opens_it_and_it_freezes_and_thaws_open() -> None:
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        feed_turn(app)
        await settled(pilot, conversation)
        thought = message_view(conversation, "thought")
        assert thought.text.strip() == "▶ 💭 thought"
        await pilot.click(thought, offset=(3, 0))
        await until(pilot, lambda: "▼ 💭 thought" in thought.text, "the thought to open")
        assert "I should look at the file first." in thought.text
        assert conversation.view_state(thought.message.id).sections == {THOUGHT: True}
        app.screen.set_focus(None)  # (the click focused it: drawn as the cursor)
        await settled(pilot, conversation)
        live = conversation_area(app)

        await end_turn(app, pilot, conversation)
        assert_same_cells(live, conversation_area(app))

        thawed = await thaw(pilot, conversation, thought.message.id)  # (Enter on it)
        await settled(pilot, conversation)
        assert isinstance(thawed, MessageLines) and thawed is not thought
        assert "I should look at the file first." in thawed.text
        await pilot.click(thawed, offset=(3, 0))  # and closes again
        await until(pilot, lambda: "▶ 💭 thought" in thawed.text, "the thought to fold")
        assert conversation.view_state(thought.message.id).sections == {}


async def test_a_click_on_a_frozen_thought_opens_it_live() -> None:
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        feed_turn(app)
        await end_turn(app, pilot, conversation)
        rows = [strip.text for strip in conversation_area(app)]
        row = next(y for y, line in enumerate(rows) if "▶ 💭 thought" in line)
        region = conversation.scrollable_content_region
        await pilot.click(offset=(region.x + 3, region.y + row))
        (thought,) = messages(app, "thought")
        await until(pilot, lambda: "I should look" in entry_text(conversation, thought.id), "open")
        assert isinstance(conversation.views[thought.id], MessageLines), "thawed by the click"
        assert conversation.view_state(thought.id).sections == {THOUGHT: True}


async def test_a_click_on_an_embedded_resource_shows_its_text_live_and_frozen() -> None:
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        feed_turn(app)
        await settled(pilot, conversation)
        user = message_view(conversation, "user")
        assert "▶ 📎 file:///p/a.py (2 lines)" in user.text and "x = 1" not in user.text
        await pilot.click(user, offset=(5, 0))
        await until(pilot, lambda: "x = 1" in user.text, "the resource to open")
        assert "▼ 📎 file:///p/a.py (2 lines)" in user.text
        assert conversation.view_state(user.message.id).sections == {block_section(0): True}
        app.screen.set_focus(None)
        await settled(pilot, conversation)
        live = conversation_area(app)
        await end_turn(app, pilot, conversation)
        assert_same_cells(live, conversation_area(app))


async def test_a_focused_message_is_marked_and_f7_continues_from_it() -> None:
    """A finished turn's message is focused in the frozen history (Tab, then up/down)."""
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        feed_turn(app)
        await end_turn(app, pilot, conversation)
        (answer,) = messages(app, "agent")
        before = conversation_area(app)
        history = conversation.query_one(FrozenHistory)
        for _ in range(8):  # Tab goes round the screen to the history
            if history.has_focus:
                break
            await pilot.press("tab")
        assert history.has_focus and history.cursor is not None
        assert history.items[history.cursor].entry is answer, "the newest entry first"
        await settled(pilot, conversation)
        after = conversation_area(app)
        changed = [y for y, (a, b) in enumerate(zip(before, after, strict=True)) if a != b]
        assert changed, "the focused message is drawn with the cursor style"
        assert all("Done." in after[y].text or not after[y].text.strip() for y in changed)

        chosen: list[int] = []
        from acp_tui.ui import session_actions

        def continue_from(screen: Any, entry_id: int) -> None:
            chosen.append(entry_id)

        original = session_actions.continue_from
        session_actions.continue_from = continue_from
        try:
            await pilot.press("f7")
        finally:
            session_actions.continue_from = original
        assert chosen == [answer.id]
        assert isinstance(answer, MessageEntry)


async def test_a_theme_change_draws_the_frozen_history_again_in_its_colours() -> None:
    """Items keep their lines when they move between widgets of the same styles (the live
    message into the frozen history), but a theme change draws every one again."""
    async with headless_app() as (app, pilot):
        conversation = app.screen.query_one(ConversationView)
        feed_turn(app)
        await settled(pilot, conversation)
        await end_turn(app, pilot, conversation)
        history = conversation.query_one(FrozenHistory)

        def bar_colour() -> object:
            bars = [
                segment.style.color if segment.style else None
                for strip in conversation_area(app)
                for segment in strip
                if "▌" in segment.text
            ]
            assert bars, "the user's message bar is on the screen"
            return bars[0]

        before = bar_colour()
        assert before == history.get_component_rich_style("entry--user-bar").color
        app.theme = "textual-light" if app.theme != "textual-light" else "textual-dark"
        await until(pilot, lambda: bar_colour() != before, "the bar drawn in the new colours")
        await settled(pilot, conversation)
        assert bar_colour() == history.get_component_rich_style("entry--user-bar").color
