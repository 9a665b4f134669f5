"""A long session in a real terminal: 300 turns of ~2 KB, end lag, RSS and collection pauses.

    uv run python bench/pty_long_session.py [--turns 300] [--rate 200] [--chunk 24]
        [--gap SECONDS] [--load [N]]

acp-tui runs in a 160x50 pseudo-terminal (`bench/pty_harness.py`) with `bench/pipe_agent.py
--numbered` as its agent (a separate process): each prompt is answered with ~2 KB of Markdown
(prose, a list, a code fence; `bench/turns.py`) in chunks of CHUNK characters, RATE a second,
its end marker numbered by turn. The bench types a prompt, waits for that turn's marker on the
terminal and the status bar's "● ready", and types the next. `--rate 0`: each reply is written
at once (a fast agent, a cached reply). `--gap SECONDS`: the next prompt is typed that long after
the turn's marker is on screen, "● ready" or not (prompts back to back: the app queues a prompt
typed while its turn still ends, so there is never a quiet moment between turns).
`--load [N]` (300): the agent offers `session/load` and the app opens the session with
`--resume`: the agent replays N turns at full speed (each stored message one update), then the
bench types `--turns` new ones (50 unless given). The app's RSS is read right before the replay
(the agent waits for the bench) and once it is drawn; the late-lag target compares the new turns
11-50 with turns 11-50 of a fresh session of as many turns, run first in the same invocation.

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


class Session:
    """What one run of the app measured."""

    def __init__(self) -> None:
        self.lags: list[float] = []
        self.rss: list[float] = []
        self.cpu = 0.0
        self.pauses: list[tuple[int, float, float]] = []
        self.before_replay = 0.0
        """RSS (MB) right before the `session/load` replay (`--load`)."""
        self.after_replay = 0.0
        """RSS (MB) once the replayed conversation is drawn and the session ready."""
        self.replay_lag = 0.0
        """From the replay's last write to its last marker on the terminal."""


def run_session(
    turns: int,
    rate: float,
    chunk: int,
    timeout: float,
    *,
    gap: float | None = None,
    replayed: int = 0,
    snapshots: str = "",
    into: str = "",
) -> Session:
    """The app in a pty for `turns` turns (after a replay of `replayed` ones)."""
    measured = Session()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp) / "project"  # the session's directory: the bench's files are beside
        workdir.mkdir()  # it (a file growing in it is a change per write, kept whole each time)
        text = Path(tmp) / "turn.md"
        text.write_text(turn_markdown(7).replace("Done.", "Done. END-MARKER"))
        stamp, gc_log = Path(tmp) / "stamp", Path(tmp) / "gc.log"
        opened, gate = Path(tmp) / "opened", Path(tmp) / "gate"
        agent = [sys.executable, str(Path(__file__).with_name("pipe_agent.py")), str(text)]
        agent += ["--chunk", str(chunk), "--rate", str(rate), "--stamp", str(stamp), "--numbered"]
        app = [str(ACP_TUI), "--cwd", str(workdir)]
        if replayed:
            agent += ["--load", str(replayed), "--opened", str(opened), "--gate", str(gate)]
            app += ["--resume", "bench"]
        env = {**env_for_terminal(), "ACP_TUI_GC_LOG": str(gc_log)}
        if snapshots:  # memory snapshots at those turn ends (bench/memory_diff.py compares them)
            Path(into).mkdir(parents=True, exist_ok=True)
            env |= {"ACP_TUI_MEM_SNAPSHOTS": into, "ACP_TUI_MEM_SNAPSHOT_TURNS": snapshots}
        with PtyRun([*app, "--", *agent], env=env) as run:
            if replayed:
                if run.wait_for(lambda _run: opened.exists(), timeout) is None:
                    raise RuntimeError(f"no session/load: {run.text[-300:]!r}")
                run.drain(1.0)  # (the first screen drawn, the app waiting for the replay)
                measured.before_replay = run.rss_mb()
                gate.touch()
                shown = run.wait_for(turn_marker(replayed), timeout * 4)
                if shown is None:
                    raise RuntimeError(f"replay not shown: {run.text[-300:]!r}")
                measured.replay_lag = shown - read_stamp(stamp, 0)
            if run.wait_for(READY_TEXT, timeout) is None:
                raise RuntimeError(f"not ready: {run.text[-300:]!r}")
            measured.after_replay = run.rss_mb()
            for turn in range(replayed + 1, replayed + turns + 1):
                since = run.length
                run.send(f"prompt {turn}\r".encode())
                shown = run.wait_for(turn_marker(turn), timeout, since=since)
                if shown is None:
                    raise RuntimeError(f"turn {turn}: no marker: {run.text[-300:]!r}")
                measured.lags.append(shown - read_stamp(stamp, turn))
                if gap is None:
                    # (from the turn's start: the status may be drawn before the marker's line)
                    if run.wait_for(READY_TEXT, timeout, since=since) is None:
                        raise RuntimeError(f"turn {turn}: not ready again: {run.text[-300:]!r}")
                else:
                    run.drain(gap)  # the next prompt, "● ready" or not
                measured.rss.append(run.rss_mb())
                if turn % STAGE == 0:
                    print(
                        f"  turn {turn}: lag {measured.lags[-1]:.3f} s, "
                        f"RSS {measured.rss[-1]:.1f} MB",
                        flush=True,
                    )
            if gap is not None:
                run.drain(1.0)  # the last turn's end settled
                measured.rss[-1] = run.rss_mb()
            measured.cpu = run.cpu()
        logged = gc_log.read_text().splitlines() if gc_log.exists() else []  # (older trees)
        measured.pauses = [
            (int(gen), float(wall), float(cpu)) for gen, wall, cpu in map(str.split, logged)
        ]
    return measured


