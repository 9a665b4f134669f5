"""A frozen card drawn again in place re-lays out only the frozen history that holds it, found
by a type check over the conversation's children (not a selector query per update)."""

from __future__ import annotations

import pytest

from acp_tui.ui.widgets.conversation_bursts import BURST_LIVE
from acp_tui.ui.widgets.frozen_history import FrozenHistory
from tests.ui.test_conversation_window import fed_turns, headless_app


async def test_a_frozen_card_drawn_again_changes_only_its_history(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with headless_app() as (app, pilot):
        conversation = await fed_turns(app, pilot, 29)
        session = app.session
        histories = conversation.window.frozen_histories()
        assert histories == list(conversation.query_children(FrozenHistory))
        entry = session.thread.tool_calls["call-1"]
        item = conversation.shown.frozen[entry.id]
        holder = conversation.window.history_holding(item)
        assert holder is not None and any(held is item for held in holder.items)
        others = [history for history in histories if history is not holder]
        # another history, made for the test: it must not be laid out again
        spare = FrozenHistory()
        await conversation.mount(spare)
        others.append(spare)
        changed: list[FrozenHistory] = []
        monkeypatch.setattr(FrozenHistory, "changed", lambda self: changed.append(self))
        conversation.bursts._thawed_this_frame = BURST_LIVE  # a burst thawed its share this frame
        assert conversation.bursts.redraw_frozen(entry)
        assert changed == [holder]
        assert not any(history in changed for history in others)
