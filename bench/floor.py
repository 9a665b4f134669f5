"""acp-tui against the floor client, both reading the same agent process through a pipe.

    uv run python bench/floor.py [--rounds 2] [--rate 200] [--quick] [--case prose]

The agent is a separate process (`bench/pipe_agent.py`) streaming one text paced at RATE
chunks of CHUNK characters a second (200 tok/s), then writing the time of its last write (the
monotonic clock is shared by every process). Each case runs the floor client
(`bench/floor_client.py`: json.loads each frame, writes the text to a 120x40 pty), the minimal
Textual client (`bench/textual_floor.py`: one Line-API widget that appends each chunk's text,
headless at 120x40 like the app: what Textual itself costs) and the real app (`AcpApp` headless
at 120x40), each with its own agent process, interleaved, ROUNDS times, alternating the order.
Measured per run:

  lag    from the agent's last write to, for the apps, the first painted frame that shows the
         text's end marker; for the floor, its write of the last chunk;
  cpu    the client's CPU seconds from the prompt to that moment (the agent's are its own);
  total  wall time from the prompt to that moment.

Printed: each run, then the median per case and client, with the prose CPU ratios (app/floor,
textual/floor: the lower bound for a Textual client, app/textual). Targets: app CPU <= 5x the
floor's on prose; the app's lag within 3 frames (60 fps) of the floor's for prose, a 300-line
fence and a 120-row table. The headless apps do not write to a terminal, so their CPU leaves out
encoding the frames (a real terminal adds that). The last line: the worst ratio of the targets.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import pty
import random
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import threading
import time
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual._compositor import CompositorUpdate

from acp_tui.client.session.agent_session import AgentSession
from acp_tui.ui.app import AcpApp
from bench.headless import HeadlessUi
from bench.streaming import code, prose, table
from bench.textual_floor import TailApp, stream_into

HERE = Path(__file__).resolve().parent
CHUNK = 8
FRAME = 1 / 60
SIZE = (120, 40)
MARKER = "END-MARKER"
CLIENTS = ("floor", "textual", "app")


@dataclass
class Run:
    lag: float
    cpu: float
    total: float


def agent_argv(text_file: Path, stamp: Path, rate: float) -> list[str]:
    return [
        sys.executable,
        str(HERE / "pipe_agent.py"),
        str(text_file),
        "--chunk",
        str(CHUNK),
        "--rate",
        str(rate),
        "--stamp",
        str(stamp),
    ]


def read_stamp(stamp: Path) -> float:
    return float(stamp.read_text())


def run_floor(text_file: Path, workdir: Path, rate: float) -> Run:
    stamp = workdir / "floor.stamp"
    stamp.unlink(missing_ok=True)
    master, slave = pty.openpty()
    ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", SIZE[1], SIZE[0], 0, 0))

    def drain() -> None:
        with contextlib.suppress(OSError):
            while os.read(master, 65536):
                pass

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    started = time.monotonic()
    floor = subprocess.run(
        [sys.executable, str(HERE / "floor_client.py"), "--", *agent_argv(text_file, stamp, rate)],
        stdout=slave,
        stderr=subprocess.PIPE,
        cwd=workdir,
        check=True,
    )
    os.close(slave)
    reader.join(timeout=5)
    os.close(master)
    report = json.loads(floor.stderr.decode().strip().splitlines()[-1])
    last = report["last_write"]
    return Run(last - read_stamp(stamp), report["cpu"], last - started)


async def run_app(text_file: Path, workdir: Path, rate: float, cap: float) -> Run:
    stamp = workdir / "app.stamp"
    stamp.unlink(missing_ok=True)
    argv = agent_argv(text_file, stamp, rate)
    app = AcpApp(lambda bridge: AgentSession(argv, workdir, HeadlessUi()))
    painted = asyncio.Event()
    seen = [0.0, 0.0]  # monotonic time, CPU time
    async with app.run_test(size=SIZE) as pilot:
        session = app.session
        while session.state.value != "ready":
            await pilot.pause(0.01)
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            # the marker cannot show before the agent's last write: skip the search till then
            if (
                not painted.is_set()
                and isinstance(renderable, CompositorUpdate)
                and stamp.exists()
                and MARKER in renderable.render_segments(app.console)
            ):
                seen[:] = [time.monotonic(), time.process_time()]
                painted.set()

        app._display = display  # type: ignore[method-assign]
        gc.collect()
        started, cpu = time.monotonic(), time.process_time()
        session.submit("stream please")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(painted.wait(), cap)
        await session.close()
    if not painted.is_set():
        raise SystemExit(f"the app never showed the end of {text_file.name} within {cap} s")
    return Run(seen[0] - read_stamp(stamp), seen[1] - cpu, seen[0] - started)


async def run_textual(text_file: Path, workdir: Path, rate: float, cap: float) -> Run:
    """The minimal Textual client (`bench/textual_floor.py`), measured like the app."""
    stamp = workdir / "textual.stamp"
    stamp.unlink(missing_ok=True)
    app = TailApp()
    painted, done = asyncio.Event(), asyncio.Event()
    seen = [0.0, 0.0]
    marks = [0.0, 0.0]  # when the prompt went out: monotonic time, CPU time

    def started() -> None:
        marks[:] = [time.monotonic(), time.process_time()]

    async with app.run_test(size=SIZE):
        original = app._display

        def display(screen: Any, renderable: Any) -> None:
            original(screen, renderable)
            if (
                not painted.is_set()
                and isinstance(renderable, CompositorUpdate)
                and stamp.exists()
                and MARKER in renderable.render_segments(app.console)
            ):
                seen[:] = [time.monotonic(), time.process_time()]
                painted.set()

        app._display = display  # type: ignore[method-assign]
        gc.collect()
        argv = agent_argv(text_file, stamp, rate)
        task = asyncio.create_task(stream_into(app, argv, started, done))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(painted.wait(), cap)
        await asyncio.wait_for(done.wait(), 10)
        await task
    if not painted.is_set():
        raise SystemExit(f"the Textual floor never showed the end of {text_file.name}")
    return Run(seen[0] - read_stamp(stamp), seen[1] - marks[1], seen[0] - marks[0])


def row(case: str, who: str, run: Run) -> str:
    return (
        f"{case:<6} {who:<7} lag {run.lag * 1000:7.1f} ms ({run.lag / FRAME:5.1f} frames)  "
        f"cpu {run.cpu:6.2f} s  total {run.total:6.2f} s"
    )


async def main(rounds: int, rate: float, quick: bool, only: str | None = None) -> float:
    rng = random.Random(1)
    cases = {
        "prose": prose(4_000 if quick else 12_000, rng),
        "fence": code(80 if quick else 300, rng),
        "table": table(40 if quick else 120, rng),
    }
    if only is not None:
        cases = {only: cases[only]}
    results: dict[tuple[str, str], list[Run]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        warm = workdir / "warm.md"
        warm.write_text(
            "# w\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```python\nx = 1\n```\nEND-MARKER\n"
        )
        await run_app(warm, workdir, 0, 30)  # first-use imports and lexers, untimed
        for round_ in range(rounds):
            for case, text in cases.items():
                text_file = workdir / f"{case}.md"
                text_file.write_text(text)
                cap = 30 + len(text) / CHUNK / rate
                order = CLIENTS if round_ % 2 == 0 else CLIENTS[::-1]
                for who in order:
                    if who == "floor":
                        run = run_floor(text_file, workdir, rate)
                    elif who == "textual":
                        run = await run_textual(text_file, workdir, rate, cap)
                    else:
                        run = await run_app(text_file, workdir, rate, cap)
                    results.setdefault((case, who), []).append(run)
                    print(f"round {round_ + 1}: {row(case, who, run)}", flush=True)
    print(f"medians over {rounds} round(s), {rate:.0f} chunks/s of {CHUNK} characters:")
    worst = 0.0
    for case in cases:
        floor, textual, app = (
            Run(
                *(
                    statistics.median(getattr(r, f) for r in results[(case, who)])
                    for f in ("lag", "cpu", "total")
                )
            )
            for who in CLIENTS
        )
        print(f"  {row(case, 'floor', floor)}")
        print(f"  {row(case, 'textual', textual)}")
        print(f"  {row(case, 'app', app)}")
        frames = (app.lag - floor.lag) / FRAME
        lag_ratio = max(frames, 0.0) / 3
        print(f"  {case}: app lag - floor lag {frames:.1f} frames (target <= 3)", end="")
        worst = max(worst, lag_ratio)
        if case == "prose":
            ratio = app.cpu / max(floor.cpu, 1e-6)
            print(f", app cpu / floor cpu {ratio:.1f}x (target <= 5)")
            print(
                f"  prose: textual cpu / floor cpu {textual.cpu / max(floor.cpu, 1e-6):.1f}x "
                f"(what Textual itself costs), app cpu / textual cpu "
                f"{app.cpu / max(textual.cpu, 1e-6):.1f}x"
            )
            worst = max(worst, ratio / 5)
        else:
            print()
    return worst


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rate", type=float, default=200, help="chunks per second")
    parser.add_argument("--quick", action="store_true", help="smaller inputs")
    parser.add_argument("--case", choices=("prose", "fence", "table"), help="only this case")
    args = parser.parse_args()
    ratio = asyncio.run(main(args.rounds, args.rate, args.quick, args.case))
    print(f"worst ratio to target {ratio:.2f} (<= 1 meets both targets)")
