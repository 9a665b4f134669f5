"""A long session, streamed: 300 turns of ~2 KB painted chunk by chunk in the real app.

    uv run python bench/long_session.py [--turns 300] [--no-collector-policy]

The real app (`AcpApp`, main screen, conversation, sidebar) runs headless at 140x45 with its
session's thread fed what an agent sends (no agent process: this measures the reducer and the
UI). Each turn: a user prompt, a tool call that starts and completes, then ~2 KB of Markdown
(prose, a list, a code fence) as `agent_message_chunk`s of CHUNK characters, one every
PACE seconds, so the app paints while the message grows, as it does for a real agent.

Measured per turn: the worst gap between two painted frames while the message streams (a
garbage-collection pass or a relayout of the history shows up here), and the process's
current RSS (/proc/self/statm, not the ru_maxrss peak). Printed per stage of 50 turns: the
worst gap after turn 10, the median turn's worst gap, their ratio (target <= 4), RSS, and the
collector's full passes and their time.

Then, at turn N+1, the cost of one more chunk: over 30 chunks, from applying an
`agent_message_chunk` to the first painted frame that shows it (the frame's text searched for
a marker), the CPU time the process spends (reducer, widget, layout, compositing, painting;
target <= 16 ms, one frame) and the wall-clock latency (which includes waiting for the next
60 fps frame).

The last line is the worst ratio over all stages, the RSS growth per turn after turn 10
(target <= 0.2 MB) and the worst CPU time per chunk at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import itertools
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual._compositor import CompositorUpdate

from acp_tui.client.session.agent_session import AgentSession

try:
    from acp_tui.ui import runtime

    collection: Any = runtime.collection
except ImportError:  # an older tree, for comparisons
    from acp_tui.ui import collector

    collection = getattr(collector, "policy", None)
from acp_tui.ui.app import AcpApp
from bench.headless import HeadlessUi
from bench.turns import chunks, complete_tool_call, start_turn, update

CHUNK = 24
PACE = 1 / 200
STAGE = 50
WARMUP = 10


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        resident = int(statm.read().split()[1])
    return resident * os.sysconf("SC_PAGE_SIZE") / 2**20


def tracked() -> int:
    """Objects the collector tracks, in thousands (frozen ones included)."""
    return (len(gc.get_objects()) + gc.get_freeze_count()) // 1000


class Frames:
    """Timestamps of the frames the app paints (headless, `App._display` gets each one)."""

    def __init__(self, app: AcpApp) -> None:
        self.times: list[float] = []
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            self.times.append(time.perf_counter())

        app._display = display  # type: ignore[method-assign]


class Collections:
    """Full (generation 2) collections: how many, how long in total and at worst."""

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.worst = 0.0
        self._start = 0.0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if info.get("generation") != 2:
            return
        if phase == "start":
            self._start = time.perf_counter()
        else:
            spent = time.perf_counter() - self._start
            self.count += 1
            self.total += spent
            self.worst = max(self.worst, spent)

    def take(self) -> tuple[int, float, float]:
        taken = (self.count, self.total, self.worst)
        self.count, self.total, self.worst = 0, 0.0, 0.0
        return taken


async def stream_turn(session: AgentSession, frames: Frames, turn: int) -> float:
    """One turn streamed chunk by chunk; the worst gap between frames while it streamed."""
    start_turn(session, turn)
    await asyncio.sleep(PACE)
    complete_tool_call(session, turn)
    thread = session.thread
    start = time.perf_counter()
    first_frame = len(frames.times)
    for notification in chunks(turn, CHUNK):
        thread.apply_notification(notification)
        await asyncio.sleep(PACE)
    await asyncio.sleep(0.05)  # the last chunk's frame
    times = [start, *frames.times[first_frame:]]
    thread.end_turn("end_turn")
    return max(b - a for a, b in itertools.pairwise(times)) if len(times) > 1 else 0.0


async def run(turns: int) -> tuple[float, float, float]:
    app = AcpApp(lambda bridge: AgentSession(["true"], Path.cwd(), HeadlessUi()), start_agent=False)
    collections = Collections()
    worst_ratio = 0.0
    rss_at_warmup = 0.0
    async with app.run_test(size=(140, 45)) as pilot:
        frames = Frames(app)
        gaps: list[float] = []
        started = time.perf_counter()
        for turn in range(1, turns + 1):
            gaps.append(await stream_turn(app.session, frames, turn))
            await pilot.pause()
            if turn == WARMUP:
                rss_at_warmup = rss_mb()
            if turn % STAGE == 0:
                stage = gaps[max(turn - STAGE, WARMUP) : turn]
                median = statistics.median(gaps[WARMUP:turn])
                worst = max(stage)
                ratio = worst / median
                worst_ratio = max(worst_ratio, ratio)
                count, total, longest = collections.take()
                print(
                    f"  turns {turn - STAGE + 1:3}-{turn:3}: worst gap {worst * 1000:6.1f} ms, "
                    f"median turn's {median * 1000:5.1f} ms, ratio {ratio:4.1f} (target <= 4); "
                    f"rss {rss_mb():5.1f} MB; full gc {count} x, {total * 1000:.0f} ms "
                    f"(longest {longest * 1000:.0f} ms); tracked {tracked()}k; "
                    f"{time.perf_counter() - started:.0f} s",
                    flush=True,
                )
        growth = (rss_mb() - rss_at_warmup) / max(turns - WARMUP, 1)
        work = await append_cost(app, pilot, turns + 1)
    gc.callbacks.remove(collections._callback)
    return worst_ratio, growth, work


async def append_cost(app: AcpApp, pilot: Any, turn: int) -> float:
    """One more streaming turn: CPU and wall time from a chunk to the frame that shows it."""
    thread = app.session.thread
    start_turn(app.session, turn)
    complete_tool_call(app.session, turn)
    thread.apply_notification(chunks(turn, 400)[0])
    await pilot.pause()
    watch = FrameWatch(app)
    work: list[float] = []
    latency: list[float] = []
    for index in range(30):
        marker = f"mk{index:03d}x"
        watch.expect(marker)
        wall, cpu = time.perf_counter(), time.process_time()
        text = {"type": "text", "text": marker + " "}
        thread.apply_notification(update("agent_message_chunk", content=text))
        try:
            await asyncio.wait_for(watch.seen.wait(), 5)
        except TimeoutError:
            raise SystemExit(f"chunk {index} never reached the screen") from None
        latency.append(watch.seen_at - wall)
        work.append(watch.seen_cpu - cpu)
    thread.end_turn("end_turn")
    print(
        f"append at turn {turn}, CPU from a chunk to the frame that shows it: "
        f"median {statistics.median(work) * 1000:.1f} ms, worst {max(work) * 1000:.1f} ms "
        f"(target <= 16); wall clock median {statistics.median(latency) * 1000:.1f} ms, "
        f"worst {max(latency) * 1000:.1f} ms; widgets {len(app.screen.query('*'))}"
    )
    return max(work)


class FrameWatch:
    """Sees every frame the app paints and notes when one first shows ``marker``."""

    def __init__(self, app: AcpApp) -> None:
        self.marker: str | None = None
        self.seen = asyncio.Event()
        self.seen_at = 0.0
        self.seen_cpu = 0.0
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if (
                self.marker is not None
                and isinstance(renderable, CompositorUpdate)
                and self.marker in renderable.render_segments(app.console)
            ):
                self.seen_at = time.perf_counter()
                self.seen_cpu = time.process_time()
                self.marker = None
                self.seen.set()

        app._display = display  # type: ignore[method-assign]

    def expect(self, marker: str) -> None:
        self.marker = marker
        self.seen.clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument(
        "--no-collector-policy",
        action="store_true",
        help="leave the garbage collector alone at turn ends (to measure the policy)",
    )
    args = parser.parse_args()
    if collection is not None:
        collection.enabled = not args.no_collector_policy
    on = collection is not None and collection.enabled
    print(f"collector policy: {'on' if on else 'off'}")
    ratio, growth, work = asyncio.run(run(args.turns))
    print(
        f"worst gap / median turn's {ratio:.1f} (target <= 4), "
        f"rss growth {growth:.3f} MB/turn (target <= 0.2), "
        f"append {work * 1000:.1f} ms CPU (target <= 16)"
    )


if __name__ == "__main__":
    main()
