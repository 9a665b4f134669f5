"""Each client capability acp-tui offers is one it implements: an agent that sends a feature
only to a client that asked (`tests/agents/capability_agent.py`, as the schema says an agent
must) sends it to acp-tui, and acp-tui shows it for what it is."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from acp_tui.thread import thread_changes as ch
from acp_tui.thread.entries import MessageEntry, UnknownEntry
from acp_tui.thread.subagent_sessions import SubagentLaneEntry
from bench.headless import HeadlessUi

pytestmark = pytest.mark.timeout(60)

AGENT = Path(__file__).resolve().parents[1] / "agents" / "capability_agent.py"


@asynccontextmanager
async def one_turn(tmp_path: Path, feature: str) -> AsyncIterator[AgentSession]:
    """A session with the capability agent sending `feature`, after one prompt's turn."""
    session = AgentSession(
        [sys.executable, str(AGENT), feature],
        tmp_path,
        HeadlessUi(),
        settings=Settings(hold_writes=HoldWrites.NEVER),
    )
    ended = asyncio.Event()
    session.thread.subscribe(
        lambda change: (
            ended.set() if isinstance(change, ch.TurnStateChanged) and not change.running else None
        )
    )
    try:
        assert await session.start(), session.error
        assert session.submit("show it") is None
        async with asyncio.timeout(30):
            await ended.wait()
        yield session
    finally:
        await session.close()


def texts(session: AgentSession) -> str:
    return "".join(e.text for e in session.thread.entries if isinstance(e, MessageEntry))


def unknown(session: AgentSession) -> list[UnknownEntry]:
    return [e for e in session.thread.entries if isinstance(e, UnknownEntry)]


async def test_notices_are_asked_for_and_shown_as_notices(tmp_path: Path) -> None:
    """claude-agent-acp 0.101 sends its warnings as `notice` only to a client that asks
    (`session.notices`); acp-tui shows notices apart from the conversation."""
    async with one_turn(tmp_path, "notices") as session:
        assert "not asked" not in texts(session)
        assert [(n.severity, n.title) for n in session.thread.notices] == [
            ("warning", "Rate limit near")
        ]
        assert unknown(session) == []


async def test_compaction_is_asked_for_and_shown_as_a_compaction(tmp_path: Path) -> None:
    async with one_turn(tmp_path, "compaction") as session:
        assert "not asked" not in texts(session)
        (compaction,) = session.thread.compactions.values()
        assert compaction.status == "completed"
        assert unknown(session) == []


async def test_plans_are_asked_for_and_kept_by_id(tmp_path: Path) -> None:
    async with one_turn(tmp_path, "plans") as session:
        assert "not asked" not in texts(session)
        assert list(session.thread.plans) == ["p1"]
        assert unknown(session) == []


async def test_subagent_sessions_are_asked_for_and_drawn_as_lanes(tmp_path: Path) -> None:
    """claude-agent-acp 0.101 replaces its Agent tool call with a subagent session only for a
    client that asks (`subagents`); the child's own traffic, under its session id, is its
    lane's, not the parent's."""
    async with one_turn(tmp_path, "subagents") as session:
        assert "not asked" not in texts(session)
        (lane,) = [e for e in session.thread.entries if isinstance(e, SubagentLaneEntry)]
        child = lane.child
        assert child.title == "Explore" and child.state is not None
        assert child.state.state == "idle" and not child.running
        assert [e.text for e in child.thread.entries if isinstance(e, MessageEntry)] == [
            "the child looked around"
        ]
        assert "the child looked around" not in texts(session)
        assert unknown(session) == []
        # a child is never opened on its own (nor prompted, loaded, resumed or closed)
        assert not await session.open_existing(child.session_id, resume=False)
        assert session.thread.entries and session.session_id == "cap-1"
        sent = [f.method for f in session.traffic_store.frames if f.direction == "out"]
        assert sent == ["initialize", "session/new", "session/prompt"]
