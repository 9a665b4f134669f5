"""The first frame, in a real terminal: acp-tui against the floor client and a minimal Textual app.

    uv run python bench/first_frame.py [--runs 5] [--timeout 20]

Each run starts, in a 160x50 pseudo-terminal (`bench/pty_harness.py`), with the agent a
separate process (`bench/pipe_agent.py`, which answers `initialize` and `session/new`):

  floor    `bench/floor_client.py --ready`: spawns the agent, opens the session, prints a line;
  minimal  `bench/minimal_textual.py`: imports Textual and shows one `Static` (no agent);
  acp-tui  `acp-tui -- AGENT`.

Measured from just before the fork: `first` when the first printable character reaches the
terminal, `ready` when the prompt is usable (the floor's line; the minimal app's text;
acp-tui's status bar saying "● ready", the session open and the prompt focused). The runs are
interleaved, the order alternating; medians (min-max) are printed with the load average.

Targets: acp-tui's first bytes on screen within 2x the floor's ready time; its ready prompt
within 1.5x the minimal Textual app's. The last line is the worse of the two ratios over its
target (<= 1 meets both).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
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
    spread,
)

FIRST_TARGET = 2.0
READY_TARGET = 1.5
CLIENTS = ("floor", "minimal", "acp-tui")


def command(name: str, workdir: Path) -> tuple[list[str], str, bytes]:
    """The command line, its ready text and the keys that end it."""
    agent = python_script("pipe_agent.py", str(workdir / "text"), "--stamp", str(workdir / "s"))
    if name == "floor":
        return (
            python_script("floor_client.py", "--ready", "floor ready", "--idle", "--", *agent),
            ("floor ready"),
            b"q\n",
        )
    if name == "minimal":
        return python_script("minimal_textual.py"), "minimal ready", b"\x11"
    return [str(ACP_TUI), "--cwd", str(workdir), "--", *agent], READY_TEXT, b"\x11"


def launch(name: str, workdir: Path, timeout: float) -> tuple[float | None, float | None]:
    """Seconds to the first printable text and to the ready text (None: not within timeout)."""
    argv, ready_text, quit_keys = command(name, workdir)
    with PtyRun(argv, cwd=workdir) as run:
        ready = run.wait_for(ready_text, timeout)
        run.close(quit_keys)
    first = None if run.first_text is None else run.first_text - run.start
    if ready is None:
        print(f"  {name}: not ready within {timeout} s; screen text: {run.text[-300:]!r}")
        return first, None
    return first, ready - run.start


def main(runs: int, timeout: float) -> float:
    firsts: dict[str, list[float]] = {name: [] for name in CLIENTS}
    readies: dict[str, list[float]] = {name: [] for name in CLIENTS}
    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "text").write_text("hello END-MARKER\n")
        for name in CLIENTS:  # not counted: compiled modules written, caches warm
            launch(name, workdir, timeout)
        for _n, name in interleaved(CLIENTS, runs):
            first, ready = launch(name, workdir, timeout)
            if first is not None:
                firsts[name].append(first)
            if ready is not None:
                readies[name].append(ready)
    print(f"{runs} interleaved runs in a 160x50 pty, medians (min-max) in seconds")
    print(f"  load average {before} before, {load()} after ({len(CLIENTS)} clients, 2 cores)")
    print(f"  {'':10} {'first bytes on screen':>24} {'usable prompt':>24}")
    for name in CLIENTS:
        print(f"  {name:10} {spread(firsts[name]):>24} {spread(readies[name]):>24}")
    floor_ready = median(readies["floor"])
    minimal_ready = median(readies["minimal"])
    first_ratio = median(firsts["acp-tui"]) / floor_ready
    ready_ratio = median(readies["acp-tui"]) / minimal_ready
    print(f"acp-tui first bytes / floor ready {first_ratio:.2f} (target <= {FIRST_TARGET})")
    print(f"acp-tui ready / minimal Textual ready {ready_ratio:.2f} (target <= {READY_TARGET})")
    worst = max(first_ratio / FIRST_TARGET, ready_ratio / READY_TARGET)
    print(f"ratio {worst:.2f}")
    return worst


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args()
    main(args.runs, args.timeout)
