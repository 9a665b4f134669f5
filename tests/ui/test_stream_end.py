"""The end of a streamed message reaches the screen before the message is redrawn from its data.

When the turn ends, the streaming view of the agent's message is replaced by the message drawn
from its data (the full Markdown render of a long fence or table: a long pause). That swap used
to run at once, before the frame that shows the last chunk, so the end of the text appeared
only after the whole message was rendered again. Now the streamed view stays until the next
frame has been drawn, then the swap runs."""

from __future__ import annotations

from pathlib import Path

from acp_tui.thread import thread_changes
from acp_tui.ui.widgets.conversation import ConversationView
from acp_tui.ui.widgets.message_view import AgentMessageView
from tests.agents.scenarios import stream_text, write_scenario
from tests.ui.app_harness import fixed_cwd, one_turn, run_app
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
