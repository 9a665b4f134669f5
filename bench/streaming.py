"""Streaming Markdown: acp-tui's StreamingMarkdown against Textual's Markdown + MarkdownStream.

    uv run python bench/streaming.py [--quick]

Each case streams one document in 8-character chunks (as an agent sends agent_message_chunk
text) into a widget inside an anchored VerticalScroll of a headless 120x40 app, from a
producer task on the app's event loop: "fast" yields to the loop after every chunk, "paced"
sends 200 chunks/s.  Measured:

  lag    time from the last chunk (paced: from when it was due) to the document's last line
         being visible on the screen (the screen's compositor is rendered each frame and
         searched for the final marker);
  stall  the longest the event loop was blocked while streaming (a 5 ms heartbeat's worst gap),
         i.e. how janky the app felt;
  total  wall time from the first chunk to the final text on screen.

The baseline is capped at CAP seconds of lag per case (reported as "> CAP s").  Paced baseline
cases use a quarter of the input (said in the output) to keep the run short.  The last line is
`max lag <seconds>` for acp-tui, widget and app rows (target <= 0.1 s).

"app" rows run the real app (`AcpApp`, conversation, sidebar, status bar) headless against the
scripted agent process (`tests/agents/scripted_agent.py`) streaming the same chunks over a pipe.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import random
import sys
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual._compositor import CompositorUpdate
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.ui.app import AcpApp
from acp_tui.ui.markdown import StreamingMarkdown
from bench.headless import HeadlessUi
from tests.agents.scenarios import (
    end_turn,
    expect_prompt,
    initialize_ok,
    new_session_ok,
    stream_text,
    write_scenario,
)

CHUNK = 8
RATE = 200  # chunks per second in the paced cases
WORDS = [
    "agent",
    "session",
    "protocol",
    "stream",
    "chunk",
    "render",
    "widget",
    "terminal",
    "frame",
    "buffer",
    "layout",
    "message",
    "thread",
    "request",
    "response",
    "latency",
    "client",
    "server",
    "update",
    "token",
    "line",
    "block",
    "paragraph",
    "table",
    "fence",
    "cursor",
    "screen",
    "event",
    "loop",
]


def prose(size: int, rng: random.Random) -> str:
    parts: list[str] = []
    total = 0
    n = 0
    while total < size:
        n += 1
        if n % 6 == 1:
            block = f"## Section {n // 6 + 1}\n"
        elif n % 6 == 4:
            block = "\n".join(f"- {rng.choice(WORDS)} item with `code` {i}" for i in range(4))
            block += "\n"
        else:
            words = []
            for i in range(rng.randint(40, 90)):
                word = rng.choice(WORDS)
                if i % 17 == 5:
                    word = f"**{word}**"
                elif i % 23 == 7:
                    word = f"*{word}*"
                elif i % 29 == 11:
                    word = f"[{word}](https://example.com/{word})"
                words.append(word)
            block = " ".join(words).capitalize() + ".\n"
        parts.append(block)
        total += len(block) + 1
    parts.append("The very last words END-MARKER.\n")
    return "\n".join(parts)


def code(lines: int, rng: random.Random) -> str:
    out = ["Here is the module:", "", "```python"]
    for i in range(lines - 1):
        kind = i % 10
        if kind == 0:
            out.append(f"def handler_{i}(request: dict[str, int]) -> int:")
        elif kind == 1:
            out.append('    """Handle one request and return a status code."""')
        elif kind in (2, 3, 4):
            out.append(f"    value_{kind} = request.get('{rng.choice(WORDS)}', {i}) * {kind}")
        elif kind == 5:
            out.append(f"    if value_2 > {rng.randint(1, 99)}:  # {rng.choice(WORDS)}")
        elif kind == 6:
            out.append(f"        return value_3 + {i}")
        elif kind == 7:
            out.append("    return value_4")
        else:
            out.append("")
    out.append("# END-MARKER")
    out.append("```")
    return "\n".join(out) + "\n"


def table(rows: int, rng: random.Random) -> str:
    out = ["| # | name | size | description |", "|--:|:-----|-----:|:------------|"]
    for i in range(rows - 1):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(2, 5)))
        out.append(f"| {i} | item-{i} | {rng.randint(1, 99999)} | {words} |")
    out.append(f"| {rows} | last | 0 | END-MARKER |")
    return "\n".join(out) + "\n"


def chunks_of(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


@dataclass
class Result:
    lag: float | None  # None: over the cap
    stall: float
    total: float


class BenchApp(App[None]):
    CSS = "VerticalScroll { scrollbar-gutter: stable; }"

    def __init__(self, baseline: bool) -> None:
        super().__init__()
        self.baseline = baseline

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Markdown() if self.baseline else StreamingMarkdown()

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).anchor()


def screen_shows(app: App[None], marker: str) -> bool:
    strips = app.screen._compositor.render_strips()
    return any(marker in strip.text for strip in strips)


async def heartbeat(stop: asyncio.Event, worst: list[float]) -> None:
    loop = asyncio.get_running_loop()
    last = loop.time()
    while not stop.is_set():
        await asyncio.sleep(0.005)
        now = loop.time()
        worst[0] = max(worst[0], now - last - 0.005)
        last = now


async def run_case(text: str, paced: bool, baseline: bool, cap: float) -> Result:
    gc.collect()  # do not bill this case for the previous case's garbage
    app = BenchApp(baseline)
    parts = chunks_of(text)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        write: Callable[[str], Awaitable[None] | None]
        if baseline:
            stream = Markdown.get_stream(app.query_one(Markdown))
            write = stream.write
        else:
            widget = app.query_one(StreamingMarkdown)
            write = widget.append
        loop = asyncio.get_running_loop()
        stop, worst = asyncio.Event(), [0.0]
        beat = asyncio.create_task(heartbeat(stop, worst))
        start = loop.time()
        for i, part in enumerate(parts):
            pending = write(part)
            if pending is not None:
                await pending
            if paced:
                await asyncio.sleep(max(0.0, start + (i + 1) / RATE - loop.time()))
            else:
                await asyncio.sleep(0)
        # Paced: count from when the last chunk was due, so a producer starved by a busy loop
        # (the app falling behind) shows up as lag.  Fast: from the last append.
        last = start + len(parts) / RATE if paced else loop.time()
        lag: float | None = None
        while loop.time() - last < cap:
            if screen_shows(app, "END-MARKER"):
                lag = loop.time() - last
                break
            await asyncio.sleep(1 / 120)
        total = loop.time() - start
        stop.set()
        await beat
        if baseline:
            await stream.stop()
    return Result(lag, worst[0], total)


async def run_app_case(text: str, paced: bool, cap: float, workdir: Path) -> Result:
    """The whole app against the scripted agent process: lag from the arrival of the last
    chunk's frame (the agent wrote it) to the first painted frame that shows the end marker."""
    gc.collect()
    steps = [
        initialize_ok(),
        new_session_ok("bench"),
        expect_prompt(),
        stream_text("bench", text, chunk=CHUNK, rate=RATE if paced else None),
        end_turn(),
    ]
    agent = write_scenario(workdir, steps, name=f"stream-{'paced' if paced else 'fast'}")
    app = AcpApp(lambda bridge: AgentSession(agent.argv, workdir, HeadlessUi()))
    last_chunk_at = [0.0]
    painted_at = [0.0]
    async with app.run_test(size=(120, 40)) as pilot:
        session = app.session
        loop = asyncio.get_running_loop()
        while session.state.value != "ready":
            await pilot.pause(0.01)

        def tap(event: TrafficEvent) -> None:
            if event.direction == "in" and "agent_message_chunk" in event.raw:
                last_chunk_at[0] = loop.time()

        session.traffic.subscribe(tap)
        original = app._display

        painted = asyncio.Event()

        def display(screen: object, renderable: object) -> None:
            original(screen, renderable)  # type: ignore[arg-type]
            if (
                not painted.is_set()
                and isinstance(renderable, CompositorUpdate)
                and "END-MARKER" in renderable.render_segments(app.console)
            ):
                painted_at[0] = loop.time()
                painted.set()

        app._display = display  # type: ignore[method-assign]
        stop, worst = asyncio.Event(), [0.0]
        beat = asyncio.create_task(heartbeat(stop, worst))
        start = loop.time()
        session.submit("stream please")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(painted.wait(), cap + len(text) / CHUNK / RATE)
        stop.set()
        await beat
        total = loop.time() - start
        await session.close()
    lag = painted_at[0] - last_chunk_at[0] if painted_at[0] else None
    return Result(max(0.0, lag) if lag is not None else None, worst[0], total)


