"""The newest claude-agent-acp (0.101, `claude-agent-acp-new` in the kit) against acp-tui's
client core: what the current ACP schema brings, as a real agent sends it.

- With `fake_llm.py --task` Claude hands the work to a subagent: acp-tui asks for subagent
  sessions, so the agent announces the child (`subagent_update`) and sends the child's updates
  and permission requests under the child's session id; the child is a lane of the parent, its
  questions are answered in the parent's tab, the files come out, nothing is drawn as unknown.
- Its tool calls carry `ToolCall.name`; its frames are within the current schema (no mark), and
  `check` would say they need its unstable part; its `_auth/status_update` is the account shown.
- acp-tui asks for notices, so a warning of its (an MCP server that fails to start) comes as a
  `notice`, not as a bold line of its answer.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from acp_tui.protocol.schema_fit import SchemaLevel
from acp_tui.thread.entries import MessageEntry, ToolCallEntry, UnknownEntry
from acp_tui.thread.subagent_sessions import SubagentLaneEntry
from tests.interop.agents import InteropAgent
from tests.interop.conftest import NOTES, start_fake_llm
from tests.interop.session_driver import InteropUi, permission_answerer, wait_turn_end

NEW = InteropAgent(
    "claude-agent-acp-new", "npm/claudeagentacp-new/node_modules/.bin/claude-agent-acp"
)
TURN_SECONDS = 240.0


def new_agent() -> InteropAgent:
    if not NEW.installed:
        pytest.skip("claude-agent-acp-new is not installed (run the interop kit's setup.sh)")
    return NEW


async def one_turn(kit: Path, workdir: Path, tmp_path: Path, *options: str) -> AgentSession:
    """A session of the newest Claude agent in Manual mode (it asks permission), after one turn
    whose questions were all allowed once; closed by the caller."""
    agent = new_agent()
    async with start_fake_llm(kit, workdir, tmp_path / "llm.jsonl", *options) as llm:
        session = AgentSession(
            [str(kit / "agent.sh"), agent.name],
            workdir,
            InteropUi(None),
            env_extra={**llm.env, **agent.env()},
            settings=Settings(hold_writes=HoldWrites.NEVER),
        )
        answered: list[str] = []
        session.permissions.subscribe(permission_answerer(answered))
        try:
            assert await session.start(), session.error or session.crash
            assert await session.set_mode("default") is None  # Manual: it asks
            assert session.submit("Please do the task.") is None
            assert await wait_turn_end(session, TURN_SECONDS) == "end_turn"
        except BaseException:
            await session.close()
            raise
        assert answered, "the agent asked nothing"
        return session


async def test_a_subagent_session_with_its_questions_answered_in_the_parents_tab(
    kit: Path, workdir: Path, tmp_path: Path
) -> None:
    session = await one_turn(kit, workdir, tmp_path, "--task")
    try:
        thread = session.thread
        (lane,) = [e for e in thread.entries if isinstance(e, SubagentLaneEntry)]
        child = lane.child
        assert child.title == "Do the file task"
        assert child.state is not None and child.state.state == "idle" and not child.running
        calls = [e for e in child.thread.entries if isinstance(e, ToolCallEntry)]
        assert {call.name for call in calls} >= {"Write", "Edit"}
        assert all(call.status == "completed" for call in calls)
        # its questions were asked (and answered) here, each card named after the child
        asked = [call for key, call in thread.tool_calls.items() if " ▸ " in key]
        assert asked and all(call.title.startswith("Do the file task ▸ ") for call in asked)
        assert all(call.permissions and not call.open_permission for call in asked)
        assert all(call.status == "completed" for call in asked)
        assert (workdir / "hello.txt").exists()
        assert (workdir / "notes.txt").read_text() == NOTES.replace("old line", "new line")
        assert not any(isinstance(e, UnknownEntry) for e in thread.entries)
        assert not any(isinstance(e, UnknownEntry) for e in child.thread.entries)
        store = session.traffic_store
        assert store.mark_counts.total() == 0, [str(m) for f in store.marked() for m in f.marks]
        assert store.schema_fit.level == SchemaLevel.V1_CURRENT_UNSTABLE
        assert {"subagent_update", "session_message"} <= store.schema_fit.needs.keys()
    finally:
        await session.close()


async def test_tool_call_names_and_no_marks_without_subagents(
    kit: Path, workdir: Path, tmp_path: Path
) -> None:
    session = await one_turn(kit, workdir, tmp_path)
    try:
        calls = list(session.thread.tool_calls.values())
        assert calls and all(call.name for call in calls)
        assert {call.name for call in calls} >= {"Write", "Read", "Edit", "Bash"}
        assert session.traffic_store.mark_counts.total() == 0
        assert not any(isinstance(e, SubagentLaneEntry) for e in session.thread.entries)
        # its `_auth/status_update` (the API key the kit gives it) is the sidebar's Account
        status = session.auth_status
        assert status is not None and status.logged_in
        assert status.accounts == ("Anthropic API key (ANTHROPIC_API_KEY)",)
    finally:
        await session.close()


async def test_under_protocol_2_no_frame_is_marked(
    kit: Path, workdir: Path, tmp_path: Path
) -> None:
    """`--protocol 2`: the agent speaks the v2 draft, and the inspector reads its frames by v2's
    rules (it marked 31 of them, read by v1's)."""
    agent = new_agent()
    async with start_fake_llm(kit, workdir, tmp_path / "llm.jsonl") as llm:
        session = AgentSession(
            [str(kit / "agent.sh"), agent.name],
            workdir,
            InteropUi(None),
            env_extra={**llm.env, **agent.env()},
            settings=Settings(hold_writes=HoldWrites.NEVER, protocol_version=2),
        )
        try:
            assert await session.start(), session.error or session.crash
            assert session.protocol_version == 2
            assert session.thread.commands  # (v2 sends them in the session/new answer)
            assert session.submit("Please do the task.") is None
            assert await wait_turn_end(session, TURN_SECONDS) == "end_turn"
            store = session.traffic_store
            assert store.mark_counts.total() == 0, [str(m) for f in store.marked() for m in f.marks]
        finally:
            await session.close()


async def test_a_subagent_session_under_protocol_2(
    kit: Path, workdir: Path, tmp_path: Path
) -> None:
    """The same hand-over under v2 (Manual: the `mode` config option): the child's lane, its
    questions asked and answered in the parent's tab, their cards following it; no mark."""
    agent = new_agent()
    async with start_fake_llm(kit, workdir, tmp_path / "llm.jsonl", "--task") as llm:
        session = AgentSession(
            [str(kit / "agent.sh"), agent.name],
            workdir,
            InteropUi(None),
            env_extra={**llm.env, **agent.env()},
            settings=Settings(hold_writes=HoldWrites.NEVER, protocol_version=2),
        )
        answered: list[str] = []
        session.permissions.subscribe(permission_answerer(answered))
        try:
            assert await session.start(), session.error or session.crash
            assert await session.set_config_option("mode", "default") is None
            assert session.submit("Please do the task.") is None
            assert await wait_turn_end(session, TURN_SECONDS) == "end_turn"
            thread = session.thread
            (lane,) = [e for e in thread.entries if isinstance(e, SubagentLaneEntry)]
            calls = [e for e in lane.child.thread.entries if isinstance(e, ToolCallEntry)]
            assert len(calls) >= 3 and all(call.status == "completed" for call in calls)
            asked = [call for key, call in thread.tool_calls.items() if " ▸ " in key]
            assert answered and asked and all(call.status == "completed" for call in asked)
            assert (workdir / "hello.txt").exists()
            assert session.traffic_store.mark_counts.total() == 0
        finally:
            await session.close()


async def test_a_notice_comes_as_a_notice_because_acp_tui_asks_for_them(
    kit: Path, workdir: Path, tmp_path: Path
) -> None:
    """claude-agent-acp 0.101 sends `notice` only to a client that advertises
    `clientCapabilities.session.notices` (else a bold line of its answer). One it sends offline:
    an MCP server acp-tui passed that fails to start ("MCP server "x" failed to start", a
    warning, once its first query reports the servers). acp-tui asks: it arrives as a notice,
    kept apart from the conversation, and no bold line of it is in the agent's text."""
    agent = new_agent()
    broken = {"name": "broken", "command": "/bin/false", "args": [], "env": []}
    async with start_fake_llm(kit, workdir, tmp_path / "llm.jsonl", "--only-text") as llm:
        session = AgentSession(
            [str(kit / "agent.sh"), agent.name],
            workdir,
            InteropUi(None),
            env_extra={**llm.env, **agent.env()},
            settings=Settings(hold_writes=HoldWrites.NEVER),
            mcp_servers=[broken],
        )
        try:
            assert await session.start(), session.error or session.crash
            assert session.submit("Say hello.") is None
            assert await wait_turn_end(session, TURN_SECONDS) == "end_turn"
            thread = session.thread
            titles = [(n.level, n.title) for n in thread.notices]
            assert ("warning", 'MCP server "broken" failed to start') in titles, titles
            said = [e for e in thread.entries if isinstance(e, MessageEntry)]
            text = " ".join(e.text for e in said if e.role == "agent")
            assert text, "its answer"
            assert "failed to start" not in text
        finally:
            await session.close()
