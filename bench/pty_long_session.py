"""A long session in a real terminal: 300 turns of ~2 KB, end lag, RSS and collection pauses.

    uv run python bench/pty_long_session.py [--turns 300] [--rate 200] [--chunk 24]

acp-tui runs in a 160x50 pseudo-terminal (`bench/pty_harness.py`) with `bench/pipe_agent.py
--numbered` as its agent (a separate process): each prompt is answered with ~2 KB of Markdown
(prose, a list, a code fence; `bench/turns.py`) in chunks of CHUNK characters, RATE a second,
its end marker numbered by turn. The bench types a prompt, waits for that turn's marker on the
terminal and the status bar's "● ready", and types the next.

Per turn: `lag`, from the agent's last write to the marker on the terminal; the app's RSS
(/proc) and CPU. The app logs each garbage collection's pause to a file
(`ACP_TUI_GC_LOG`, `acp_tui/host/gc_pauses.py`: wall and CPU time), read at the end; the
pause target is checked on the CPU time (the wall time of a loaded machine is printed beside).

Printed per stage of 50 turns: median and worst lag, RSS; then the targets: median lag of turns
251-300 over turns 11-50 (<= 1.2), worst turn over the median after turn 10 (<= 4), RSS growth
per turn after turn 10 (<= 0.15 MB), the longest collection pause (<= 50 ms). The last line is
the worst of those over its target.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pipe_agent import turn_marker
from bench.pty_harness import ACP_TUI, READY_TEXT, PtyRun, env_for_terminal, load, median
from bench.turns import turn_markdown

STAGE = 50
WARMUP = 10
LATE_TARGET, WORST_TARGET, RSS_TARGET, PAUSE_TARGET = 1.2, 4.0, 0.15, 0.050


def read_stamp(stamp: Path, turn: int, timeout: float = 10.0) -> float:
    """The time of the last write of turn `turn` (a line ``TURN TIME`` of the stamp file)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            for line in stamp.read_text().splitlines():
                number, _, when = line.partition(" ")
                if number == str(turn):
                    return float(when)
        except OSError:
            pass
        time.sleep(0.01)  # the agent appends it right after its last chunk
    raise RuntimeError(f"no stamp for turn {turn}")


def main(
    turns: int, rate: float, chunk: int, timeout: float, snapshots: str = "", into: str = ""
) -> float:
    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp) / "project"  # the session's directory: the bench's files are beside
        workdir.mkdir()  # it (a file growing in it is a change per write, kept whole each time)
        text = Path(tmp) / "turn.md"
        text.write_text(turn_markdown(7).replace("Done.", "Done. END-MARKER"))
        stamp, gc_log = Path(tmp) / "stamp", Path(tmp) / "gc.log"
        agent = [sys.executable, str(Path(__file__).with_name("pipe_agent.py")), str(text)]
        agent += ["--chunk", str(chunk), "--rate", str(rate), "--stamp", str(stamp), "--numbered"]
        env = {**env_for_terminal(), "ACP_TUI_GC_LOG": str(gc_log)}
        if snapshots:  # memory snapshots at those turn ends (bench/memory_diff.py compares them)
            Path(into).mkdir(parents=True, exist_ok=True)
            env |= {"ACP_TUI_MEM_SNAPSHOTS": into, "ACP_TUI_MEM_SNAPSHOT_TURNS": snapshots}
        lags: list[float] = []
        rss: list[float] = []
        with PtyRun([str(ACP_TUI), "--cwd", str(workdir), "--", *agent], env=env) as run:
            if run.wait_for(READY_TEXT, timeout) is None:
                raise RuntimeError(f"not ready: {run.text[-300:]!r}")
            for turn in range(1, turns + 1):
                since = len(run.text)
                run.send(f"prompt {turn}\r".encode())
                shown = run.wait_for(turn_marker(turn), timeout, since=since)
                if shown is None:
                    raise RuntimeError(f"turn {turn}: no marker: {run.text[-300:]!r}")
                lags.append(shown - read_stamp(stamp, turn))
                # (from the turn's start: the status may be drawn before the marker's line)
                if run.wait_for(READY_TEXT, timeout, since=since) is None:
                    raise RuntimeError(f"turn {turn}: not ready again: {run.text[-300:]!r}")
                rss.append(run.rss_mb())
                if turn % STAGE == 0:
                    print(f"  turn {turn}: lag {lags[-1]:.3f} s, RSS {rss[-1]:.1f} MB", flush=True)
            cpu = run.cpu()
        logged = gc_log.read_text().splitlines() if gc_log.exists() else []  # (older trees)
        pauses = [(int(gen), float(wall), float(cpu)) for gen, wall, cpu in map(str.split, logged)]
    print(f"{turns} turns in a 160x50 pty; load average {before} before, {load()} after")
    print(f"  app CPU {cpu:.1f} s; {len(pauses)} collections")
    print(f"  {'turns':>9} {'median lag':>11} {'worst lag':>10} {'RSS MB':>8}")
    for start in range(0, turns, STAGE):
        stage = lags[start : start + STAGE]
        print(
            f"  {start + 1:4}-{start + len(stage):<4} {median(stage):11.3f} {max(stage):10.3f} "
            f"{rss[start + len(stage) - 1]:8.1f}"
        )
    worst_turns = sorted(range(WARMUP, turns), key=lambda index: lags[index])[-5:]
    print("  worst turns: " + ", ".join(f"{i + 1} {lags[i]:.3f} s" for i in reversed(worst_turns)))
    early = median(lags[WARMUP:STAGE])
    late = median(lags[-STAGE:])
    settled = lags[WARMUP:]
    worst = max(settled) / median(settled)
    growth = (rss[-1] - rss[WARMUP - 1]) / max(turns - WARMUP, 1)
    longest = max((cpu for _gen, _wall, cpu in pauses), default=0.0)
    longest_wall = max((wall for _gen, wall, _cpu in pauses), default=0.0)
    full = [cpu for gen, _wall, cpu in pauses if gen == 2]
    print(f"late median / early median {late / early:.2f} (target <= {LATE_TARGET})")
    print(f"worst turn / median {worst:.2f} (target <= {WORST_TARGET})")
    print(f"RSS growth {growth:.3f} MB/turn after turn {WARMUP} (target <= {RSS_TARGET})")
    print(
        f"longest collection {longest * 1000:.1f} ms of CPU (target <= {PAUSE_TARGET * 1000:.0f}; "
        f"{longest_wall * 1000:.1f} ms of wall time under this load); {len(full)} full ones, "
        f"longest {max(full, default=0.0) * 1000:.1f} ms of CPU"
    )
    ratio = max(
        late / early / LATE_TARGET,
        worst / WORST_TARGET,
        growth / RSS_TARGET,
        longest / PAUSE_TARGET,
    )
    print(f"ratio {ratio:.2f}")
    return ratio


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--chunk", type=int, default=24)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--snapshots", default="", help="turn numbers, e.g. 20,60 (slower run)")
    parser.add_argument("--into", default="snapshots", help="directory of the snapshots")
    args = parser.parse_args()
    main(args.turns, args.rate, args.chunk, args.timeout, args.snapshots, args.into)
