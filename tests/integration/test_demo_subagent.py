"""The demo agent's `/subagent` through the client core: a subagent session with its own tool
calls and state, its question answered in the parent's tab, a notice and a rename, all without
a real agent."""

from __future__ import annotations

from pathlib import Path

from acp_tui.demo.subagent import CHILD_ANSWER, CHILD_TITLE, RENAMED
from acp_tui.thread.entries import MessageEntry, ToolCallEntry, UnknownEntry
from acp_tui.thread.subagent_sessions import SessionMessageEntry, SubagentLaneEntry
from tests.integration.test_client_core import driven


async def test_the_demo_shows_a_subagent_session(tmp_path: Path) -> None:
    async with driven(tmp_path) as d:
        session = d.session
        assert session.submit("/subagent") is None
        await d.until(lambda: d.asked, "the subagent's question, in this session")
        thread = session.thread
        (lane,) = [e for e in thread.entries if isinstance(e, SubagentLaneEntry)]
        child = lane.child
        assert child.title == CHILD_TITLE and child.can_cancel
        assert child.state is not None and child.state.state == "requires_action"
        assert thread.needs_user()
        (pending,) = d.asked
        allow = pending.option_of_kind("allow_once")
        assert allow is not None
        pending.select(allow.option_id)
        await d.until(lambda: d.ended, "the turn's end")
        assert d.ended == ["end_turn"]
        assert child.state is not None and child.state.state == "idle" and not child.running
        calls = [e for e in child.thread.entries if isinstance(e, ToolCallEntry)]
        assert [(c.name, c.status) for c in calls] == [
            ("Read", "completed"), ("Grep", "completed"), ("Write", "completed")
        ]  # fmt: skip
        assert [e.text for e in child.thread.entries if isinstance(e, MessageEntry)][-1] == (
            CHILD_ANSWER
        )
        # its task is in its lane (the lane sits under the message that started it); its
        # answer, the child's message to its parent, is the parent's
        assert child.task is not None and "rendered" in child.task.text
        replies = [e for e in thread.entries if isinstance(e, SessionMessageEntry)]
        assert [(r.outgoing, r.text) for r in replies] == [(False, CHILD_ANSWER)]
        assert [n.title for n in thread.notices] == ["The subagent finished"]
        assert thread.title == RENAMED
        assert not any(isinstance(e, UnknownEntry) for e in thread.entries)
        assert session.traffic_store.mark_counts.total() == 0
