"""Long conversations stay cheap: old finished entries freeze into `FrozenHistory`.

The app runs headless with no agent process; its session's thread is fed the updates an agent
would send (`bench.turns`, as bench/long_session.py does). Waits are on conditions, never fixed
sleeps.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.strip import Strip

from acp_tui.protocol.models import RequestPermissionRequest, text_block
from acp_tui.ui.app import AcpApp
from acp_tui.ui.widgets import card_lines
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from acp_tui.ui.widgets.permission_prompt import PermissionPrompt
from acp_tui.ui.widgets.tool_call_card import ToolCallCard
from bench.turns import feed_turn, turn_markdown, update
from tests.ui.headless_app import headless_app as shared_headless_app
from tests.ui.headless_app import until

SIZE = (140, 45)


def headless_app(
    size: tuple[int, int] = SIZE,
) -> AbstractAsyncContextManager[tuple[AcpApp, Pilot[Any]]]:
    # a blinking prompt cursor would make two captures of the same screen differ
    return shared_headless_app(size, steady_cursor=True)


def live_window(app: AcpApp) -> ConversationView:
    """The conversation keeping finished turns as live widgets (a turn end freezes them
    otherwise, `test_turn_end_collection.py`): these tests compare live widgets with their
    frozen drawing and the window of live ones."""
    conversation = app.screen.query_one(ConversationView)
    conversation.freeze_finished_turns = False
    return conversation


async def fed_turns(app: AcpApp, pilot: Pilot[Any], turns: int) -> ConversationView:
    """The live-window conversation (`live_window`) after `turns` turns, settled."""
    conversation = live_window(app)
    for turn in range(1, turns + 1):
        feed_turn(app.session, turn)
    await settled(pilot, conversation)
    return conversation


async def settled(pilot: Pilot[Any], conversation: ConversationView) -> None:
    """Every live view mounted and a few frames painted."""
    await until(
        pilot,
        lambda: (
            all(view.is_mounted for view in conversation.views.values())
            and all(child.is_mounted for child in conversation.children)
        ),
        "the conversation to mount",
    )
    for _ in range(3):
        await pilot.pause()


def cells(strip: Strip) -> list[tuple[Any, ...]]:
    """What a cell looks like: spaces by their background only; no meta (offsets, links)."""
    out: list[tuple[Any, ...]] = []
    for segment in strip:
        style = segment.style
        for char in segment.text:
            if style is None:
                out.append((char,))
            elif char == " ":
                out.append((char, style.bgcolor, style.underline, style.strike, style.reverse))
            else:
                out.append((char, style.clear_meta_and_links()))
    return out


def screen(app: AcpApp) -> list[Strip]:
    return list(app.screen._compositor.render_strips())


def conversation_area(app: AcpApp) -> list[Strip]:
    """The conversation's rows of the screen, without its scrollbar."""
    conversation = app.screen.query_one(ConversationView)
    region = conversation.scrollable_content_region
    return [strip.crop(region.x, region.right) for strip in screen(app)[region.y : region.bottom]]


def screen_text(app: AcpApp) -> str:
    return "\n".join(strip.text.rstrip() for strip in screen(app))