def main(
    turns: int,
    rate: float,
    chunk: int,
    timeout: float,
    snapshots: str = "",
    into: str = "",
    gap: float | None = None,
    replayed: int = 0,
) -> float:
    before = load()
    reference: Session | None = None
    if replayed:
        print(f"a fresh session of {turns} turns first (the early turns' reference):", flush=True)
        reference = run_session(turns, rate, chunk, timeout, gap=gap)
        print(f"then session/load of {replayed} turns and {turns} new ones:", flush=True)
    measured = run_session(
        turns, rate, chunk, timeout, gap=gap, replayed=replayed, snapshots=snapshots, into=into
    )
    lags, rss, pauses = measured.lags, measured.rss, measured.pauses
    pace = f"rate {rate:g}/s" if rate else "each reply at once"
    then = "after ready" if gap is None else f"{gap:g} s after the turn's end on screen"
    print(
        f"{turns} turns in a 160x50 pty ({pace}, chunks of {chunk}; next prompt {then}); "
        f"load average {before} before, {load()} after"
    )
    print(f"  app CPU {measured.cpu:.1f} s; {len(pauses)} collections")
    if replayed:
        print(
            f"  session/load of {replayed} turns: RSS {measured.before_replay:.1f} MB before, "
            f"{measured.after_replay:.1f} MB drawn and ready "
            f"({(measured.after_replay - measured.before_replay) / replayed:.3f} MB/turn); "
            f"last replayed marker on screen {measured.replay_lag:.2f} s after its write"
        )
    first = replayed + 1
    print(f"  {'turns':>9} {'median lag':>11} {'worst lag':>10} {'RSS MB':>8}")
    for start in range(0, turns, STAGE):
        stage = lags[start : start + STAGE]
        print(
            f"  {first + start:4}-{first + start + len(stage) - 1:<4} {median(stage):11.3f} "
            f"{max(stage):10.3f} {rss[start + len(stage) - 1]:8.1f}"
        )
    worst_turns = sorted(range(WARMUP, turns), key=lambda index: lags[index])[-5:]
    print(
        "  worst turns: " + ", ".join(f"{first + i} {lags[i]:.3f} s" for i in reversed(worst_turns))
    )
    early = median((reference or measured).lags[WARMUP:STAGE])
    late = median(lags[-STAGE:] if reference is None else lags[WARMUP:STAGE])
    settled = lags[WARMUP:]
    worst = max(settled) / median(settled)
    growth = (rss[-1] - rss[WARMUP - 1]) / max(turns - WARMUP, 1)
    longest = max((cpu for _gen, _wall, cpu in pauses), default=0.0)
    longest_wall = max((wall for _gen, wall, _cpu in pauses), default=0.0)
    full = [cpu for gen, _wall, cpu in pauses if gen == 2]
    if reference is None:
        print(f"late median / early median {late / early:.2f} (target <= {LATE_TARGET})")
    else:
        print(
            f"median of new turns {first + WARMUP}-{first + STAGE - 1} / fresh turns "
            f"{WARMUP + 1}-{STAGE} {late / early:.2f} (target <= {LATE_TARGET})"
        )
    print(f"worst turn / median {worst:.2f} (target <= {WORST_TARGET})")
    print(
        f"RSS growth {growth:.3f} MB/turn after turn {first + WARMUP - 1} (target <= {RSS_TARGET})"
    )
    if replayed:
        whole = (rss[-1] - measured.before_replay) / (replayed + turns)
        print(f"RSS growth {whole:.3f} MB/turn over the replay and the new turns")
        growth = max(growth, whole)
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
    over = [(gen, cpu) for gen, _wall, cpu in pauses if cpu > PAUSE_TARGET / 2]
    longest5 = sorted((cpu for *_, cpu in pauses), reverse=True)[:5]
    print(
        f"  collections over {PAUSE_TARGET * 500:.0f} ms of CPU: {len(over)} "
        f"({sum(gen == 2 for gen, _ in over)} full ones); the five longest (ms of CPU): "
        + ", ".join(f"{cpu * 1000:.1f}" for cpu in longest5)
    )
    print(f"ratio {ratio:.2f}")
    return ratio


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, help="new turns (300; 50 after --load)")
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--chunk", type=int, default=24)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--snapshots", default="", help="turn numbers, e.g. 20,60 (slower run)")
    parser.add_argument("--into", default="snapshots", help="directory of the snapshots")
    parser.add_argument("--gap", type=float, help="seconds from a turn's end to the next prompt")
    parser.add_argument("--load", type=int, nargs="?", const=300, default=0, help="turns replayed")
    args = parser.parse_args()
    turns = args.turns or (STAGE if args.load else 300)
    main(turns, args.rate, args.chunk, args.timeout, args.snapshots, args.into, args.gap, args.load)
