"""A long conversation stays cheap: 500 turns of ~2 KB Markdown with a tool call each.

    uv run python bench/long_thread.py [--turns N]

The real app (`AcpApp`, main screen, conversation, sidebar) runs headless at 140x45 with its
session's thread fed the updates an agent would send (no agent process: this measures the
reducer and the UI). Each turn: a user prompt, a tool call that starts and completes, and
~2 KB of Markdown (prose, a list, a code fence) streamed in 8-character chunks.

Measured at the end, at turn N:
  rss      the process's resident set size (target <= 300 MB);
  append   over 30 chunks, from applying one more `agent_message_chunk` to the first painted
           frame that shows it (the compositor's output searched for a marker):
           - work: the CPU time the process spends in between (reducer, widget, layout,
             compositing, painting): the cost of a chunk, target <= 16 ms (one frame);
           - latency: wall-clock time, which also includes waiting for the next frame (the
             app paints at most 60 times a second), so ~1-2 frames whatever the work.
The last line is `rss <MB> MB, append <ms> ms` (the worst work per chunk).
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual._compositor import CompositorUpdate

from acp_tui.client.agent_session import AgentSession
from acp_tui.protocol.models import text_block
from acp_tui.ui.app import AcpApp
from acp_tui.ui.markdown import StreamingMarkdown
from bench.headless import HeadlessUi

CHUNK = 8
SESSION = "bench"


def turn_markdown(turn: int) -> str:
    prose = (
        f"Turn {turn}: the agent looked at the session, read the files it needed and "
        "explains what it found in a few sentences of plain prose so that the message "
        "has some body to wrap across the width of the conversation view. "
    ) * 5
    items = "\n".join(f"- item {i} of turn {turn} with `inline code`" for i in range(6))
    code = "\n".join(f"    value_{i} = compute({i}, turn={turn})" for i in range(12))
    return f"## Result {turn}\n\n{prose}\n\n{items}\n\n```python\ndef f():\n{code}\n```\n\nDone.\n"


def update(variant: str, /, **fields: Any) -> dict[str, Any]:
    return {"sessionId": SESSION, "update": {"sessionUpdate": variant, **fields}}


def feed_turn(session: AgentSession, turn: int) -> None:
    thread = session.thread
    thread.add_user_prompt([text_block(f"prompt {turn}: please do the thing")])
    thread.begin_turn()
    call = f"call-{turn}"
    thread.apply_notification(
        update(
            "tool_call",
            toolCallId=call,
            title=f"Read file {turn}",
            kind="read",
            status="in_progress",
            locations=[{"path": f"/src/f{turn}.py", "line": 3}],
        )
    )
    thread.apply_notification(
        update(
            "tool_call_update",
            toolCallId=call,
            status="completed",
            content=[{"type": "content", "content": {"type": "text", "text": "42 lines"}}],
        )
    )
    text = turn_markdown(turn)
    for start in range(0, len(text), CHUNK):
        thread.apply_notification(
            update(
                "agent_message_chunk", content={"type": "text", "text": text[start : start + CHUNK]}
            )
        )
    thread.end_turn("end_turn")


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def run(turns: int) -> None:
    app = AcpApp(lambda bridge: AgentSession(["true"], Path.cwd(), HeadlessUi()), start_agent=False)
    async with app.run_test(size=(140, 45)) as pilot:
        session = app.session
        started = time.perf_counter()
        for turn in range(1, turns + 1):
            feed_turn(session, turn)
            if turn % 25 == 0:
                await pilot.pause()
                print(
                    f"  turn {turn}: {time.perf_counter() - started:.1f} s, rss {rss_mb():.0f} MB",
                    flush=True,
                )
        await pilot.pause()
        # one more turn, streaming: measure chunk → screen at turn N+1
        thread = session.thread
        thread.add_user_prompt([text_block("the last prompt")])
        thread.begin_turn()
        thread.apply_notification(
            update("agent_message_chunk", content={"type": "text", "text": "Streaming now. "})
        )
        await pilot.pause()
        samples: list[float] = []
        after_flush: list[float] = []
        work: list[float] = []
        watch = FrameWatch(app)
        flushes = FlushWatch(app.screen.query(StreamingMarkdown).last())
        for index in range(30):
            marker = f"mk{index:03d}x"
            watch.expect(marker)
            t0 = time.perf_counter()
            cpu0 = time.process_time()
            thread.apply_notification(
                update("agent_message_chunk", content={"type": "text", "text": marker + " "})
            )
            try:
                await asyncio.wait_for(watch.seen.wait(), 5)
            except TimeoutError:
                raise SystemExit(f"chunk {index} never reached the screen") from None
            samples.append(watch.seen_at - t0)
            work.append(watch.seen_cpu - cpu0)
            after_flush.append(watch.seen_at - max(flushes.flushed_at, t0))
        thread.end_turn("end_turn")
        widgets = len(app.screen.query("*"))
    median = statistics.median(samples) * 1000
    worst = max(samples) * 1000
    work_median = statistics.median(work) * 1000
    work_worst = max(work) * 1000
    print(f"turns {turns}, widgets on the screen {widgets}")
    print(
        f"append at turn {turns + 1}, work (CPU time from the chunk to the frame that shows it): "
        f"median {work_median:.1f} ms, worst {work_worst:.1f} ms (target <= 16)"
    )
    print(
        f"  latency (wall clock, includes waiting for the next 60 fps frame): "
        f"median {median:.1f} ms, worst {worst:.1f} ms"
    )
    print(
        f"  of which after the markdown's once-a-frame flush (layout, compositing, paint): "
        f"median {statistics.median(after_flush) * 1000:.1f} ms, "
        f"worst {max(after_flush) * 1000:.1f} ms"
    )
    print(f"rss {rss_mb():.0f} MB (target <= 300)")
    print(f"rss {rss_mb():.0f} MB, append {work_worst:.1f} ms")


class FlushWatch:
    """When the streaming message last brought its strips up to date (its per-frame timer)."""

    def __init__(self, view: StreamingMarkdown) -> None:
        self.flushed_at = 0.0
        original = view._flush

        def flush() -> None:
            self.flushed_at = time.perf_counter()
            original()

        view._flush = flush  # type: ignore[method-assign]


class FrameWatch:
    """Sees every frame the app paints (headless: `App._display` still gets each update)."""

    def __init__(self, app: AcpApp) -> None:
        self.app = app
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
    parser.add_argument("--turns", type=int, default=500)
    args = parser.parse_args()
    asyncio.run(run(args.turns))


if __name__ == "__main__":
    main()