def feed_rich_turn(thread: Any) -> None:
    """One turn with every kind of entry the frozen history renders (at one fixed instant: two
    runs compared cell by cell must not differ by a card's "0.0s"/"0.1s" under load)."""
    thread._clock = lambda: 1000.0
    thread.add_user_prompt([text_block("please do the thing with a fairly long prompt " * 5)])
    thread.begin_turn()
    apply = thread.apply_notification
    apply(update("agent_thought_chunk", content={"type": "text", "text": "thinking hard"}))
    apply(
        update(
            "tool_call",
            toolCallId="c1",
            title="Read",
            kind="read",
            status="in_progress",
            locations=[{"path": "/src/f.py", "line": 3}],
        )
    )
    apply(
        update(
            "tool_call_update",
            toolCallId="c1",
            status="completed",
            content=[{"type": "content", "content": {"type": "text", "text": "42 lines"}}],
        )
    )
    apply(
        update(
            "tool_call",
            toolCallId="c2",
            title="Edit",
            kind="edit",
            status="in_progress",
            rawInput={"path": "a.py"},
        )
    )
    apply(
        update(
            "tool_call_update",
            toolCallId="c2",
            status="completed",
            content=[
                {
                    "type": "diff",
                    "path": "/src/a.py",
                    "oldText": "a\nb\nc\n",
                    "newText": "a\nB\nc\nd\n",
                }
            ],
            locations=[{"path": "/src/a.py"}],
        )
    )
    apply(
        update(
            "tool_call",
            toolCallId="c3",
            title="Run",
            kind="execute",
            status="in_progress",
            rawInput={"cmd": "x"},
        )
    )
    apply(
        update(
            "tool_call_update",
            toolCallId="c3",
            status="failed",
            rawOutput={"error": "boom", "code": 2},
        )
    )
    # a command's output: Markdown (a console fence), shown by its last lines
    output = "```console\n" + "\n".join(f"line {i}" for i in range(1, 21)) + "\n```"
    apply(
        update(
            "tool_call",
            toolCallId="c4",
            title="ls -l",
            kind="execute",
            status="completed",
            content=[{"type": "content", "content": {"type": "text", "text": output}}],
        )
    )
    # output only in rawOutput, of a command the agent calls "search" (codex-acp does)
    apply(
        update(
            "tool_call",
            toolCallId="c6",
            title="List /w",
            kind="search",
            status="completed",
            rawInput={"command": ["/bin/bash", "-lc", "ls"]},
            rawOutput={"aggregated_output": "hello.txt\nnotes.txt\n", "exit_code": 0},
        )
    )
    # plain multi-line output keeps its lines
    apply(
        update(
            "tool_call",
            toolCallId="c5",
            title="echo",
            kind="execute",
            status="completed",
            content=[{"type": "content", "content": {"type": "text", "text": "a\nb  c\n"}}],
        )
    )
    apply(
        update(
            "plan",
            entries=[
                {"content": "step one", "priority": "high", "status": "completed"},
                {"content": "step two", "priority": "medium", "status": "in_progress"},
            ],
        )
    )
    markdown = turn_markdown(1)[:900] + "\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> quoted\n"
    apply(update("agent_message_chunk", content={"type": "text", "text": markdown}))
    apply(
        update(
            "agent_message_chunk",
            content={"type": "resource_link", "uri": "file:///x.txt", "name": "x.txt"},
        )
    )
    apply(update("weird_update", foo=1))
    thread.end_turn("cancelled")


def assert_same_cells(before: list[Strip], after: list[Strip]) -> None:
    assert len(before) == len(after)
    for y, (old, new) in enumerate(zip(before, after, strict=True)):
        assert old.text == new.text, f"line {y} changed:\n{old.text!r}\n{new.text!r}"
        assert cells(old) == cells(new), f"line {y} changed style: {old.text.rstrip()!r}"


@pytest.mark.parametrize("scroll", [0, 20])
async def test_frozen_entries_look_exactly_like_the_live_widgets(scroll: int) -> None:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        feed_rich_turn(app.session.thread)
        await settled(pilot, conversation)
        conversation.release_anchor()
        conversation.scroll_to(y=scroll, animate=False, immediate=True)
        await pilot.pause()
        assert conversation.scroll_y == scroll
        live = screen(app)
        assert "⇲ Read" in screen_text(app) or scroll

        frozen = conversation.freeze_all()
        await settled(pilot, conversation)

        assert frozen == 12  # user, thought, 6 cards, plan, agent message, unknown, stop reason
        assert conversation.views == {}
        assert [type(c) for c in conversation.children] == [FrozenHistory]
        assert conversation.scroll_y == scroll
        assert_same_cells(live, screen(app))


