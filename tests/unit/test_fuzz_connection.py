"""Fuzz the frame parser and dispatcher: whatever arrives, nothing crashes, every request is
answered exactly once, and nothing else is ever sent."""

from __future__ import annotations

import asyncio
import collections
import json
import math
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from acp_tui.protocol.errors import RpcError

from .test_connection_helpers import socket_pair

PROBE_ID = "fuzz-final-probe"

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.text(max_size=6), children, max_size=3)
    ),
    max_leaves=8,
)
ids = st.one_of(
    st.integers(min_value=-5, max_value=5),
    st.text(max_size=4),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    st.lists(st.integers(), max_size=2),
)
methods = st.one_of(
    st.sampled_from(["ok", "fail", "crash", "slow", "validate", "u", "$/cancel_request", "nope"]),
    json_values,
)
frames = st.fixed_dictionaries(
    {},
    optional={
        "jsonrpc": st.one_of(st.just("2.0"), json_values),
        "id": ids,
        "method": methods,
        "params": st.one_of(json_values, st.fixed_dictionaries({"requestId": ids})),
        "result": json_values,
        "error": json_values,
    },
)

requests = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": ids, "method": methods},
    optional={"params": st.one_of(json_values, st.fixed_dictionaries({"a": json_values}))},
)
cancels = st.fixed_dictionaries(
    {
        "jsonrpc": st.just("2.0"),
        "method": st.just("$/cancel_request"),
        "params": st.fixed_dictionaries({"requestId": ids}),
    }
)


def encode(value: Any) -> bytes:
    return json.dumps(value).encode()


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    kinds = ["request", "request", "cancel", "frame", "value", "truncated", "mutated", "bytes"]
    kind = draw(st.sampled_from(kinds))
    if kind == "request":
        line = encode(draw(requests))
    elif kind == "cancel":
        line = encode(draw(cancels))
    elif kind == "value":
        line = encode(draw(json_values))
    elif kind == "bytes":
        line = draw(st.binary(max_size=40))
    else:
        line = encode(draw(frames))
        if kind == "truncated":
            line = line[: draw(st.integers(0, max(0, len(line) - 1)))]
        elif kind == "mutated":
            at = draw(st.integers(0, len(line)))
            line = line[:at] + draw(st.binary(min_size=1, max_size=3)) + line[at + 1 :]
    return line.replace(b"\n", b" ")


def expected_answers(line: bytes) -> list[str]:
    """The oracle: which answers (by JSON-encoded id) JSON-RPC says this line must get."""
    try:
        frame = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return []
    if type(frame) is not dict or "id" not in frame:
        return []
    if "method" not in frame and ("result" in frame or "error" in frame):
        return []  # a response: never answered
    request_id = frame["id"]
    valid = (
        request_id is None
        or type(request_id) in (int, str)
        or (type(request_id) is float and math.isfinite(request_id))
    )
    return [json.dumps(request_id if valid else None)]


class Model(BaseModel):
    a: int


async def _handler_ok(params: Any) -> Any:
    return params


async def _handler_fail(params: Any) -> Any:
    raise RpcError(-32000, "nope", params)


async def _handler_crash(params: Any) -> Any:
    raise ValueError(params)


async def _handler_slow(params: Any) -> Any:
    for _ in range(3):
        await asyncio.sleep(0)
    return "slow"


async def _handler_validate(params: Any) -> Any:
    return Model.model_validate(params).a


async def exercise(payload: list[bytes], cuts: list[int]) -> None:
    conn, peer = await socket_pair(
        request_handlers={
            "ok": _handler_ok,
            "fail": _handler_fail,
            "crash": _handler_crash,
            "slow": _handler_slow,
            "validate": _handler_validate,
        },
        notification_handlers={"u": lambda params: None},
    )
    conn.start()
    try:
        expected = collections.Counter(a for line in payload for a in expected_answers(line))
        data = b"".join(line + b"\n" for line in payload)
        start = 0
        for cut in [*sorted(c % (len(data) + 1) for c in cuts), len(data)]:
            await peer.send_raw(data[start:cut])
            start = cut
        received: collections.Counter[str] = collections.Counter()
        while received != expected:
            frame = await peer.recv()
            assert set(frame) >= {"jsonrpc", "id"} and "method" not in frame, frame
            assert ("result" in frame) != ("error" in frame), frame
            if "error" in frame:
                assert type(frame["error"]["code"]) is int
                assert type(frame["error"]["message"]) is str
            received[json.dumps(frame["id"])] += 1
            assert received[json.dumps(frame["id"])] <= expected[json.dumps(frame["id"])], (
                f"unexpected or duplicate answer {frame}; expected {expected}"
            )
        probe = await peer.probe(PROBE_ID)
        assert probe["id"] == PROBE_ID, f"extra frame after all answers: {probe}"
        assert not conn.closed
    finally:
        await conn.close()
        peer.writer.close()


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(payload=st.lists(lines(), max_size=12), cuts=st.lists(st.integers(0, 10_000), max_size=4))
def test_fuzzed_input_never_crashes_and_answers_each_request_once(
    payload: list[bytes], cuts: list[int]
) -> None:
    asyncio.run(asyncio.wait_for(exercise(payload, cuts), 5))


def test_oracle_sanity() -> None:
    assert expected_answers(b'{"id": 1, "method": "x"}') == ["1"]
    assert expected_answers(b'{"id": true, "method": "x"}') == ["null"]
    assert expected_answers(b'{"id": NaN, "method": "x"}') == ["null"]
    assert expected_answers(b'{"id": 1, "result": 2}') == []
    assert expected_answers(b'{"method": "x"}') == []
    assert expected_answers(b'{"id": 3}') == ["3"]
