"""The frames' raw text is kept compactly and bounded: read back exactly, a long session of
streamed chunks costs a fraction of its text, and past the budget the oldest texts are dropped
(and counted) while every frame's summary stays."""

from __future__ import annotations

import json
import random
import tracemalloc

import pytest

from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.protocol.traffic_raw import RawFrames
from acp_tui.protocol.traffic_store import TrafficStore

SESSION = "0d5c4f3e-8a1b-4c2d-9e7f-123456789abc"
WORDS = (
    "the agent reads files writes a plan and calls tools while the user watches each chunk "
    "stream in def main return value print error list of items code fence"
)


def chunk_frame(rng: random.Random) -> str:
    """A streamed `agent_message_chunk` of about 24 characters, as agents send them."""
    text = " ".join(rng.choice(WORDS.split(" ")) for _ in range(4))[:24]
    update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
    params = {"sessionId": SESSION, "update": update}
    return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params})


def test_every_text_reads_back_as_it_was_in_the_open_block_and_the_closed_ones() -> None:
    rng = random.Random(1)
    texts = [chunk_frame(rng) for _ in range(700)]
    texts[3] = "not json { é ✓ \U0001f600"
    texts[300] = "x" * 5000  # past block_bytes: closes its block at once
    texts[301] = "lone \udcff surrogate"  # (a line decoded with surrogateescape)
    texts[302] = ""
    raws = RawFrames(block_frames=64, block_bytes=4096)
    for text in texts:
        raws.append(text)
    assert len(raws) == 700 and raws.dropped == 0
    assert [raws.get(i) for i in range(700)] == texts
    assert [raws.get(i) for i in reversed(range(700))] == texts[::-1]  # cache misses both ways
    with pytest.raises(IndexError):
        raws.get(700)
    with pytest.raises(IndexError):
        raws.get(-1)


def test_a_long_session_of_streamed_chunks_is_kept_in_a_fraction_of_its_text() -> None:
    """12,000 chunk frames (about 140 turns of ~2 KB) through a store, each made and let go as
    the connection does: everything the store keeps (text and summaries) is under 60 bytes a
    frame; the frames' text alone is over 190 bytes a frame."""
    rng = random.Random(2)
    text_bytes = 0
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        store = TrafficStore()
        for index in range(12_000):
            raw = chunk_frame(rng)
            text_bytes += len(raw)
            store.record(TrafficEvent("in", float(index), raw))
            del raw
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert text_bytes / 12_000 > 190
    assert kept / 12_000 < 60, f"{kept / 12_000:.0f} bytes a frame"
    again = random.Random(2)
    texts = [chunk_frame(again) for _ in range(11_346)]
    assert store.frames[11_345].raw == texts[11_345] and store.frames[0].raw == texts[0]
    assert store.dropped_texts == 0


def test_past_the_budget_the_oldest_texts_are_dropped_and_counted_summaries_stay() -> None:
    rng = random.Random(3)
    raws = RawFrames(budget=20_000, block_frames=100)
    store = TrafficStore(raws)
    events = [TrafficEvent("in", float(i), chunk_frame(rng)) for i in range(10_000)]
    for event in events:
        store.record(event)
    assert raws.stored <= 20_000
    dropped = store.dropped_texts
    assert 0 < dropped < 10_000 - 100 and dropped % 100 == 0  # whole blocks, the newest kept
    frames = store.frames
    assert not frames[0].kept and frames[0].raw == ""
    assert not frames[dropped - 1].kept and frames[dropped].kept
    assert [f.raw for f in frames[dropped:]] == [e.raw for e in events[dropped:]]
    # the summaries of the dropped frames stay: the inspector still lists them
    assert frames[0].label == "session/update agent_message_chunk"
    assert frames[0].time == 0.0 and store.update_counts["agent_message_chunk"] == 10_000
    assert len(store.rows) == 1 and store.rows.row(0) == (0, 10_000)