async def test_frozen_history_rerenders_for_a_new_width() -> None:
    async with headless_app((90, 45)) as (app, pilot):
        conversation = live_window(app)
        feed_rich_turn(app.session.thread)
        await settled(pilot, conversation)
        conversation.scroll_home(animate=False, immediate=True)
        await pilot.pause()
        live_at_90 = screen(app)
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        feed_rich_turn(app.session.thread)
        await settled(pilot, conversation)
        conversation.freeze_all()
        await settled(pilot, conversation)
        await pilot.resize_terminal(90, 45)
        await until(pilot, lambda: conversation.size.width < 90, "the resize")
        conversation.scroll_home(animate=False, immediate=True)
        await settled(pilot, conversation)
        assert_same_cells(live_at_90, screen(app))


async def test_a_long_thread_keeps_a_bounded_number_of_live_widgets() -> None:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        session = app.session
        for turn in range(1, 151):
            feed_turn(session, turn)
            if turn % 50 == 0:
                await settled(pilot, conversation)
        await settled(pilot, conversation)
        limit = conversation.window.live_entries + conversation.window.freeze_batch
        assert len(conversation.views) <= limit
        assert len(app.screen.query("*")) < 400  # 450 entries, ~8 widgets each when live
        first_ids = {entry.id for entry in session.thread.entries[:30]}
        assert first_ids <= conversation.frozen_entry_ids
        # following the bottom: the last answer is on screen
        assert conversation.scroll_y == conversation.max_scroll_y
        assert "Done." in screen_text(app)
        # the oldest turn is in the frozen history, and shows when scrolled to the top
        conversation.scroll_home(animate=False, immediate=True)
        await settled(pilot, conversation)
        text = screen_text(app)
        assert "prompt 1: please do the thing" in text
        assert "Result 1" in text and "Read file 1" in text
        # a new turn brings the view back down (still anchored after `follow`)
        conversation.follow()
        feed_turn(session, 151)
        await settled(pilot, conversation)
        await until(pilot, lambda: conversation.scroll_y == conversation.max_scroll_y, "the bottom")
        assert "Result 151" in screen_text(app)


async def test_freezing_while_scrolled_up_does_not_move_the_text() -> None:
    async with headless_app() as (app, pilot):
        conversation = await fed_turns(app, pilot, 19)
        session = app.session
        assert not conversation.frozen_entry_ids  # 57 entries: under the freezing threshold
        conversation.release_anchor()
        conversation.scroll_to(y=200, animate=False, immediate=True)
        await settled(pilot, conversation)
        before = conversation_area(app)
        for turn in range(20, 30):
            feed_turn(session, turn)
        await settled(pilot, conversation)
        assert len(conversation.frozen_entry_ids) > 20
        assert conversation.scroll_y == 200
        assert_same_cells(before, conversation_area(app))


async def test_a_running_tool_call_is_never_frozen_and_freezes_once_finished() -> None:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        session = app.session
        thread = session.thread
        thread.add_user_prompt([text_block("start a long job")])
        thread.begin_turn()
        thread.apply_notification(
            update("tool_call", toolCallId="long", title="Long job", status="in_progress")
        )
        thread.end_turn("end_turn")
        long_entry = thread.tool_calls["long"]
        for turn in range(1, 40):
            feed_turn(session, turn)
        await settled(pilot, conversation)
        assert long_entry.id not in conversation.frozen_entry_ids
        card = conversation.views[long_entry.id]
        assert isinstance(card, ToolCallCard) and card.is_mounted
        # the entries around it froze: history, the live card, history, recent live entries
        kinds = [type(child) for child in conversation.children]
        assert kinds[:3] == [FrozenHistory, ToolCallCard, FrozenHistory]
        first = thread.entries[0]
        assert first.id in conversation.frozen_entry_ids

        thread.apply_notification(update("tool_call_update", toolCallId="long", status="completed"))
        for turn in range(40, 60):
            feed_turn(session, turn)
        await settled(pilot, conversation)
        assert long_entry.id in conversation.frozen_entry_ids
        kinds = [type(child) for child in conversation.children]
        assert kinds.count(FrozenHistory) == 1 and kinds[0] is FrozenHistory


