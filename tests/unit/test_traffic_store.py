"""The traffic store by columns: views read back what was recorded, requests pair with their
responses, the column scan of `RowIndex` lists the same rows as `RowFilter.accepts` frame by
frame, and the columns hold nothing the garbage collector has to walk."""

from __future__ import annotations

import gc
import itertools
import json
import random
from typing import Any

import pytest

from acp_tui.protocol.traffic import Direction, TrafficEvent
from acp_tui.protocol.traffic_rows import RowFilter, RowIndex
from acp_tui.protocol.traffic_store import FrameRecord, TrafficStore


def event(direction: str, t: float, body: dict[str, Any] | str) -> TrafficEvent:
    raw = body if isinstance(body, str) else json.dumps({"jsonrpc": "2.0", **body})
    return TrafficEvent(direction, t, raw)  # type: ignore[arg-type]


def update(update_kind: str, **fields: Any) -> dict[str, Any]:
    body = {"sessionUpdate": update_kind, **fields}
    return {"method": "session/update", "params": {"sessionId": "s", "update": body}}


def mixed_traffic(seed: int, count: int) -> list[TrafficEvent]:
    """Runs of streamed chunks and thoughts, tool calls (some with an unknown kind: marked),
    requests both ways answered with results or errors, garbage lines."""
    rng = random.Random(seed)
    events: list[TrafficEvent] = []
    t = 10.0
    next_id = itertools.count()
    open_in: list[int] = []
    open_out: list[int] = []
    while len(events) < count:
        t += 0.01
        roll = rng.random()
        if roll < 0.45:
            kind = rng.choice(["agent_message_chunk", "agent_thought_chunk"])
            text = {"type": "text", "text": "w"}
            for _ in range(rng.randint(1, 6)):
                events.append(event("in", t, update(kind, content=text)))
        elif roll < 0.55:
            tool_kind = rng.choice(["read", "edit", "fly"])  # "fly" is outside the schema
            call = update("tool_call", toolCallId="c", title="T", kind=tool_kind)
            events.append(event("in", t, call))
        elif roll < 0.65:
            request_id = next(next_id)
            open_out.append(request_id)
            prompt = {"sessionId": "s", "prompt": []}
            events.append(
                event("out", t, {"id": request_id, "method": "session/prompt", "params": prompt})
            )
        elif roll < 0.75:
            request_id = next(next_id)
            open_in.append(request_id)
            params = {"sessionId": "s", "path": rng.choice(["/w/a.txt", "rel.txt"])}
            events.append(
                event("in", t, {"id": request_id, "method": "fs/read_text_file", "params": params})
            )
        elif roll < 0.85 and open_in:
            answered = open_in.pop(rng.randrange(len(open_in)))
            body: dict[str, Any] = (
                {"id": answered, "result": {"content": "x"}}
                if rng.random() < 0.5
                else {"id": answered, "error": {"code": -32002, "message": "no"}}
            )
            events.append(event("out", t, body))
        elif roll < 0.95 and open_out:
            answered = open_out.pop(0)
            events.append(event("in", t, {"id": answered, "result": {"stopReason": "end_turn"}}))
        else:
            events.append(event("in", t, "not json {"))
    return events[:count]


def recorded(events: list[TrafficEvent]) -> TrafficStore:
    store = TrafficStore()
    for item in events:
        store.record(item)
    return store


def reference_rows(store: TrafficStore, row_filter: RowFilter) -> list[tuple[int, int]]:
    """The rows written out plainly over frame views: frames `accepts` lets through, runs of
    unmarked incoming notifications of one update kind grouped when the filter groups."""
    rows: list[tuple[int, int]] = []
    last_key: str | None = None
    for frame in store.frames:
        if not row_filter.accepts(frame):
            last_key = None
            continue
        key = None
        if (
            row_filter.grouped
            and not frame.marks
            and frame.direction == "in"
            and frame.kind == "notification"
        ):
            key = frame.update
        if key is not None and key == last_key:
            rows[-1] = (rows[-1][0], rows[-1][1] + 1)
        else:
            rows.append((frame.index, 1))
        last_key = key
    return rows


def listed(index: RowIndex) -> list[tuple[int, int]]:
    return [index.row(row) for row in range(len(index))]


FILTERS = [
    RowFilter(direction=direction, method=method, errors_only=errors, marked_only=marked,
              grouped=grouped)
    for direction in (None, "in", "out")
    for method in ("", "FS/read", "chunk", "nothing-has-this")
    for errors in (False, True)
    for marked in (False, True)
    for grouped in (True, False)
]  # fmt: skip


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_column_scan_lists_the_same_rows_as_the_per_frame_filter(seed: int) -> None:
    store = recorded(mixed_traffic(seed, 600))
    assert store.marks and any(store.error_codes.values())  # all exercised
    assert "invalid" in store.kinds.values()
    for row_filter in FILTERS:
        index = RowIndex(store, row_filter)
        index.sync()
        assert listed(index) == reference_rows(store, row_filter), row_filter.describe()
    assert listed(store.rows) == reference_rows(store, RowFilter())


