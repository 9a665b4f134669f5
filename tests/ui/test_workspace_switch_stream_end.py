"""A tab hidden while its agent's message streamed, the turn ending while it was hidden: every
frame painted once it is shown again is the tab as a full composition shows it (seen in tmux:
the first frames showed the message at its streamed height, a blank step at its end and the
conversation scrolled by it, before the message drawn from its data took its place)."""

from __future__ import annotations

from pathlib import Path

from acp_tui.ui.screens.main import MainScreen
from acp_tui.ui.widgets.message_view import AgentMessageView
from bench.turns import chunks, complete_tool_call, feed_turn, start_turn
from tests.ui.test_workspace_switch_frame import composed_text
from tests.ui.test_workspace_switch_resized import frames_of_switch
from tests.ui.workspace_support import open_tab, workspace_app


async def test_a_stream_that_ended_while_hidden_is_painted_as_composed(tmp_path: Path) -> None:
    async with workspace_app(tmp_path) as h:
        screen = h.app.screen
        assert isinstance(screen, MainScreen)
        session = h.app.tabs[0].session
        for turn in range(1, 4):
            feed_turn(session, turn)
        start_turn(session, 4)
        complete_tool_call(session, 4)
        parts = chunks(4, 8)
        half = len(parts) // 2
        for notification in parts[:half]:
            session.thread.apply_notification(notification)
        await h.until(lambda: screen.query(AgentMessageView), "the message streaming")
        drawn: list[bool] = []  # (the half streamed on the screen, however loaded the machine)
        screen.query_one(AgentMessageView).when_drawn(lambda: drawn.append(True))
        await h.until(lambda: drawn, "the half streamed drawn")
        await open_tab(h)  # (tab 1 hidden, its message half streamed)
        for notification in parts[half:]:
            session.thread.apply_notification(notification)
        session.thread.end_turn("end_turn")
        frames = await frames_of_switch(h, screen, "alt+1", h.settle)
        final = composed_text(screen)
        assert "Done." in "\n".join(final[-12:]), "the end of the last turn is shown"
        assert frames, "the tab was painted"
        for index, frame in enumerate(frames):
            assert frame == final, f"frame {index} of the switch is not the tab as composed"
