"""How a turn's end is told under the conversation: an `error` stop reason is an error, with the
failure the agent reported (v2 `state_update` idle `error` with its JSON-RPC error)."""

from __future__ import annotations

from typing import Any

from acp_tui.protocol.models import text_block
from acp_tui.thread.v2.updates import V2Reducer
from acp_tui.ui.widgets.conversation_parts import ConversationNote
from tests.ui.test_conversation_window import headless_app, live_window, settled


def state(**fields: Any) -> dict[str, Any]:
    return {"sessionId": "s1", "update": {"sessionUpdate": "state_update", **fields}}


async def notes_after(*updates: dict[str, Any]) -> list[ConversationNote]:
    async with headless_app() as (app, pilot):
        conversation = live_window(app)
        thread = app.session.thread
        reducer = V2Reducer(thread)
        thread.add_user_prompt([text_block("do it")])
        for params in updates:
            reducer.apply_notification(params)
        await settled(pilot, conversation)
        return list(conversation.query(ConversationNote))


async def test_an_error_stop_is_shown_as_an_error_with_its_message() -> None:
    notes = await notes_after(
        state(state="running"),
        state(state="idle", stopReason="error",
              error={"code": -32603, "message": "API Error: 529 overloaded"}),
    )  # fmt: skip
    assert [(n.kind, n.note) for n in notes] == [
        ("stop-error", "✗ the turn ended with an error: API Error: 529 overloaded (-32603)")
    ]
    assert notes[0].has_class("stop-error")


async def test_an_error_stop_without_details_and_other_stops_stay_as_they_were() -> None:
    notes = await notes_after(
        state(state="running"),
        state(state="idle", stopReason="error", error="not an object"),
        state(state="running"),
        state(state="idle", stopReason="max_tokens"),
    )
    assert [(n.kind, n.note) for n in notes] == [
        ("stop-error", "✗ the turn ended with an error: the agent reported an error"),
        ("stop-reason", "■ the agent stopped: it reached its token limit"),
    ]
