"""The demo agent never crashes on odd input: random frames in, only valid JSON-RPC out."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from acp_tui.demo.agent import DemoAgent

METHODS = [
    "initialize",
    "authenticate",
    "session/new",
    "session/load",
    "session/set_mode",
    "session/prompt",
    "session/cancel",
    "$/cancel_request",
    "session/list",
    "x",
]
ERROR_CODES = {-32700, -32600, -32601, -32602, -32603, -32000, -32800}

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
params = st.one_of(
    json_values,
    st.fixed_dictionaries(
        {},
        optional={
            "sessionId": st.sampled_from(["", "demo-x", "s"]) | json_values,
            "cwd": st.sampled_from(["/tmp", ""]) | json_values,
            "modeId": st.sampled_from(["ask", "code", "nope"]),
            "methodId": st.sampled_from(["demo-login", "other"]),
            "prompt": st.lists(
                st.fixed_dictionaries(
                    {"type": st.just("text"), "text": st.sampled_from(["/help", "/x"])}
                )
            ),
            "requestId": json_values,
        },
    ),
)
frames = st.one_of(
    st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0"), "method": st.sampled_from(METHODS)},
        optional={"id": json_values, "params": params},
    ).map(json.dumps),
    json_values.map(json.dumps),
    st.text(max_size=20),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(frames, min_size=1, max_size=8))
def test_random_frames_only_get_valid_json_rpc_answers(lines: list[str]) -> None:
    asyncio.run(_feed(lines))


async def _feed(lines: list[str]) -> None:
    written: list[dict[str, Any]] = []
    failures: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _, context: failures.append(context))

    async def write(data: bytes) -> None:
        for line in data.decode().splitlines():
            written.append(json.loads(line))

    agent = DemoAgent(write, speed=0)
    for line in lines:
        agent.feed(line.encode())  # must not raise, whatever the line
    tasks = set(agent._tasks)
    if tasks:  # turns may wait for a client that never answers: give them a moment, then stop
        await asyncio.wait(tasks, timeout=0.5)
    for task in list(agent._tasks):
        task.cancel()
    await asyncio.gather(*agent._tasks, return_exceptions=True)
    for task in tasks:
        if task.done() and not task.cancelled():
            assert task.exception() is None, task.exception()
    assert not failures, failures
    for frame in written:
        assert frame["jsonrpc"] == "2.0"
        if "error" in frame:
            assert frame["error"]["code"] in ERROR_CODES, frame
            assert isinstance(frame["error"]["message"], str)
