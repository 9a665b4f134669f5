"""An agent started (and sent `initialize`) before the session exists is adopted by it."""

from __future__ import annotations

import asyncio
import contextvars
import json

from acp_tui.client.events import SessionState
from acp_tui.client.prestart import prestart, quick_agent_env
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.sandbox.policy import SandboxPolicy
from acp_tui.thread.thread_changes import TurnStateChanged
from bench.headless import HeadlessUi
from tests.agents.scenarios import (
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    update,
    write_scenario,
)
from tests.sandboxes import default_sandbox, needs_landlock


async def test_session_adopts_the_early_agent_and_its_initialize(tmp_path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok("early")])
    early = await prestart(
        agent.argv, str(tmp_path), {}, sandbox=default_sandbox(agent.argv, tmp_path)
    )
    assert early is not None
    log = tmp_path / "traffic.jsonl"
    session = AgentSession(agent.argv, tmp_path, HeadlessUi(), log_path=log, prestarted=early)
    seen: list[TrafficEvent] = []
    session.traffic.subscribe(seen.append)
    try:
        assert await session.start()
        assert session.state is SessionState.READY and session.session_id == "early"
        assert session._process is early.process  # the same process, not a second one
        # one initialize was sent, and the frames from before the session are not lost
        assert [f["method"] for f in agent.transcript()] == ["initialize", "session/new"]
        methods = [json.loads(e.raw).get("method") for e in seen if e.direction == "out"]
        assert methods == ["initialize", "session/new"]
    finally:
        await session.close()
    frames = [json.loads(line)["frame"] for line in log.read_text().splitlines()]
    assert [f.get("method") for f in frames if "method" in f] == ["initialize", "session/new"]
    assert early.process.exit is not None


async def test_a_different_environment_discards_the_early_agent(tmp_path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok("own")])
    early = await prestart(
        agent.argv, str(tmp_path), {"GUESSED": "1"}, sandbox=default_sandbox(agent.argv, tmp_path)
    )
    assert early is not None
    session = AgentSession(agent.argv, tmp_path, HeadlessUi(), prestarted=early)
    try:
        assert await session.start()
        assert session._process is not early.process
        assert early.process.exit is not None  # the early agent was shut down
        assert session.session_id == "own"
    finally:
        await session.close()


async def test_closing_before_start_stops_the_early_agent(tmp_path) -> None:
    agent = write_scenario(tmp_path, [initialize_ok()])
    early = await prestart(
        agent.argv, str(tmp_path), {}, sandbox=default_sandbox(agent.argv, tmp_path)
    )
    assert early is not None
    session = AgentSession(agent.argv, tmp_path, HeadlessUi(), prestarted=early)
    await session.close()
    assert early.process.exit is not None


async def test_an_agent_that_cannot_start_is_left_to_the_session(tmp_path) -> None:
    assert await prestart([str(tmp_path / "missing")], str(tmp_path), {}) is None


def test_quick_agent_env_reads_the_file_and_the_variable(tmp_path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[agent_env]\nA = "1"\n')
    assert quick_agent_env({"ACP_TUI_CONFIG": str(config)}) == {"A": "1"}
    variable = {"ACP_TUI_CONFIG": str(config), "ACP_TUI_AGENT_ENV": '{"B": "2"}'}
    assert quick_agent_env(variable) == {"B": "2"}
    config.write_text("agent_env = 3\n")
    assert quick_agent_env({"ACP_TUI_CONFIG": str(config)}) == {}


WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="prestart")


async def test_the_adopted_agent_is_served_in_the_session_context(tmp_path) -> None:
    """The early agent's connection was started before the app existed; once adopted, its
    notifications reach the session's listeners in the session's context (the UI needs its
    app there: widgets mounted from a listener look it up in the context)."""
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}
    agent = write_scenario(
        tmp_path,
        [
            initialize_ok(),
            new_session_ok("early"),
            expect_prompt(),
            update("early", chunk),
            end_turn(),
        ],
    )
    early = await prestart(
        agent.argv, str(tmp_path), {}, sandbox=default_sandbox(agent.argv, tmp_path)
    )
    assert early is not None

    async def as_the_session() -> list[str]:
        WHO.set("session")
        session = AgentSession(agent.argv, tmp_path, HeadlessUi(), prestarted=early)
        seen: list[str] = []
        ended = asyncio.Event()

        def listener(change: object) -> None:
            seen.append(WHO.get())
            if isinstance(change, TurnStateChanged) and not change.running:
                ended.set()

        session.thread.subscribe(listener)
        try:
            assert await session.start()
            session.submit("hello")
            await asyncio.wait_for(ended.wait(), 15)
        finally:
            await session.close()
        return seen

    seen = await asyncio.create_task(as_the_session(), name="session")
    assert seen and set(seen) == {"session"}


@needs_landlock
async def test_an_early_agent_in_another_sandbox_is_discarded(tmp_path) -> None:
    """The quick guess of the settings started the agent unconfined; the session's settings
    ask for the default sandbox: the early agent is not adopted."""
    agent = write_scenario(tmp_path, [initialize_ok(), new_session_ok("own")])
    early = await prestart(agent.argv, str(tmp_path), {}, sandbox=SandboxPolicy(SandboxMode.OFF))
    assert early is not None
    session = AgentSession(agent.argv, tmp_path, HeadlessUi(), prestarted=early)
    try:
        assert await session.start()
        assert session._process is not early.process
        assert early.process.exit is not None
        assert session.sandbox is not None and session.sandbox.active
    finally:
        await session.close()
