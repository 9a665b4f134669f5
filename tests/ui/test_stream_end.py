"""The end of a streamed message reaches the screen before the message is redrawn from its data.

When the turn ends, the streaming view of the agent's message is replaced by the message drawn
from its data (the full Markdown render of a long fence or table: a long pause). That swap used
to run at once, before the frame that shows the last chunk, so the end of the text appeared
only after the whole message was rendered again. Now the streamed view stays until the next
frame has been drawn, then the swap runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.thread import thread_changes
from acp_tui.ui.markdown import stream_view
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.message_view import AgentMessageView
from tests.agents.scenarios import stream_text, write_scenario
from tests.ui.app_harness import fixed_cwd, gate, one_turn, run_app
from tests.ui.conversation_text import shown

FENCE = "```python\n" + "".join(f"value_{i} = {i}\n" for i in range(200)) + "# the end\n```\n"


async def test_the_streamed_view_stays_until_the_frame_after_the_turn_end(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, one_turn([stream_text("$session_id", FENCE, chunk=16)]))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.ready()
        conversation = h.one(ConversationView)
        at_turn_end: list[list[str]] = []

        def on_change(change: thread_changes.Change) -> None:
            if isinstance(change, thread_changes.TurnStateChanged) and not change.running:
                at_turn_end.append([type(view).__name__ for view in conversation.views.values()])

        unsubscribe = h.session.thread.subscribe(on_change)  # after the conversation's own
        try:
            await h.prompt("stream")
        finally:
            unsubscribe()
        assert at_turn_end == [["MessageLines", "AgentMessageView"]]  # the prompt, the answer
        await h.until(lambda: not h.all(AgentMessageView), "the message drawn from its data")
        answers = [e for e, _ in shown(conversation) if getattr(e, "role", "") == "agent"]
        assert len(answers) == 1, "drawn once (frozen at the turn end)"
        assert "# the end" in h.screen_text()
        assert h.logged_errors == []


async def test_the_end_of_the_text_is_on_screen_before_the_message_is_redrawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last chunk comes with the turn end while the message's next frame is still to come
    (the frame interval is set long here): the turn end draws it at once, and the end of the
    text is on the screen before the message is drawn again from its data (that full render of
    the whole message used to come first, and the end of the text only with it)."""
    monkeypatch.setattr(stream_view, "FRAME_SECONDS", 600.0)
    first = "```text\n" + "".join(f"row {i}\n" for i in range(12))
    last = "".join(f"row {i}\n" for i in range(12, 40)) + "the very end\n```\n"
    steps = [stream_text("$session_id", first, chunk=len(first)), gate()]
    steps.append(stream_text("$session_id", last, chunk=len(last)))
    agent = write_scenario(tmp_path, one_turn(steps))
    async with run_app(agent.argv, fixed_cwd(tmp_path)) as h:
        await h.ready()
        conversation = h.one(ConversationView)
        shown_at_redraw: list[str] = []
        finish_streaming = conversation.turn_end._finish_streaming

        def recording(up_to: int) -> None:
            if h.all(AgentMessageView):
                shown_at_redraw.append(h.screen_text())
            finish_streaming(up_to)

        monkeypatch.setattr(conversation.turn_end, "_finish_streaming", recording)
        await h.type_prompt("stream")
        await h.until(lambda: "row 11" in h.screen_text(), "the first rows on the screen")
        await h.through_gates(1)
        await h.settle()
        await h.until(lambda: not h.all(AgentMessageView), "the message drawn from its data")
        assert len(shown_at_redraw) == 1
        assert "the very end" in shown_at_redraw[0]
        assert "the very end" in h.screen_text()
        assert h.logged_errors == []
