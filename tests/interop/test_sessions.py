"""Sessions and settings against real agents (client core, no UI): a config option changed and
acknowledged, `--continue` finding the last session, continuing from a message (session/fork
from the latest one, a new session carrying the conversation from an earlier one)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from acp_tui.client import message_fork
from acp_tui.client.session import history as session_history
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.client.session.config import set_config_option
from acp_tui.client.session.history import OpenRequest
from acp_tui.config import HoldWrites, Settings
from acp_tui.protocol.models import SessionConfigSelect
from acp_tui.thread.config_options import option_by_id
from acp_tui.thread.entries import MessageEntry
from tests.interop.conftest import FakeLlm, agent_for
from tests.interop.session_driver import InteropUi, Wire, permission_answerer, wait_turn_end

TURN_SECONDS = 240.0


@asynccontextmanager
async def session_of(
    name: str, kit: Path, workdir: Path, fake_llm: FakeLlm
) -> AsyncIterator[tuple[AgentSession, Wire]]:
    agent = agent_for(name)
    session = AgentSession(
        [str(kit / "agent.sh"), name],
        workdir,
        InteropUi(agent.auth),
        env_extra={**fake_llm.env, **agent.env()},
        settings=Settings(hold_writes=HoldWrites.NEVER),
        sandbox=agent.sandbox(),
    )
    wire = Wire()
    session.traffic.subscribe(wire.tap)
    session.permissions.subscribe(permission_answerer([]))
    try:
        yield session, wire
    finally:
        await session.close()
        print(f"--- {name}: the wire ---\n{wire.summary()}")


async def one_turn(session: AgentSession, mode: str | None) -> None:
    if mode is not None and session.thread.current_mode_id != mode:
        assert await session.set_mode(mode) is None
    session.submit("Please do the task.")
    assert await wait_turn_end(session, TURN_SECONDS) == "end_turn"


async def test_codex_reasoning_effort_is_changed_and_acknowledged(
    kit: Path, workdir: Path, fake_llm: FakeLlm
) -> None:
    async with session_of("codex", kit, workdir, fake_llm) as (session, _wire):
        assert await session.start(), session.error
        effort = option_by_id(session.thread.config_options, "reasoning_effort")
        assert isinstance(effort, SessionConfigSelect) and effort.category == "thought_level"
        other = next(c.value for c in effort.flat_options() if c.value != effort.current_value)
        assert await set_config_option(session, "reasoning_effort", other) is None
        changed = option_by_id(session.thread.config_options, "reasoning_effort")
        assert changed is not None and changed.current_value == other, "the agent's answer"


async def test_opencode_forks_from_the_latest_message_and_goes_on(
    kit: Path, workdir: Path, fake_llm: FakeLlm
) -> None:
    async with session_of("opencode", kit, workdir, fake_llm) as (session, wire):
        assert await session.start(), session.error
        first = session.session_id
        await one_turn(session, None)
        latest = message_fork.messages(session.thread.entries)[0]
        outcome = await message_fork.continue_from(session, latest.id)
        assert isinstance(outcome, message_fork.Forked), outcome
        assert outcome.how == "fork" and outcome.session_id != first
        assert latest in session.thread.entries, "the conversation stays"
        await one_turn(session, None)
        prompts = [f for d, f in wire.frames if d == "out" and f.get("method") == "session/prompt"]
        assert prompts[-1]["params"]["sessionId"] == outcome.session_id


@pytest.mark.parametrize(("name", "mode"), [("codex", "full-access"), ("gemini", None)])
async def test_an_earlier_message_starts_a_new_session_with_the_conversation(
    name: str, mode: str | None, kit: Path, workdir: Path, fake_llm: FakeLlm
) -> None:
    async with session_of(name, kit, workdir, fake_llm) as (session, wire):
        assert await session.start(), session.error
        await one_turn(session, mode)
        earliest = message_fork.messages(session.thread.entries)[-1]
        assert earliest.role == "user"
        outcome = await message_fork.continue_from(session, earliest.id)
        assert isinstance(outcome, message_fork.Forked), outcome
        assert outcome.how == "context" and not outcome.problems, outcome
        assert session.thread.current_mode_id == (mode or session.thread.current_mode_id)
        await one_turn(session, None)
        prompt = [f for d, f in wire.frames if d == "out" and f.get("method") == "session/prompt"]
        blocks = prompt[-1]["params"]["prompt"]
        carried = [b for b in blocks if b["type"] == "resource"]
        assert carried and "Please do the task." in carried[0]["resource"]["text"]


async def replayed(session: AgentSession, text: str, seconds: float = 30.0) -> None:
    """Wait until a message of the conversation holds `text`."""

    def shown() -> bool:
        entries = session.thread.entries
        return any(isinstance(e, MessageEntry) and text in e.text for e in entries)

    changed = asyncio.Event()
    unsubscribe = session.thread.subscribe(lambda _change: changed.set())
    try:
        async with asyncio.timeout(seconds):
            while not shown():
                await changed.wait()
                changed.clear()
    finally:
        unsubscribe()


async def past_the_minute(started: datetime) -> None:
    """Wait for the clock to reach the minute after `started` (Gemini CLI, below)."""
    next_minute = started.replace(second=0, microsecond=0) + timedelta(minutes=1)
    await asyncio.sleep(max(0.0, (next_minute - datetime.now(UTC)).total_seconds()) + 0.05)
    assert datetime.now(UTC) >= next_minute  # (the condition is the clock itself)


# Gemini CLI 0.61 names a chat file by the UTC minute its recording started and the first 8
# characters of the session id (~/.gemini/tmp/<project>/chats/session-2026-11-23T07-45-dea42311
# .jsonl). Its session/load first starts a fresh recording for that same id, and only then looks
# the session up: in the minute the session was created that is the same file name, so the fresh
# record (header + `$set messages` with only the context) is appended to the session's own file,
# the conversation in it is replaced, and the lookup answers "No previous sessions found for this
# project" (the turn is lost for later loads too). From a terminal a user is rarely that quick; a
# test is, so for Gemini the second start waits for the next minute.
@pytest.mark.parametrize("name", ["opencode", "codex", "gemini"])
async def test_continue_opens_the_last_session(
    name: str, kit: Path, workdir: Path, fake_llm: FakeLlm
) -> None:
    mode = agent_for(name).mode
    async with session_of(name, kit, workdir, fake_llm) as (session, _wire):
        assert await session.start(), session.error
        created = datetime.now(UTC)  # the chat file's minute is at most this one
        await one_turn(session, mode)
        first = session.session_id
        session_history.remember(session)  # (for an agent that cannot list)
    if name == "gemini":
        await past_the_minute(created)
    async with session_of(name, kit, workdir, fake_llm) as (session, wire):
        assert await session_history.start(session, OpenRequest(continue_last=True))
        assert session.session_id == first
        opened = [f["method"] for d, f in wire.frames if d == "out" and "method" in f]
        assert "session/new" not in opened
        if "session/load" in opened:  # a load replays the conversation
            # (Gemini CLI streams it after its answer: its loadSession does not await the replay)
            await replayed(session, "Please do the task.")
