"""The demo agent as a real subprocess, ended early: cancel at each point, end of input, crash."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_demo_agent_harness import (
    DemoClient,
    request_frame,
    tool_statuses,
)

pytestmark = pytest.mark.timeout(60)


async def prompt_held_at(
    client: DemoClient, project: Path, method: str, text: str
) -> tuple[str, asyncio.Future[dict[str, Any]]]:
    """Open a session and send the prompt `text`; the agent's `method` request is never
    answered. Returns once the agent asked: the session id and the prompt's answer to come."""
    asked = asyncio.Event()

    async def never_answer(params: dict[str, Any]) -> dict[str, Any]:
        asked.set()
        await asyncio.Event().wait()
        raise AssertionError("unreachable")

    client.handlers[method] = never_answer
    await client.initialize()
    session_id = await client.new_session(project)
    turn = await client.start_request(
        "session/prompt", {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    )
    await asyncio.wait_for(asked.wait(), 10)
    return session_id, turn


async def test_cancel_while_permission_pending_ends_turn_cancelled(project: Path):
    async with DemoClient.spawn() as client:
        asked = asyncio.Event()
        release = asyncio.Event()

        async def hold(params: dict[str, Any]) -> dict[str, Any]:
            asked.set()
            await release.wait()
            return {"outcome": {"outcome": "cancelled"}}

        client.handlers["session/request_permission"] = hold
        await client.initialize()
        session_id = await client.new_session(project)
        turn = await client.start_request(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": "/edit"}]},
        )
        await asyncio.wait_for(asked.wait(), 10)
        await client.notify("session/cancel", {"sessionId": session_id})
        release.set()  # like a real client: answer the pending permission "cancelled"
        answer = await asyncio.wait_for(turn, 10)
        assert answer["result"] == {"stopReason": "cancelled"}
        edit_id = client.updates("tool_call")[-1]["toolCallId"]
        assert tool_statuses(client)[edit_id][-1] == "failed"
        assert client.writes == []
        # the session still works afterwards
        again = await client.prompt(session_id, "/help")
        assert again["result"]["stopReason"] == "end_turn"


async def test_cancel_during_a_client_request_cancels_it_too(project: Path):
    async with DemoClient.spawn() as client:
        session_id, turn = await prompt_held_at(client, project, "fs/read_text_file", "tour")
        await client.notify("session/cancel", {"sessionId": session_id})
        answer = await asyncio.wait_for(turn, 10)
        assert answer["result"] == {"stopReason": "cancelled"}
        read_request = client.requests("fs/read_text_file")[0]
        cancel = await client.wait_for(lambda f: f.get("method") == "$/cancel_request")
        assert cancel["params"]["requestId"] == read_request["id"]
        read_id = client.updates("tool_call")[-1]["toolCallId"]
        assert tool_statuses(client)[read_id] == ["in_progress", "failed"]
        assert client.requests("terminal/create") == []  # it stopped there


async def test_cancel_while_terminal_runs_releases_the_terminal(project: Path):
    async with DemoClient.spawn() as client:
        session_id, turn = await prompt_held_at(
            client, project, "terminal/wait_for_exit", "/terminal"
        )
        await client.notify("session/cancel", {"sessionId": session_id})
        answer = await asyncio.wait_for(turn, 10)
        assert answer["result"] == {"stopReason": "cancelled"}
        release = await client.wait_for(request_frame("terminal/release"))
        assert release["params"] == {"sessionId": session_id, "terminalId": "term-1"}
        execute_id = client.updates("tool_call")[-1]["toolCallId"]
        assert tool_statuses(client)[execute_id] == ["pending", "in_progress", "failed"]


async def test_cancel_request_for_a_prompt_cancels_the_turn(project: Path):
    async with DemoClient.spawn() as client:
        session_id, turn = await prompt_held_at(
            client, project, "session/request_permission", "/edit"
        )
        busy = await client.prompt(session_id, "/help")  # one turn at a time
        assert busy["error"]["code"] == -32600
        await client.notify("$/cancel_request", {"requestId": client._next_id - 1})
        answer = await asyncio.wait_for(turn, 10)
        assert answer["result"] == {"stopReason": "cancelled"}


async def test_end_of_input_mid_turn_exits_cleanly(project: Path):
    async with DemoClient.spawn() as client:
        await prompt_held_at(client, project, "session/request_permission", "/edit")
        assert client.process.stdin is not None
        client.process.stdin.close()
        assert await asyncio.wait_for(client.process.wait(), 10) == 0
        await asyncio.wait_for(client._stderr_reader, 10)
        assert b"Traceback" not in client.stderr, client.stderr.decode()


async def test_crash_exits_with_code_3_mid_stream(project: Path):
    async with DemoClient.spawn() as client:
        await client.initialize()
        session_id = await client.new_session(project)
        turn = await client.start_request(
            "session/prompt",
            {"sessionId": session_id, "prompt": [{"type": "text", "text": "/crash"}]},
        )
        assert await asyncio.wait_for(client.process.wait(), 10) == 3
        await asyncio.wait_for(client._stderr_reader, 10)
        assert b"crashed on purpose" in client.stderr
        assert client.updates("agent_message_chunk")  # it was mid-answer
        assert not turn.done()  # the prompt is never answered
