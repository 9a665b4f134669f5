"""The traffic inspector with 100k frames: recording cost per frame, opening, scrolling, filtering.

Run: `uv run python -m bench.inspector`. Each UI action is timed from the key (or the push of
the screen) until the app has processed it and drawn the screen, minus the same for a key that
does nothing, as CPU time of this process (the machine is shared: wall time measured waiting
for a core); printed in ms and as a ratio to one frame at 60 Hz (16.7 ms). Target: ≤ 3 (50 ms).
Recording is printed per frame beside a bare `json.loads` of the same frame. The first open
builds the screen's widgets (a constant) and, with 100k live records, pays for the garbage
collector walking them (gone when they are frozen, as the app does at start with `gc.freeze()`).
"""

from __future__ import annotations

import asyncio
import json
import statistics
import time

from textual.app import App

from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.protocol.traffic_store import TrafficStore
from acp_tui.ui.inspector.screen import InspectorScreen

FRAMES = 100_000
FRAME_MS = 1000 / 60
SIZE = (160, 50)


def traffic(count: int) -> list[TrafficEvent]:
    """A long session: streamed text and thoughts, tool calls, file reads answered."""
    events: list[TrafficEvent] = []
    t = 1_000_000.0
    request_id = 0
    while len(events) < count:
        for i in range(40):
            kind = "agent_message_chunk" if i % 8 else "agent_thought_chunk"
            body = {"sessionUpdate": kind, "content": {"type": "text", "text": f"word {i} " * 3}}
            params = {"sessionId": "s", "update": body}
            events.append(
                TrafficEvent("in", t, _line({"method": "session/update", "params": params}))
            )
            t += 0.001
        call = {
            "sessionUpdate": "tool_call",
            "toolCallId": f"c{request_id}",
            "title": "Read",
            "kind": "read",
            "locations": [{"path": "/w/notes.txt"}],
        }
        events.append(
            TrafficEvent(
                "in",
                t,
                _line({"method": "session/update", "params": {"sessionId": "s", "update": call}}),
            )
        )
        read = {"sessionId": "s", "path": "/w/notes.txt"}
        events.append(
            TrafficEvent(
                "in", t, _line({"id": request_id, "method": "fs/read_text_file", "params": read})
            )
        )
        events.append(
            TrafficEvent(
                "out", t + 0.002, _line({"id": request_id, "result": {"content": "x\n" * 20}})
            )
        )
        request_id += 1
        t += 0.01
    return events[:count]


def _line(body: dict[str, object]) -> str:
    return json.dumps({"jsonrpc": "2.0", **body}, separators=(",", ":"))


def record_cost(events: list[TrafficEvent]) -> tuple[TrafficStore, float, float]:
    start = time.process_time()
    for event in events:
        json.loads(event.raw)
    bare = time.process_time() - start
    store = TrafficStore()
    start = time.process_time()
    for event in events:
        store.record(event)
    return store, (time.process_time() - start), bare


class Host(App[None]):
    pass


async def ui_actions(store: TrafficStore) -> dict[str, list[float]]:
    app = Host()
    timings: dict[str, list[float]] = {}
    async with app.run_test(size=SIZE) as pilot:

        async def timed(name: str, *keys: str) -> None:
            start = time.process_time()
            await pilot.press(*keys)
            await pilot.pause()
            timings.setdefault(name, []).append(time.process_time() - start)

        app.install_screen(InspectorScreen(store), "inspector")
        for round_ in range(5):
            start = time.process_time()
            await app.push_screen("inspector")
            await pilot.pause()
            name = "open (first time: builds the screen)" if round_ == 0 else "open (again)"
            timings.setdefault(name, []).append(time.process_time() - start)
            for _ in range(10):
                await timed("baseline (a key bound to nothing)", "f20")
                await timed("page up", "pageup")
                await timed("line up", "up")
            await timed("home", "home")
            await timed("end", "end")
            await timed("filter: errors only (full scan)", "e")
            await timed("filter off", "e")
            await timed("filter: received only (full scan)", "d")
            await timed("filter off", "d", "d")
            app.pop_screen()
            await pilot.pause()
    return timings


def main() -> None:
    events = traffic(FRAMES)
    store, recording, bare = record_cost(events)
    per_frame = recording / FRAMES * 1e6
    print(
        f"record {FRAMES} frames: {per_frame:.1f} µs/frame "
        f"(bare json.loads {bare / FRAMES * 1e6:.1f} µs/frame), rows {len(store.rows)}"
    )
    timings = asyncio.run(ui_actions(store))
    baseline = statistics.median(timings.pop("baseline (a key bound to nothing)"))
    print(f"baseline key round trip {baseline * 1000:.1f} ms (subtracted)")
    worst = 0.0
    first = (timings.pop("open (first time: builds the screen)")[0] - baseline) * 1000
    label = "open (first time: builds the screen)"
    print(f"{label:<36} {first:7.1f} ms  ratio {first / FRAME_MS:5.2f}")
    for name, values in timings.items():
        ms = max(0.0, statistics.median(values) - baseline) * 1000
        worst = max(worst, ms)
        print(f"{name:<36} {ms:7.1f} ms  ratio {ms / FRAME_MS:5.2f}")
    print(f"ratio {worst / FRAME_MS:.2f}  (worst action / one frame; target <= 3)")


if __name__ == "__main__":
    main()
