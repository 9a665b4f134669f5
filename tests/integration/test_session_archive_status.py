"""Earlier sessions with the current schema: archived ones listed only when asked for
(`session/list` `archived`), archived and unarchived (`session/archive`, `session/unarchive`),
and whether each is still open (`session/status`, no side effect) where the agent offers it."""

from __future__ import annotations

from pathlib import Path

import pytest

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.history import archive_session, list_sessions
from acp_tui.config import HoldWrites, Settings
from bench.headless import HeadlessUi
from tests.agents.scenarios import initialize_ok, new_session_ok, write_scenario

pytestmark = pytest.mark.timeout(60)


async def test_archive_filter_status_and_archiving(tmp_path: Path) -> None:
    listed = [
        {"sessionId": "a", "cwd": str(tmp_path), "title": "kept"},
        {"sessionId": "b", "cwd": str(tmp_path), "title": "old", "archived": True},
    ]
    agent = write_scenario(tmp_path, [
        initialize_ok(sessionCapabilities={"list": {}, "archive": {}, "status": {}}),
        new_session_ok(),
        {"expect": "session/list", "match": {"archived": "include"},
         "respond": {"sessions": listed}},
        {"expect": "session/status", "match": {"sessionId": "a"}, "respond": {"status": "open"}},
        {"expect": "session/status", "match": {"sessionId": "b"}, "respond": {"status": "saved"}},
        {"expect": "session/archive", "match": {"sessionId": "a"}, "respond": {}},
        {"expect": "session/unarchive", "match": {"sessionId": "b"}, "respond": {}},
    ])  # fmt: skip
    settings = Settings(hold_writes=HoldWrites.NEVER)
    session = AgentSession(agent.argv, tmp_path, HeadlessUi(), settings=settings)
    try:
        assert await session.start(), session.error
        page = await list_sessions(session, archived=True)
        assert page.error is None
        assert [(s.id, s.archived, s.status) for s in page.sessions] == [
            ("a", False, "open"), ("b", True, "saved")
        ]  # fmt: skip
        assert await archive_session(session, "a") is None
        assert await archive_session(session, "b", archived=False) is None
    finally:
        await session.close()
    assert [f["method"] for f in agent.transcript() if "method" in f][2:] == [
        "session/list", "session/status", "session/status", "session/archive",
        "session/unarchive",
    ]  # fmt: skip


async def test_an_agent_without_them_is_asked_nothing_new(tmp_path: Path) -> None:
    agent = write_scenario(tmp_path, [
        initialize_ok(sessionCapabilities={"list": {}}),
        new_session_ok(),
        {"expect": "session/list", "respond": {"sessions": [{"sessionId": "a", "cwd": "/w"}]}},
    ])  # fmt: skip
    settings = Settings(hold_writes=HoldWrites.NEVER)
    session = AgentSession(agent.argv, tmp_path, HeadlessUi(), settings=settings)
    try:
        assert await session.start(), session.error
        page = await list_sessions(session, archived=True)
        assert [(s.id, s.status) for s in page.sessions] == [("a", None)]
        assert await archive_session(session, "a") is not None  # not offered: said, not sent
    finally:
        await session.close()
    (listing,) = agent.received("session/list")
    assert "archived" not in listing["params"]
    assert not agent.received("session/status") and not agent.received("session/archive")