def fmt(seconds: float | None, cap: float) -> str:
    return f"> {cap:.0f} s" if seconds is None else f"{seconds:.3f} s"


async def main(quick: bool) -> float:
    rng = random.Random(1)
    cap = 10.0 if quick else 60.0
    cases = {
        "prose": prose(4_000 if quick else 17_500, rng),
        "code": code(80 if quick else 300, rng),
        "table": table(40 if quick else 120, rng),
    }
    # Warm-up (untimed): the first fence in a process pays ~50 ms of pygments lexer compilation
    # and first-use imports; measure the steady state for both widgets.
    warm = "# w\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1\n```\nEND-MARKER\n"
    for baseline in (False, True):
        await run_case(warm, False, baseline, cap)
    worst_lag = 0.0
    print(f"{'case':<7} {'mode':<7} {'widget':<9} {'input':>13}", end="")
    print(f" {'lag':>9} {'stall':>9} {'total':>9}")
    for name, text in cases.items():
        for paced in (False, True):
            mode = "paced" if paced else "fast"
            for baseline in (False, True):
                source = text
                if baseline and paced:
                    source = shorten(text, name)
                result = await run_case(source, paced, baseline, cap)
                who = "textual" if baseline else "acp-tui"
                size = f"{len(source) / 1000:.1f} KB/{len(chunks_of(source))}"
                print(
                    f"{name:<7} {mode:<7} {who:<9} {size:>13} {fmt(result.lag, cap):>9}"
                    f" {result.stall:>7.3f} s {result.total:>7.2f} s",
                    flush=True,
                )
                if not baseline:
                    worst_lag = max(worst_lag, result.lag if result.lag is not None else cap)
            with tempfile.TemporaryDirectory() as workdir:
                result = await run_app_case(text, paced, cap, Path(workdir))
            size = f"{len(text) / 1000:.1f} KB/{len(chunks_of(text))}"
            print(
                f"{name:<7} {mode:<7} {'app':<9} {size:>13} {fmt(result.lag, cap):>9}"
                f" {result.stall:>7.3f} s {result.total:>7.2f} s",
                flush=True,
            )
            worst_lag = max(worst_lag, result.lag if result.lag is not None else cap)
    print("(app rows: the whole acp-tui app against the scripted agent process; lag from the")
    print(" last chunk's arrival to the first painted frame showing the end of the text;")
    print(" paced textual rows use a quarter of the input; input = size/chunks;")
    print(" both widgets warmed up first: a cold process adds ~50 ms to its first code fence)")
    return worst_lag


def shorten(text: str, name: str) -> str:
    """About a quarter of ``text``, still ending with the marker line and valid Markdown."""
    lines = text.splitlines()
    if name == "code":
        body = lines[3:-2]
        return "\n".join([*lines[:3], *body[: len(body) // 4], *lines[-2:]]) + "\n"
    if name == "table":
        body = lines[2:-1]
        return "\n".join([*lines[:2], *body[: len(body) // 4], lines[-1]]) + "\n"
    return text[-len(text) // 4 :].split("\n", 1)[1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller inputs, 10 s cap")
    args = parser.parse_args()
    print(f"max lag {asyncio.run(main(args.quick)):.3f}")