async def test_a_card_waiting_for_permission_is_never_frozen() -> None:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        session = app.session
        thread = session.thread
        thread.add_user_prompt([text_block("write the file")])
        thread.begin_turn()
        thread.apply_notification(
            update("tool_call", toolCallId="w", title="Write it", kind="edit", status="pending")
        )
        asking = asyncio.create_task(
            session.permissions.request(
                RequestPermissionRequest.model_validate(
                    {
                        "sessionId": "bench",
                        "toolCall": {"toolCallId": "w", "title": "Write it"},
                        "options": [
                            {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                            {"optionId": "no", "name": "Reject", "kind": "reject_once"},
                        ],
                    }
                )
            )
        )
        await until(pilot, lambda: app.screen.query(PermissionPrompt), "the permission prompt")
        # the agent marks the call finished but the question is still open
        thread.apply_notification(update("tool_call_update", toolCallId="w", status="cancelled"))
        thread.end_turn("end_turn")
        for turn in range(1, 40):
            feed_turn(session, turn)
        await settled(pilot, conversation)
        entry = thread.tool_calls["w"]
        assert entry.id not in conversation.frozen_entry_ids
        prompt = app.screen.query_one(PermissionPrompt)
        assert prompt.is_mounted and any(isinstance(a, ToolCallCard) for a in prompt.ancestors)

        prompt.choose("yes")
        assert await asyncio.wait_for(asking, 5)
        for turn in range(40, 60):
            feed_turn(session, turn)
        await settled(pilot, conversation)
        assert entry.id in conversation.frozen_entry_ids
        assert not app.screen.query(PermissionPrompt)
        conversation.scroll_home(animate=False, immediate=True)
        await settled(pilot, conversation)
        assert "✓ answered: Allow" in screen_text(app)


async def test_clicking_a_frozen_card_thaws_it_into_a_live_card() -> None:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        feed_rich_turn(app.session.thread)
        await settled(pilot, conversation)
        conversation.scroll_home(animate=False, immediate=True)
        conversation.freeze_all()
        await settled(pilot, conversation)
        before = screen(app)
        area = conversation_area(app)
        edit = app.session.thread.tool_calls["c2"]
        was_folded = card_lines.is_folded(edit, conversation.view_state(edit.id))
        row = next(y for y, strip in enumerate(before) if "✎ Edit" in strip.text)
        column = before[row].text.index("✎ Edit")
        assert await pilot.click(offset=(column, row))
        await settled(pilot, conversation)

        entry = app.session.thread.tool_calls["c2"]
        card = conversation.views.get(entry.id)
        assert isinstance(card, ToolCallCard) and card.is_mounted
        kinds = [type(child) for child in conversation.children]
        assert kinds == [FrozenHistory, ToolCallCard, FrozenHistory]
        # the click that thawed it is the card's click too: on the header it folds or opens
        # the card, as on a live card; the lines above it are as they were
        top = conversation.scrollable_content_region.y
        assert_same_cells(area[: row - top], conversation_area(app)[: row - top])
        assert card.has_class("-folded") is not was_folded
        assert await pilot.click(offset=(column, row))  # live now: the next click folds it back
        await until(pilot, lambda: card.has_class("-folded") is was_folded, "folded back")
        await settled(pilot, conversation)
        shown = [strip.text for strip in conversation_area(app)]
        assert shown == [strip.text for strip in area]  # as the frozen card was (now focused)
        # it is live: its raw input unfolds, and it does not freeze again
        assert "raw input" in screen_text(app) and '"path": "a.py"' not in screen_text(app)
        rows = screen(app)
        at = next(y for y, strip in enumerate(rows) if "▶ raw input" in strip.text)
        assert await pilot.click(offset=(rows[at].text.index("▶ raw input"), at))
        await until(pilot, lambda: '"path": "a.py"' in screen_text(app), "the raw input")
        conversation.freeze_all()
        await settled(pilot, conversation)
        assert conversation.views.get(entry.id) is card


async def test_an_update_to_a_frozen_entry_is_shown_once() -> None:
    async with headless_app() as (app, pilot):
        conversation = await fed_turns(app, pilot, 29)
        session = app.session
        entry = session.thread.tool_calls["call-1"]
        assert entry.id in conversation.frozen_entry_ids
        session.thread.apply_notification(
            update("tool_call_update", toolCallId="call-1", title="Renamed late")
        )
        await settled(pilot, conversation)
        cards = [c for c in app.screen.query(ToolCallCard) if c.entry is entry]
        assert len(cards) == 1 and "Renamed late" in cards[0].text.splitlines()[1]
        frozen_texts = [h.text for h in conversation.query_children(FrozenHistory)]
        assert not any("Read file 1 " in text for text in frozen_texts)


async def test_enter_on_the_frozen_history_thaws_the_entry_under_its_cursor() -> None:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        feed_rich_turn(app.session.thread)
        await settled(pilot, conversation)
        conversation.freeze_all()
        await settled(pilot, conversation)
        history = conversation.query_children(FrozenHistory).first()
        history.focus()
        await pilot.pause()
        entries = [i for i, item in enumerate(history.items) if item.entry is not None]
        assert history.cursor == entries[-1]  # the entry nearest the live ones
        target = app.session.thread.tool_calls["c2"]
        while history.items[history.cursor].entry is not target:
            await pilot.press("up")
        await pilot.press("enter")
        await settled(pilot, conversation)
        card = conversation.views.get(target.id)
        assert isinstance(card, ToolCallCard) and card.is_mounted
        assert target.id not in conversation.frozen_entry_ids
        assert app.screen.focused is card.head  # Enter again folds it


async def test_a_card_folded_by_hand_freezes_and_thaws_as_the_user_left_it() -> None:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        feed_rich_turn(app.session.thread)
        await settled(pilot, conversation)
        entry = app.session.thread.tool_calls["c1"]  # completed: folded by default
        card = conversation.views[entry.id]
        assert isinstance(card, ToolCallCard) and card.has_class("-folded")
        conversation.scroll_home(animate=False, immediate=True)  # where the card is
        card.toggle()  # the user unfolds it
        await settled(pilot, conversation)
        assert "42 lines" in screen_text(app)
        conversation.freeze_all()
        await settled(pilot, conversation)
        assert entry.id in conversation.frozen_entry_ids
        conversation.scroll_home(animate=False, immediate=True)
        await settled(pilot, conversation)
        assert "42 lines" in screen_text(app)  # frozen as it was shown
        thawed = conversation.thaw(entry.id)
        await settled(pilot, conversation)
        assert isinstance(thawed, ToolCallCard) and thawed is not card
        assert not thawed.has_class("-folded") and thawed.user_toggled
        assert conversation.view_state(entry.id).folded is False


async def test_a_card_with_an_answered_question_freezes_exactly_as_shown() -> None:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        session = app.session
        thread = session.thread
        thread.add_user_prompt([text_block("write the file")])
        thread.begin_turn()
        thread.apply_notification(
            update("tool_call", toolCallId="w", title="Write it", kind="edit", status="pending")
        )
        request = {
            "sessionId": "bench",
            "toolCall": {"toolCallId": "w", "title": "Write it"},
            "options": [
                {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
                {"optionId": "no", "name": "Reject", "kind": "reject_once"},
            ],
        }
        asking = asyncio.create_task(
            session.permissions.request(RequestPermissionRequest.model_validate(request))
        )
        await until(pilot, lambda: app.screen.query(PermissionPrompt), "the permission prompt")
        app.screen.query_one(PermissionPrompt).choose("yes")
        assert await asyncio.wait_for(asking, 5)
        thread.apply_notification(update("tool_call_update", toolCallId="w", status="completed"))
        thread.end_turn("end_turn")
        await settled(pilot, conversation)
        await until(pilot, lambda: "answered: Allow" in screen_text(app), "the answer")
        conversation.scroll_home(animate=False, immediate=True)
        await settled(pilot, conversation)
        live = screen(app)

        assert conversation.freeze_all() == 2
        await settled(pilot, conversation)

        assert [type(c) for c in conversation.children] == [FrozenHistory]
        assert not app.screen.query(PermissionPrompt)
        assert_same_cells(live, screen(app))
