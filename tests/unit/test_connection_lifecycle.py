"""Connection: $/cancel_request both ways, EOF, close(), taps and the JSONL traffic log."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from acp_tui.host.append_log import open_append_log
from acp_tui.protocol.connection import Connection, ConnectionClosed
from acp_tui.protocol.traffic import NOT_PARSED, JsonlTrafficLog, TrafficEvent

from .test_connection_helpers import socket_pair, wait_for


@pytest.fixture
async def pair():
    conn, peer = await socket_pair()
    conn.start()
    yield conn, peer
    await conn.close()
    peer.writer.close()


async def test_cancelling_the_caller_sends_cancel_request(pair) -> None:
    conn, peer = pair
    task = asyncio.create_task(conn.request("session/prompt", {"sessionId": "s"}))
    frame = await peer.recv()
    task.cancel()
    cancel = await peer.recv()
    assert cancel == {
        "jsonrpc": "2.0",
        "method": "$/cancel_request",
        "params": {"requestId": frame["id"]},
    }
    with pytest.raises(asyncio.CancelledError):
        await task
    # a late answer to the cancelled request is ignored; the connection still works
    await peer.send(
        {"jsonrpc": "2.0", "id": frame["id"], "error": {"code": -32800, "message": "cancelled"}}
    )
    next_task = asyncio.create_task(conn.request("m"))
    frame = await peer.recv()
    await peer.send({"jsonrpc": "2.0", "id": frame["id"], "result": 1})
    assert await asyncio.wait_for(next_task, 5) == 1


async def test_incoming_cancel_request_cancels_the_handler_once(pair) -> None:
    conn, peer = pair
    started = asyncio.Event()
    handler_cancelled = asyncio.Event()

    async def wait_forever(params):
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            handler_cancelled.set()
            raise

    conn.on_request("terminal/wait_for_exit", wait_forever)
    await peer.send(
        {"jsonrpc": "2.0", "id": "w1", "method": "terminal/wait_for_exit", "params": {}}
    )
    await wait_for(started)
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "w1"}})
    reply = await peer.recv()
    assert reply["id"] == "w1" and reply["error"]["code"] == -32800
    assert handler_cancelled.is_set()
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "w1"}})
    assert (await peer.probe())["id"] == "probe"  # no second answer


async def test_cancel_after_answer_leaves_the_answer_alone(pair) -> None:
    conn, peer = pair

    async def quick(params):
        return "done"

    conn.on_request("q", quick)
    await peer.send({"jsonrpc": "2.0", "id": 0, "method": "q"})
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 0, "result": "done"}
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 0}})
    assert (await peer.probe())["id"] == "probe"


async def test_cancel_in_the_same_read_as_the_request_is_answered_once(pair) -> None:
    conn, peer = pair
    ran = []

    async def quick(params):
        ran.append(params)
        return "done"

    conn.on_request("q", quick)
    await peer.send_raw(
        b'{"jsonrpc":"2.0","id":0,"method":"q"}\n'
        b'{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":0}}\n'
    )
    reply = await peer.recv()
    assert reply["id"] == 0 and reply["error"]["code"] == -32800
    assert (await peer.probe())["id"] == "probe"
    assert ran == []


async def test_cancel_matches_id_type_exactly(pair) -> None:
    conn, peer = pair
    release = asyncio.Event()

    async def blocked(params):
        await release.wait()
        return "finished"

    conn.on_request("b", blocked)
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "b"})
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "1"}})
    await peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": True}})
    assert (await peer.probe())["id"] == "probe"
    release.set()
    assert (await peer.recv())["result"] == "finished"


async def test_eof_fails_pending_requests_and_cancels_handlers() -> None:
    conn, peer = await socket_pair()
    conn.start()
    handler_cancelled = asyncio.Event()

    async def hang(params):
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            handler_cancelled.set()
            raise

    got: list[Any] = []
    conn.on_request("hang", hang)
    conn.on_notification("u", got.append)
    pending = asyncio.create_task(conn.request("session/prompt"))
    await peer.recv()
    await peer.send({"jsonrpc": "2.0", "id": 1, "method": "hang"})
    # the last notification before EOF is still delivered
    await peer.send_raw(b'{"jsonrpc":"2.0","method":"u","params":"last"}')
    peer.writer.write_eof()
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(pending, 5)
    await asyncio.wait_for(conn.wait_closed(), 5)
    assert conn.closed
    assert handler_cancelled.is_set()
    assert got == ["last"]
    with pytest.raises(ConnectionClosed):
        await conn.request("again")
    with pytest.raises(ConnectionClosed):
        await conn.notify("again")
    await conn.close()
    peer.writer.close()


async def test_close_fails_pending_and_closes_the_stream() -> None:
    conn, peer = await socket_pair()
    conn.start()
    pending = asyncio.create_task(conn.request("session/prompt"))
    await peer.recv()
    await conn.close()
    with pytest.raises(ConnectionClosed):
        await asyncio.wait_for(pending, 5)
    assert conn.closed
    assert await peer.at_eof()
    await asyncio.wait_for(conn.wait_closed(), 5)
    await conn.close()  # idempotent
    peer.writer.close()


async def test_the_connection_closes_at_eof_after_delivering_what_came() -> None:
    conn, peer = await socket_pair()
    got: list[Any] = []
    conn.on_notification("u", got.append)
    conn.start()
    await peer.send({"jsonrpc": "2.0", "method": "u", "params": 1})
    peer.writer.write_eof()
    await asyncio.wait_for(conn.wait_closed(), 5)
    assert conn.closed and got == [1]
    await conn.close()
    peer.writer.close()


async def test_taps_see_every_frame_both_ways(pair, tmp_path) -> None:
    conn, peer = pair
    events: list[TrafficEvent] = []
    conn.add_tap(events.append)
    log = JsonlTrafficLog(tmp_path / "logs" / "traffic.jsonl", open_append_log)
    conn.add_tap(log)

    def broken_tap(event):
        raise RuntimeError("tap bug")

    conn.add_tap(broken_tap)
    conn.on_request("echo", lambda params: asyncio.sleep(0, params))
    task = asyncio.create_task(conn.request("m", {"a": 1}))
    out_frame = await peer.recv_line()
    await peer.send_raw(b'{"jsonrpc":"2.0","id":0,"result":"r"}\n')
    await asyncio.wait_for(task, 5)
    await peer.send_raw(b"garbage\n")
    await peer.send_raw(b'{"jsonrpc":"2.0","id":"e","method":"echo","params":[1]}\n')
    answer = await peer.recv_line()
    assert [(e.direction, e.raw) for e in events] == [
        ("out", out_frame.decode()),
        ("in", '{"jsonrpc":"2.0","id":0,"result":"r"}'),
        ("in", "garbage"),
        ("in", '{"jsonrpc":"2.0","id":"e","method":"echo","params":[1]}'),
        ("out", answer.decode()),
    ]
    log.flush()
    lines = [json.loads(line) for line in log.path.read_text().splitlines()]
    assert [line["dir"] for line in lines] == ["out", "in", "in", "in", "out"]
    assert lines[0]["frame"]["method"] == "m"
    assert lines[2]["frame"] == "garbage"
    assert all(isinstance(line["t"], float) for line in lines)
    log.close()


async def test_traffic_log_is_buffered_and_reaches_the_file_soon(tmp_path) -> None:
    log = JsonlTrafficLog(tmp_path / "traffic.jsonl", open_append_log)
    frames = ['{"jsonrpc":"2.0","method":"a","params":{"x":[1,2]}}', '{"id":1,\r"result":null}\r']
    for frame in frames:
        log(TrafficEvent("in", 1.5, frame))
    log(TrafficEvent("out", 2.0, "not json"))
    # no flush per line: nothing written yet, then the scheduled flush writes it all
    assert log.path.read_text() == ""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while not log.path.read_text():
        assert loop.time() < deadline, "the buffered lines were never flushed"
        await asyncio.sleep(0.01)
    text = log.path.read_text()
    assert text.count("\n") == 3 and "\r" not in text
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[0] == {"dir": "in", "t": 1.5, "frame": json.loads(frames[0])}
    assert lines[1]["frame"] == {"id": 1, "result": None}
    assert lines[2] == {"dir": "out", "t": 2.0, "frame": "not json"}
    log(TrafficEvent("in", 3.0, "{}"))
    log.close()  # close writes what is still buffered
    assert json.loads(log.path.read_text().splitlines()[-1])["frame"] == {}


def test_traffic_log_trusts_the_connections_verdict_on_json(tmp_path) -> None:
    log = JsonlTrafficLog(tmp_path / "traffic.jsonl", open_append_log)
    log(TrafficEvent("in", 1.0, '{"id":1,"result":{}}', json_ok=True))  # written as it came
    log(TrafficEvent("in", 2.0, '{"id":', json_ok=False))  # kept as a string
    log(TrafficEvent("in", 3.0, '{"id":', json_ok=None))  # unknown: checked by the log itself
    log.close()
    lines = [json.loads(line) for line in log.path.read_text().splitlines()]
    assert [line["frame"] for line in lines] == [{"id": 1, "result": {}}, '{"id":', '{"id":']


async def test_a_connection_tells_its_taps_whether_a_frame_parsed() -> None:
    connection, peer = await socket_pair()
    seen: list[TrafficEvent] = []
    connection.add_tap(seen.append)
    connection.start()
    await peer.send_raw('{"jsonrpc":"2.0","method":"n"}\nnot json\nnull\n')
    peer.writer.close()
    await asyncio.wait_for(connection.wait_closed(), 5)
    assert [(e.raw, e.json_ok) for e in seen] == [
        ('{"jsonrpc":"2.0","method":"n"}', True),
        ("not json", False),
        ("null", True),
    ]
    # what it parsed comes along (the store does not parse it again); JSON null is a value
    assert [e.frame for e in seen] == [{"jsonrpc": "2.0", "method": "n"}, NOT_PARSED, None]


def test_traffic_log_never_raises_on_io_errors(tmp_path) -> None:
    log = JsonlTrafficLog(tmp_path, open_append_log)  # a directory: the open fails
    log(TrafficEvent("in", 0.0, "{}"))
    log(TrafficEvent("out", 0.0, "{}"))
    log.close()


async def test_two_connections_talk_to_each_other() -> None:
    import socket

    a, b = socket.socketpair()
    ra, wa = await asyncio.open_connection(sock=a)
    rb, wb = await asyncio.open_connection(sock=b)
    client, agent = Connection(ra, wa), Connection(rb, wb)

    async def prompt(params):
        for word in ["hello", "world"]:
            await agent.notify("session/update", {"text": word})
        return {"stopReason": "end_turn"}

    agent.on_request("session/prompt", prompt)
    words: list[str] = []
    client.on_notification("session/update", lambda p: words.append(p["text"]))
    client.start()
    agent.start()
    result = await asyncio.wait_for(client.request("session/prompt", {}), 5)
    assert result == {"stopReason": "end_turn"}
    await agent.close()
    await asyncio.wait_for(client.wait_closed(), 5)
    assert words == ["hello", "world"]  # notifications before the response are delivered
    await client.close()