def test_rows_extended_as_frames_arrive_equal_rows_scanned_at_once() -> None:
    events = mixed_traffic(7, 500)
    live = TrafficStore()
    watched = [RowIndex(live, row_filter) for row_filter in FILTERS[::5]]
    for position, item in enumerate(events):
        live.record(item)
        if position % 37 == 0:
            for index in watched:
                index.sync()
    for index in watched:
        index.sync()
        assert listed(index) == reference_rows(live, index.filter), index.filter.describe()
    assert listed(live.rows) == reference_rows(live, RowFilter())


def test_requests_pair_with_responses_both_ways_by_direction_and_id_type() -> None:
    store = recorded(
        [
            event("out", 1.0, {"id": 1, "method": "session/prompt", "params": {}}),
            event("in", 1.5, {"id": 1, "method": "fs/read_text_file", "params": {"path": "/a"}}),
            event("in", 1.6, {"id": "1", "method": "terminal/create", "params": {}}),
            event("out", 1.75, {"id": 1, "error": {"code": -32002, "message": "no"}}),
            event("out", 1.8, {"id": "1", "result": {}}),
            event("in", 3.0, {"id": 1, "result": {"stopReason": "end_turn"}}),
            event("in", 3.1, {"id": 99, "result": {}}),
        ]
    )
    frames = list(store.frames)
    assert [f.pair for f in frames] == [5, 3, 4, 1, 2, 0, -1]
    assert [f.kind for f in frames] == ["request"] * 3 + ["response"] * 4
    assert [f.label for f in frames[3:]] == [
        "fs/read_text_file", "terminal/create", "session/prompt", "?"
    ]  # fmt: skip
    assert frames[0].latency == frames[5].latency == 2.0
    assert frames[3].latency == pytest.approx(0.25) and frames[3].error_code == -32002
    assert frames[3].is_error and not frames[4].is_error
    assert frames[6].latency is None and frames[6].method is None


def test_views_read_the_columns() -> None:
    store = recorded(mixed_traffic(3, 50))
    frames = store.frames
    assert len(frames) == len(store) == 50
    assert frames[-1] == frames[49] and frames[-1] != frames[48]
    assert frames[-1] != recorded(mixed_traffic(3, 50)).frames[-1]  # another store
    assert {frames[3], frames[3]} == {frames[3]}
    assert [f.index for f in frames[10:13]] == [10, 11, 12]
    with pytest.raises(IndexError):
        frames[50]
    frame = frames[7]
    assert isinstance(frame, FrameRecord)
    assert (frame.raw, frame.time, frame.direction) == (
        store.raws.get(7), store.times[7], store.directions[7]
    )  # fmt: skip
    assert store.marked() == [f for f in frames if f.marks]


def test_names_are_stored_once_and_columns_hold_nothing_the_collector_walks() -> None:
    store = recorded(mixed_traffic(5, 400))
    methods = [m for m in store.methods.values() if m == "session/update"]
    assert len(methods) > 10 and all(m is methods[0] for m in methods)
    updates = [u for u in store.updates.values() if u == "agent_message_chunk"]
    assert len(updates) > 10 and all(u is updates[0] for u in updates)
    columns: list[list[Any]] = [
        store.directions.values(), store.kinds.values(), store.methods.values(),
        store.ids.values(), store.updates.values(), store.error_codes.values(),
        store.pairs.values(), store.latencies.values(),
        [store.raws.get(index) for index in range(len(store))],
    ]  # fmt: skip
    for column in columns:
        assert len(column) == 400
        assert not any(gc.is_tracked(value) for value in column)
    assert len(store.times) == 400
    assert not [r for r in gc.get_referents(store.times) if not isinstance(r, type)]


def test_a_frame_the_connection_parsed_is_stored_as_if_parsed_here() -> None:
    raws = [
        '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}',
        '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",'
        '"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}',
        '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}',
        "null",
    ]
    parsed_here, handed_over = TrafficStore(), TrafficStore()
    for index, raw in enumerate(raws):
        direction: Direction = "out" if index == 0 else "in"
        parsed_here.record(TrafficEvent(direction, float(index), raw))
        handed_over.record(TrafficEvent(direction, float(index), raw, True, json.loads(raw)))

    def summary(frame: FrameRecord) -> tuple[Any, ...]:
        return (frame.kind, frame.method, frame.id, frame.update, frame.error_code, frame.pair)

    def marks(frame: FrameRecord) -> list[str]:
        return [str(mark) for mark in frame.marks]

    assert [summary(f) for f in parsed_here.frames] == [summary(f) for f in handed_over.frames]
    assert [marks(f) for f in parsed_here.frames] == [marks(f) for f in handed_over.frames]
    assert any(marks(f) for f in handed_over.frames)  # "null" is not a frame: marked


