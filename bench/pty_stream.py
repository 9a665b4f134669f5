"""End-of-stream lag and CPU while streaming, in a real terminal.

    uv run python bench/pty_stream.py [--rounds 2] [--case prose|fence|table] [--rate 0|200]
        [--think SECONDS]

Cases: prose (12 KB of Markdown), a 300-line fence, a 120-row table, each at full speed (rate 0:
as fast as the pipe takes it) and at 200 chunks of 8 characters a second (~200 tok/s). Each
text ends with a marker. Clients, each in its own 160x50 pseudo-terminal (`bench/pty_harness.py`)
with its own agent process (`bench/pipe_agent.py`, which writes the monotonic time of its last
chunk to a stamp file; with ``--think`` it waits that long after the prompt before its first
chunk, as a model does), interleaved, the order alternating:

  floor    `bench/floor_client.py`: json.loads each frame, write its text;
  textual  `bench/textual_floor.py`: one Line-API widget in a real terminal (Textual's floor);
  acp-tui  the app, the prompt typed once the status bar says ready.

Measured per run: `lag`, from the agent's last write to the marker on the terminal (the last
text on screen); `cpu`, the client's CPU seconds from the prompt (for the floor and textual:
from their first output, just before the prompt is sent) to that moment.

Printed: each case's medians, then acp-tui's lag minus the floor's in 60 fps frames (target
<= 3), acp-tui's CPU over the floor's (target <= 8) and over textual's (target <= 1). The last
line is the worst of those ratios over its target.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pty_harness import (
    ACP_TUI,
    READY_TEXT,
    PtyRun,
    interleaved,
    load,
    median,
    python_script,
)
from bench.streaming import code, prose, table

CHUNK = 8
FRAME = 1 / 60
MARKER = "END-MARKER"
CLIENTS = ("floor", "textual", "acp-tui")
LAG_FRAMES, FLOOR_CPU, TEXTUAL_CPU = 3.0, 8.0, 1.0


@dataclass
class Run:
    lag: float
    cpu: float


def texts() -> dict[str, str]:
    rng = random.Random(7)
    return {"prose": prose(12_000, rng), "fence": code(300, rng), "table": table(120, rng)}


def read_stamp(stamp: Path, timeout: float = 10.0) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            return float(stamp.read_text())
        except (OSError, ValueError):
            time.sleep(0.01)  # the agent writes it right after its last chunk
    raise RuntimeError(f"no stamp in {stamp}")


def run_client(
    name: str, text_file: Path, workdir: Path, rate: float, timeout: float, think: float = 0.0
) -> Run:
    stamp = workdir / f"{name}.stamp"
    stamp.unlink(missing_ok=True)
    agent = python_script("pipe_agent.py", str(text_file), "--chunk", str(CHUNK))
    agent += ["--rate", str(rate), "--stamp", str(stamp), "--think", str(think)]
    if name == "floor":
        argv = python_script("floor_client.py", "--ready", "floor ready", "--", *agent)
    elif name == "textual":
        argv = python_script("textual_floor.py", "--", *agent)
    else:
        argv = [str(ACP_TUI), "--cwd", str(workdir), "--", *agent]
    with PtyRun(argv, cwd=workdir) as run:
        if name == "floor":
            seen = run.wait_for("floor ready", timeout)
        elif name == "textual":
            seen = run.wait_for(lambda r: r.first_text is not None, timeout)
        else:
            seen = run.wait_for(READY_TEXT, timeout)
        if seen is None:
            raise RuntimeError(f"{name} never became ready: {run.text[-300:]!r}")
        since = run.length
        cpu = run.cpu()
        if name == "acp-tui":
            run.send(b"go\r")
        shown = run.wait_for(MARKER, timeout + 60, since=since)
        cpu = run.cpu() - cpu
        if shown is None:
            raise RuntimeError(f"{name}: the marker never showed: {run.text[-300:]!r}")
        lag = shown - read_stamp(stamp)
        run.close(b"" if name == "floor" else b"\x11")
    return Run(lag, cpu)


def main(
    rounds: int, cases: list[str], rates: list[float], timeout: float, think: float = 0.0
) -> float:
    before = load()
    results: dict[tuple[str, float, str], list[Run]] = {}
    all_texts = texts()
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for case in cases:
            text_file = workdir / f"{case}.md"
            text_file.write_text(all_texts[case])
            for rate in rates:
                for _n, name in interleaved(CLIENTS, rounds):
                    run = run_client(name, text_file, workdir, rate, timeout, think)
                    results.setdefault((case, rate, name), []).append(run)
                    print(
                        f"  {case:6} rate {rate:4.0f} {name:8} lag {run.lag:6.3f} s cpu "
                        f"{run.cpu:6.3f} s",
                        flush=True,
                    )
    print(
        f"{rounds} interleaved rounds in 160x50 ptys; load average {before} before, "
        f"{load()} after (2 cores)"
    )
    print(f"  {'case':6} {'rate':>5} {'client':8} {'lag s':>7} {'cpu s':>7}")
    for (case, rate, name), runs in results.items():
        lag = median([run.lag for run in runs])
        cpu = median([run.cpu for run in runs])
        print(f"  {case:6} {rate:5.0f} {name:8} {lag:7.3f} {cpu:7.3f}")
    for case in cases:
        for rate in rates:

            def med(name: str, field: str, key: tuple[str, float] = (case, rate)) -> float:
                return median([getattr(run, field) for run in results[(*key, name)]])

            frames = (med("acp-tui", "lag") - med("floor", "lag")) / FRAME
            floor_cpu = med("acp-tui", "cpu") / max(med("floor", "cpu"), 0.01)
            textual_cpu = med("acp-tui", "cpu") / max(med("textual", "cpu"), 0.01)
            print(
                f"{case} rate {rate:.0f}: acp-tui lag - floor {frames:5.1f} frames "
                f"(target {LAG_FRAMES:.0f}); cpu / floor {floor_cpu:5.1f} (target "
                f"{FLOOR_CPU:.0f}); cpu / textual {textual_cpu:4.2f} (target {TEXTUAL_CPU:.0f})"
            )
            worst = max(
                worst, frames / LAG_FRAMES, floor_cpu / FLOOR_CPU, textual_cpu / TEXTUAL_CPU
            )
    print(f"ratio {worst:.2f}")
    return worst


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--case", choices=("prose", "fence", "table"), action="append")
    parser.add_argument("--rate", type=float, action="append")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--think", type=float, default=0.0, help="seconds to the first chunk")
    args = parser.parse_args()
    main(
        args.rounds,
        args.case or ["prose", "fence", "table"],
        args.rate or [0.0, 200.0],
        args.timeout,
        args.think,
    )
