"""The Connection against the scripted scenario agent over real pipes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from acp_tui.protocol.errors import RpcError
from tests.agents.scenarios import (
    agent_text,
    client_request,
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    stream_text,
    write_scenario,
)

INITIALIZE = {
    "protocolVersion": 1,
    "clientCapabilities": {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": False},
}


def prompt_params(session_id: str, text: str = "hi") -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


def collect_text(into: list[str], done_marker: str | None = None, event=None):
    def on_update(params: Any) -> None:
        update = params["update"]
        if update["sessionUpdate"] == "agent_message_chunk":
            into.append(update["content"]["text"])
        if event is not None and done_marker is not None and "".join(into).endswith(done_marker):
            event.set()

    return on_update


async def test_prompt_turn_with_streaming_and_a_file_read(spawn_agent, tmp_path) -> None:
    sid = "sess-42"
    steps = [
        initialize_ok(loadSession=True),
        new_session_ok(sid),
        expect_prompt(),
        agent_text("$session_id", "Reading "),
        client_request("fs/read_text_file", {"sessionId": sid, "path": "/w/a.py"}, "read"),
        stream_text(sid, "the file says hello, world", chunk=4),
        client_request("fs/read_text_file", {"sessionId": sid, "path": "/w/missing"}, "read2"),
        end_turn(),
    ]
    agent = write_scenario(tmp_path, steps)
    texts: list[str] = []
    reads: list[Any] = []

    async def read_text_file(params: Any) -> Any:
        reads.append(params)
        if params["path"].endswith("missing"):
            raise RpcError(-32002, "Resource not found", {"path": params["path"]})
        return {"content": "print('hello')\n"}

    process, conn = await spawn_agent(
        agent.argv,
        request_handlers={"fs/read_text_file": read_text_file},
        notification_handlers={"session/update": collect_text(texts)},
    )
    await asyncio.wait_for(conn.request("initialize", INITIALIZE), 10)
    session = await conn.request("session/new", {"cwd": str(tmp_path), "mcpServers": []})
    assert session == {"sessionId": sid}
    result = await asyncio.wait_for(conn.request("session/prompt", prompt_params(sid)), 10)
    assert result == {"stopReason": "end_turn"}
    await conn.close()
    await process.shutdown(grace=5.0)
    # every notification sent before the response was delivered, in order
    assert "".join(texts) == "Reading the file says hello, world"
    assert texts[1:] == ["the ", "file", " say", "s he", "llo,", " wor", "ld"]
    assert [r["path"] for r in reads] == ["/w/a.py", "/w/missing"]
    answers = [f for f in agent.transcript() if "method" not in f]
    assert answers[0] == {"jsonrpc": "2.0", "id": 0, "result": {"content": "print('hello')\n"}}
    assert answers[1]["id"] == 1 and answers[1]["error"]["code"] == -32002


async def test_session_cancel_ends_the_turn(spawn_agent, tmp_path) -> None:
    steps = [
        initialize_ok(),
        new_session_ok("s"),
        expect_prompt(),
        agent_text("s", "working..."),
        {"wait_cancel": True},
        end_turn(stop_reason="cancelled"),
    ]
    agent = write_scenario(tmp_path, steps)
    texts: list[str] = []
    started = asyncio.Event()
    _, conn = await spawn_agent(
        agent.argv,
        notification_handlers={"session/update": collect_text(texts, "working...", started)},
    )
    await conn.request("initialize", INITIALIZE)
    await conn.request("session/new", {"cwd": str(tmp_path), "mcpServers": []})
    turn = asyncio.create_task(conn.request("session/prompt", prompt_params("s")))
    await asyncio.wait_for(started.wait(), 10)
    await conn.notify("session/cancel", {"sessionId": "s"})
    assert await asyncio.wait_for(turn, 10) == {"stopReason": "cancelled"}


async def test_cancelled_call_sends_cancel_request(spawn_agent, tmp_path) -> None:
    steps = [
        initialize_ok(),
        {"expect": "session/prompt", "save_as": "p"},
        agent_text("s", "got it"),
        {"wait_notify": "$/cancel_request"},
        {"respond_to": "p", "error": {"code": -32800, "message": "cancelled"}},
        agent_text("s", "done"),
    ]
    agent = write_scenario(tmp_path, steps)
    texts: list[str] = []
    prompt_seen, done = asyncio.Event(), asyncio.Event()

    def on_update(params: Any) -> None:
        texts.append(params["update"]["content"]["text"])
        (prompt_seen if texts[-1] == "got it" else done).set()

    _, conn = await spawn_agent(agent.argv, notification_handlers={"session/update": on_update})
    await conn.request("initialize", INITIALIZE)
    turn = asyncio.create_task(conn.request("session/prompt", prompt_params("s")))
    await asyncio.wait_for(prompt_seen.wait(), 10)
    turn.cancel()
    with pytest.raises(asyncio.CancelledError):
        await turn
    await asyncio.wait_for(done.wait(), 10)
    prompt_id = agent.received("session/prompt")[0]["id"]
    cancels = agent.received("$/cancel_request")
    assert [c["params"] for c in cancels] == [{"requestId": prompt_id}]


async def test_agent_ids_garbage_and_unknown_methods(spawn_agent, tmp_path) -> None:
    steps: list[dict[str, Any]] = [
        {"raw": "this is not json\n"},
        {"raw": '{"jsonrpc":"2.0","method":"session/update","params":{}}\n'},
        {
            "request": "fs/read_text_file",
            "id": "str-id",
            "params": {"sessionId": "s", "path": "/x"},
        },
        {"request": "fs/read_text_file", "id": -1, "params": {"sessionId": "s", "path": "/y"}},
        {"request": "x/unknown_extension", "params": {}, "save_as": "unknown"},
        initialize_ok(),
    ]
    agent = write_scenario(tmp_path, steps)

    async def read_text_file(params: Any) -> Any:
        return {"content": params["path"]}

    _, conn = await spawn_agent(agent.argv, request_handlers={"fs/read_text_file": read_text_file})
    await asyncio.wait_for(conn.request("initialize", INITIALIZE), 10)
    answers = {f["id"]: f for f in agent.transcript() if "method" not in f}
    assert answers["str-id"]["result"] == {"content": "/x"}
    assert answers[-1]["result"] == {"content": "/y"}
    assert answers[0]["error"]["code"] == -32601
    assert answers[0]["error"]["data"] == {"method": "x/unknown_extension"}


async def test_paced_stream_arrives_whole_and_in_order(spawn_agent, tmp_path) -> None:
    text = "".join(f"{n:03d}" for n in range(40))
    steps = [initialize_ok(), stream_text("s", text, chunk=3, rate=2000), agent_text("s", "!")]
    agent = write_scenario(tmp_path, steps)
    texts: list[str] = []
    done = asyncio.Event()
    _, conn = await spawn_agent(
        agent.argv, notification_handlers={"session/update": collect_text(texts, "!", done)}
    )
    await conn.request("initialize", INITIALIZE)
    await asyncio.wait_for(done.wait(), 10)
    assert texts == [f"{n:03d}" for n in range(40)] + ["!"]


async def test_scenario_timeout_exits_with_code_97(spawn_agent, tmp_path) -> None:
    agent = write_scenario(tmp_path, [{"expect": "session/new", "timeout": 0.2}])
    process, conn = await spawn_agent(agent.argv)
    await conn.notify("session/cancel", {"sessionId": "s"})  # not what it expects
    exit_ = await asyncio.wait_for(process.wait(), 10)
    assert exit_.returncode == 97
    assert "timed out after 0.2s waiting for request 'session/new'" in process.stderr_tail()[-1]
    assert agent.received("session/cancel")[0]["params"] == {"sessionId": "s"}