def test_frames_with_ids_json_rpc_does_not_allow_are_kept_marked_and_in_step() -> None:
    """An object id raised in the middle of a frame's summary (unhashable) and left the columns
    out of step: every later view raised. Each such frame is kept as "invalid", marked, and the
    traffic after it pairs as before."""
    store = TrafficStore()
    bad_requests = [{"a": 1}, [1], True]
    for request_id in bad_requests:
        store.record(event("in", 1.0, {"id": request_id, "method": "fs/read_text_file"}))
        store.record(event("out", 1.1, {"id": None, "error": {"code": -32600, "message": "x"}}))
    store.record(event("in", 2.0, {"id": {"a": 1}, "result": {}}))
    store.record(event("out", 3.0, {"id": 0, "method": "initialize", "params": {}}))
    store.record(event("in", 3.5, {"id": 0, "result": {"protocolVersion": 1}}))
    frames = list(store.frames)
    assert len(frames) == 9
    kinds = ["invalid", "response"] * 3 + ["invalid", "request", "response"]
    assert [f.kind for f in frames] == kinds
    assert [f.id for f in frames[:7]] == [None] * 7  # never the agent's object
    assert frames[0].label == "fs/read_text_file" and frames[6].label == "?"
    assert [str(m) for f in frames[:7:2] for m in f.marks] == [
        "invalid id: id {…} (answered -32600)",
        "invalid id: id […] (answered -32600)",
        "invalid id: id True (answered -32600)",
        "invalid id: id {…} (ignored)",
    ]
    assert frames[7].pair == 8 and frames[8].label == "initialize"
    assert [store.rows.row(i)[0] for i in range(len(store.rows))] == list(range(9))


def test_a_new_store_checks_its_first_frames_only_once_its_marks_are_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The marks are the inspector's: the first frames (the handshake, before "ready") are
    kept unchecked until something reads the marks, or `CATCH_UP` frames wait."""
    from acp_tui.protocol import conformance, traffic_store

    checked: list[Any] = []
    incoming = conformance.ConformanceChecker.incoming

    def counted(checker: conformance.ConformanceChecker, frame: Any) -> list[conformance.Mark]:
        checked.append(frame)
        return incoming(checker, frame)

    monkeypatch.setattr(conformance.ConformanceChecker, "incoming", counted)
    store = TrafficStore()
    store.record(event("out", 1.0, {"id": 0, "method": "initialize", "params": {}}))
    store.record(event("in", 1.1, {"id": 0, "result": {"protocolVersion": "one"}}))
    assert checked == []
    assert [str(m) for m in store.frames[1].marks] == [
        "wrong type or missing field: initialize result: protocolVersion: "
        "Input should be a valid integer, unable to parse string as an integer"
    ]
    assert len(checked) == 1
    store.record(event("in", 1.2, update("agent_message_chunk", content={"type": "text"})))
    assert len(checked) == 2  # (from then on, as they come)

    waiting = TrafficStore()
    for number in range(traffic_store.CATCH_UP - 1):
        waiting.record(event("in", float(number), update("fly")))
    assert len(checked) == 2
    waiting.record(event("in", 99.0, update("fly")))
    assert len(checked) == 2 + traffic_store.CATCH_UP


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_frames_checked_later_get_the_marks_they_get_as_they_come(seed: int) -> None:
    events = mixed_traffic(seed, 300)
    as_they_come = TrafficStore()
    assert not as_they_come.marks  # (read: from now on each frame is checked as it comes)
    later, in_between = TrafficStore(), TrafficStore()
    for number, item in enumerate(events):
        for store in (as_they_come, later, in_between):
            store.record(item)
        if number == 10:
            assert in_between.mark_counts is not None  # (read once, early)

    def marks(store: TrafficStore) -> list[list[str]]:
        return [[str(mark) for mark in frame.marks] for frame in store.frames]

    assert any(marks(as_they_come))
    assert marks(later) == marks(as_they_come) == marks(in_between)
    assert later.mark_counts == as_they_come.mark_counts
    assert later.schema_fit.describe() == as_they_come.schema_fit.describe()


def test_a_frame_checked_later_is_checked_as_it_was_sent() -> None:
    """A handler may change the parsed frame it is given: the check reads the text."""
    store = TrafficStore()
    raw = '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}'
    store.record(TrafficEvent("out", 0.0, raw, True, json.loads(raw)))
    raw = '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1}}'
    parsed = json.loads(raw)
    store.record(TrafficEvent("in", 1.0, raw, True, parsed))
    parsed["result"] = "changed by a handler"
    assert store.marks == {}


def test_a_closed_connection_checks_what_waits_before_marking_the_unanswered() -> None:
    store = TrafficStore()
    store.record(event("out", 0.0, {"id": 0, "method": "initialize", "params": {}}))
    store.record(event("out", 0.1, {"id": 1, "method": "session/new", "params": {}}))
    store.record(event("in", 0.2, {"id": 0, "result": {"protocolVersion": 1}}))
    store.connection_closed()
    assert [str(mark) for frame in store.frames for mark in frame.marks] == [
        "request never answered: session/new (id 1)"
    ]
