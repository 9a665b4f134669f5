"""Connection over a real socketpair: requests, responses, notifications, errors, ids."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel

from acp_tui.protocol.connection import Connection
from acp_tui.protocol.errors import RpcError

from .test_connection_helpers import RawPeer, socket_pair, wait_for


@pytest.fixture
async def pair():
    conn, peer = await socket_pair()
    conn.start()
    yield conn, peer
    await conn.close()
    peer.writer.close()


async def test_request_gets_its_result(pair: tuple[Connection, RawPeer]) -> None:
    conn, peer = pair
    task = asyncio.create_task(conn.request("session/new", {"cwd": "/"}))
    frame = await peer.recv()
    assert frame == {"jsonrpc": "2.0", "id": 0, "method": "session/new", "params": {"cwd": "/"}}
    await peer.send({"jsonrpc": "2.0", "id": 0, "result": {"sessionId": "s1"}})
    assert await asyncio.wait_for(task, 5) == {"sessionId": "s1"}


async def test_request_without_params_omits_them(pair: tuple[Connection, RawPeer]) -> None:
    conn, peer = pair
    task = asyncio.create_task(conn.request("logout"))
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 0, "method": "logout"}
    await peer.send({"jsonrpc": "2.0", "id": 0, "result": None})
    assert await asyncio.wait_for(task, 5) is None


async def test_concurrent_requests_resolved_out_of_order(pair) -> None:
    conn, peer = pair
    tasks = [asyncio.create_task(conn.request("m", {"n": n})) for n in range(3)]
    frames = [await peer.recv() for _ in range(3)]
    assert sorted(f["id"] for f in frames) == [0, 1, 2]
    for frame in reversed(frames):
        await peer.send({"jsonrpc": "2.0", "id": frame["id"], "result": frame["params"]["n"] * 10})
    assert await asyncio.wait_for(asyncio.gather(*tasks), 5) == [0, 10, 20]


async def test_error_response_raises_rpc_error(pair) -> None:
    conn, peer = pair
    task = asyncio.create_task(conn.request("authenticate", {"methodId": "x"}))
    frame = await peer.recv()
    error = {"code": -32000, "message": "Authentication required", "data": {"why": "token"}}
    await peer.send({"jsonrpc": "2.0", "id": frame["id"], "error": error})
    with pytest.raises(RpcError) as info:
        await asyncio.wait_for(task, 5)
    assert (info.value.code, info.value.message, info.value.data) == (
        -32000,
        "Authentication required",
        {"why": "token"},
    )


async def test_response_with_unknown_or_bool_id_is_ignored(pair) -> None:
    conn, peer = pair
    task = asyncio.create_task(conn.request("m"))
    await peer.recv()  # id 0
    task2 = asyncio.create_task(conn.request("m"))
    await peer.recv()  # id 1
    await peer.send({"jsonrpc": "2.0", "id": 99, "result": "stray"})
    await peer.send({"jsonrpc": "2.0", "id": True, "result": "bool is not 1"})
    await peer.send({"jsonrpc": "2.0", "id": "1", "result": "string is not 1"})
    await peer.send({"jsonrpc": "2.0", "id": 1, "result": "right"})
    assert await asyncio.wait_for(task2, 5) == "right"
    assert not task.done()
    await peer.send({"jsonrpc": "2.0", "id": 0, "result": "zero"})
    assert await asyncio.wait_for(task, 5) == "zero"


@pytest.mark.parametrize("request_id", [0, -7, "abc", "", None, 2**40, 1.5])
async def test_incoming_request_ids_are_echoed_exactly(pair, request_id) -> None:
    conn, peer = pair
    seen = []

    async def read_file(params):
        seen.append(params)
        return {"content": "hello"}

    conn.on_request("fs/read_text_file", read_file)
    params = {"sessionId": "s", "path": "/a"}
    await peer.send(
        {"jsonrpc": "2.0", "id": request_id, "method": "fs/read_text_file", "params": params}
    )
    reply = await peer.recv()
    assert reply == {"jsonrpc": "2.0", "id": request_id, "result": {"content": "hello"}}
    assert type(reply["id"]) is type(request_id)
    assert seen == [params]


async def test_unknown_method_is_minus_32601_with_method_in_data(pair) -> None:
    _, peer = pair
    await peer.send({"jsonrpc": "2.0", "id": 3, "method": "x/unknown", "params": {}})
    reply = await peer.recv()
    assert reply["id"] == 3
    assert reply["error"]["code"] == -32601
    assert reply["error"]["data"] == {"method": "x/unknown"}
    assert "result" not in reply


class Params(BaseModel):
    path: str
    line: int


async def test_handler_errors_map_to_codes(pair) -> None:
    conn, peer = pair

    async def rpc_error(params):
        raise RpcError(-32002, "Resource not found", {"uri": "file:///x"})

    async def validation(params):
        return Params.model_validate(params).model_dump()

    async def crash(params):
        raise KeyError("secret internal detail")

    conn.on_request("a", rpc_error)
    conn.on_request("b", validation)
    conn.on_request("c", crash)
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "a", "params": {}})
    reply = await peer.recv()
    assert reply["error"] == {
        "code": -32002,
        "message": "Resource not found",
        "data": {"uri": "file:///x"},
    }
    await peer.send({"jsonrpc": "2.0", "id": 2, "method": "b", "params": {"path": 3}})
    reply = await peer.recv()
    assert reply["id"] == 2 and reply["error"]["code"] == -32602
    locations = sorted(tuple(e["loc"]) for e in reply["error"]["data"])
    assert locations == [("line",), ("path",)]
    await peer.send({"jsonrpc": "2.0", "id": 3, "method": "c", "params": {}})
    reply = await peer.recv()
    assert reply["id"] == 3 and reply["error"]["code"] == -32603
    assert "secret" not in json.dumps(reply)


async def test_result_that_is_not_json_becomes_internal_error(pair) -> None:
    conn, peer = pair

    async def bad(params):
        return {"x": object()}

    conn.on_request("bad", bad)
    await peer.send({"jsonrpc": "2.0", "id": 9, "method": "bad"})
    reply = await peer.recv()
    assert reply["id"] == 9 and reply["error"]["code"] == -32603


async def test_notifications_delivered_one_at_a_time_in_order(pair) -> None:
    conn, peer = pair
    log: list[tuple[str, int]] = []
    done = asyncio.Event()

    async def on_update(params):
        log.append(("start", params["n"]))
        for _ in range(3):
            await asyncio.sleep(0)  # yield to the loop: another delivery must not start
        log.append(("end", params["n"]))
        if params["n"] == 49:
            done.set()

    conn.on_notification("session/update", on_update)
    lines = "".join(
        json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": {"n": n}}) + "\n"
        for n in range(50)
    )
    await peer.send_raw(lines)
    await wait_for(done)
    expected = [item for n in range(50) for item in (("start", n), ("end", n))]
    assert log == expected


async def test_a_sync_handler_runs_in_the_read_loop_and_async_ones_keep_the_order(pair) -> None:
    """Nothing waiting: a notification goes from the read loop to its handler (no queue, no
    task switch). Behind an async handler, later ones wait until it has finished."""
    conn, peer = pair
    log: list[tuple[str, str | None]] = []
    release, started, done = asyncio.Event(), asyncio.Event(), asyncio.Event()

    def sync(params):
        task = asyncio.current_task()
        log.append((params, task.get_name() if task is not None else None))
        if params == "last":
            done.set()

    async def slow(params):
        log.append(("slow start", None))
        started.set()
        await release.wait()
        log.append(("slow end", None))

    conn.on_notification("sync", sync)
    conn.on_notification("slow", slow)
    frames = [("sync", "first"), ("slow", None), ("sync", "queued"), ("sync", "last")]
    await peer.send_raw(
        "".join(json.dumps({"jsonrpc": "2.0", "method": m, "params": p}) + "\n" for m, p in frames)
    )
    await wait_for(started)
    assert log == [("first", "acp-read"), ("slow start", None)]
    release.set()
    await wait_for(done)
    assert [entry for entry, _task in log] == ["first", "slow start", "slow end", "queued", "last"]
    assert log[-1][1] == "acp-notifications"  # delivered by the consumer, behind the slow one


async def test_sync_handlers_and_handler_failures_do_not_stop_delivery(pair) -> None:
    conn, peer = pair
    got: list[Any] = []
    done = asyncio.Event()

    def on_update(params):
        if params == "boom":
            raise ValueError("handler bug")
        got.append(params)
        if params == "last":
            done.set()

    conn.on_notification("u", on_update)
    for params in ["first", "boom", "last"]:
        await peer.send({"jsonrpc": "2.0", "method": "u", "params": params})
    await wait_for(done)
    assert got == ["first", "last"]


async def test_slow_request_does_not_stall_notifications(pair) -> None:
    conn, peer = pair
    user_answered = asyncio.Event()
    notified = asyncio.Event()

    async def ask_permission(params):
        await user_answered.wait()
        return {"outcome": {"outcome": "selected", "optionId": "allow"}}

    conn.on_request("session/request_permission", ask_permission)
    conn.on_notification("session/update", lambda params: notified.set())
    await peer.send(
        {"jsonrpc": "2.0", "id": 5, "method": "session/request_permission", "params": {}}
    )
    await peer.send({"jsonrpc": "2.0", "method": "session/update", "params": {}})
    await wait_for(notified)
    user_answered.set()
    reply = await peer.recv()
    assert reply["id"] == 5 and reply["result"]["outcome"]["optionId"] == "allow"


async def test_notifications_are_never_answered(pair) -> None:
    conn, peer = pair

    async def failing(params):
        raise RpcError(-32602, "bad")

    conn.on_notification("session/update", failing)
    await peer.send({"jsonrpc": "2.0", "method": "session/update", "params": {}})
    await peer.send({"jsonrpc": "2.0", "method": "no/such/notification", "params": {}})
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1}})
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": "junk"})
    reply = await peer.probe()
    assert reply["id"] == "probe"


async def test_malformed_lines_are_dropped_and_connection_continues(pair) -> None:
    conn, peer = pair
    got: list[Any] = []
    conn.on_notification("u", got.append)
    await peer.send_raw(b'not json\n\n   \n[1, 2]\n42\n"str"\nnull\n{"foo": 1}\n')
    await peer.send_raw(b'\xff\xfe garbage \x80\n{"jsonrpc": "2.0", "method": 7}\n')
    await peer.send_raw(b"[" * 100_000 + b"\n")  # deep nesting: RecursionError inside json
    await peer.send_raw(b'{"jsonrpc":"2.0","method":"u","params":1}\r\n')
    reply = await peer.probe()
    assert reply["id"] == "probe" and reply["error"]["code"] == -32601
    assert got == [1]


async def test_invalid_frames_with_an_id_get_invalid_request(pair) -> None:
    _, peer = pair
    await peer.send({"jsonrpc": "2.0", "id": 5, "method": 3})
    reply = await peer.recv()
    assert reply == {
        "jsonrpc": "2.0",
        "id": 5,
        "error": {"code": -32600, "message": "Invalid method"},
    }
    await peer.send({"jsonrpc": "2.0", "id": {"x": 1}, "method": "m"})
    reply = await peer.recv()
    assert reply["id"] is None and reply["error"]["code"] == -32600
    await peer.send({"jsonrpc": "2.0", "id": 6})
    reply = await peer.recv()
    assert reply["id"] == 6 and reply["error"]["code"] == -32600


async def test_line_split_across_writes(pair) -> None:
    conn, peer = pair
    got: list[Any] = []
    done = asyncio.Event()

    def on_u(params):
        got.append(params)
        done.set()

    conn.on_notification("u", on_u)
    line = json.dumps({"jsonrpc": "2.0", "method": "u", "params": "één"}).encode()
    for i in range(len(line)):
        await peer.send_raw(line[i : i + 1])  # even a multi-byte character split in two
    await peer.send_raw(b"\n")
    await wait_for(done)
    assert got == ["één"]


async def test_ten_megabyte_lines_both_ways(pair) -> None:
    conn, peer = pair
    big = "x" * (10 * 1024 * 1024)
    received: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    conn.on_notification("big", received.set_result)
    await peer.send({"jsonrpc": "2.0", "method": "big", "params": {"text": big}})
    params = await asyncio.wait_for(received, 10)
    assert params["text"] == big

    task = asyncio.create_task(conn.request("big", {"text": big}))
    frame = await peer.recv()
    assert frame["params"]["text"] == big
    await peer.send({"jsonrpc": "2.0", "id": frame["id"], "result": {"echo": big}})
    assert (await asyncio.wait_for(task, 10))["echo"] == big
