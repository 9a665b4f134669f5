"""The workspace's "must hold" figures, in a real terminal: several sessions in one acp-tui.

    uv run python bench/workspace.py [--rounds 2] [--rate 200] [--turns 200] [--switches 9]

acp-tui runs in a 160x50 pseudo-terminal (`bench/pty_harness.py`); each session's agent is its
own `bench/pipe_agent.py` process. The sessions are presets `s1`..`s8` of a config.toml the
bench writes (`ACP_TUI_CONFIG`), opened as `acp-tui -a s1 -a s2 …` (tab N is `-a sN`;
ctrl+pagedown goes to the next). Cases, interleaved with their one-session baseline, the order
alternating:

1. stream: tab 1 (the visible one) streams 12 KB of prose ending in END-MARKER, at RATE chunks
   of 8 characters a second. With 8 sessions, tabs 2..8 are prompted first with a text twice as
   long (their own marker), so all 8 are still streaming when tab 1's ends. `lag`: from tab 1's
   agent's last write to its marker on the terminal. Target: 8 sessions within 1 frame
   (1/60 s) of 1 session.
2. idle: all sessions open and quiet; acp-tui's CPU over a fixed interval (target: 8 sessions
   <= 1.1x one) and its RSS (agents are other processes: not counted); RSS with 8 minus RSS with
   1, over 7, is the memory of an idle background session (target <= 30 MB).
3. switch: tab 1 holds TURNS turns (~2 KB of Markdown each), tab 2 one short turn; the key to
   tab 1 is typed and timed until its last marker is on the terminal (then back to tab 2),
   SWITCHES times. Target: the median <= 1 frame (~16.7 ms); the worst is printed beside it.

Each figure is printed with its target; the last line is the worst figure over its target.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pipe_agent import turn_marker
from bench.pty_harness import (
    ACP_TUI,
    READY_TEXT,
    PtyRun,
    env_for_terminal,
    interleaved,
    load,
    median,
    python_script,
)
from bench.streaming import prose
from bench.turns import turn_markdown

SESSIONS = 8
FRAME = 1 / 60
CHUNK = 8
MARKER = "END-MARKER"
LAG_FRAMES, CPU_TARGET, RSS_TARGET, SWITCH_TARGET = 1.0, 1.1, 30.0, FRAME
QUIET = 10.0
"""Seconds of the idle interval whose CPU is measured."""
SETTLE = 2.0
"""Seconds drained after every session is open, before the idle interval starts."""
STEP = 0.3
"""Seconds drained after each tab switch while the bench sets the sessions up (not measured)."""


NEXT = b"\x1b[6;5~"
"""ctrl+pagedown as a terminal sends it: the next tab (round). Not alt+N: xterm-like terminals
send alt+2 as ESC 2, which Textual 8 reads as the character of macOS's option+2 (™)."""


def read_stamp(stamp: Path, turn: int = 0, timeout: float = 10.0) -> float:
    """The agent's last write's time (with `turn`: that turn's line of a numbered stamp file)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            content = stamp.read_text()
            if not turn:
                return float(content)
            for line in content.splitlines():
                number, _, when = line.partition(" ")
                if number == str(turn):
                    return float(when)
        except (OSError, ValueError):
            pass
        time.sleep(0.01)  # the agent writes it right after its last chunk
    raise RuntimeError(f"no stamp in {stamp}")


class Workspace:
    """The files of one bench run: the texts, a stamp file per session, the config of presets."""

    def __init__(self, root: Path, rate: float) -> None:
        self.root = root
        self.rate = rate
        rng = random.Random(7)
        self.visible = root / "visible.md"
        self.visible.write_text(prose(12_000, rng))
        self.background = root / "background.md"
        self.background.write_text(prose(24_000, rng).replace(MARKER, "BACKGROUND-END"))
        self.turn = root / "turn.md"
        self.turn.write_text(turn_markdown(7).replace("Done.", f"Done. {MARKER}"))
        self.other = root / "other.md"
        self.other.write_text("The other tab's only answer: OTHER-TAB-MARK.\n")
        self.config = root / "config.toml"

    def stamp(self, number: int) -> Path:
        return self.root / f"s{number}.stamp"

    def opened(self, number: int) -> Path:
        return self.root / f"s{number}.opened"

    def write_config(self, agents: dict[int, list[str]]) -> None:
        """Presets sN running the pipe agent with these extra arguments (text file first)."""
        lines = []
        for number, args in agents.items():
            argv = python_script("pipe_agent.py", *args, "--stamp", str(self.stamp(number)))
            argv += ["--opened", str(self.opened(number))]
            lines.append(f"[agents.s{number}]\ncommand = {json.dumps(argv)}\n")
        self.config.write_text("\n".join(lines))
        for number in agents:
            self.stamp(number).unlink(missing_ok=True)
            self.opened(number).unlink(missing_ok=True)

    def open(self, sessions: int) -> PtyRun:
        argv = [str(ACP_TUI), "--cwd", str(self.root)]
        for number in range(1, sessions + 1):
            argv += ["-a", f"s{number}"]
        env = {**env_for_terminal(), "ACP_TUI_CONFIG": str(self.config)}
        run = PtyRun(argv, cwd=self.root, env=env)
        if run.wait_for(READY_TEXT, 30.0) is None:
            run.close()
            raise RuntimeError(f"not ready: {run.text[-300:]!r}")
        return run

    def streaming_args(self, number: int) -> list[str]:
        text = self.visible if number == 1 else self.background
        return [str(text), "--chunk", str(CHUNK), "--rate", str(self.rate)]


def opened_everywhere(ws: Workspace, run: PtyRun, sessions: int) -> None:
    """Wait until every session's agent has answered `session/new`, then drain SETTLE seconds
    (the app takes the answers in)."""
    deadline = time.monotonic() + 30.0
    while not all(ws.opened(n).exists() for n in range(1, sessions + 1)):
        if time.monotonic() > deadline or not run.pump(0.05):
            raise RuntimeError(f"not every session opened: {run.text[-300:]!r}")
    run.drain(SETTLE)


def settle_quietly(run: PtyRun, longest: float = 30.0) -> None:
    """Drain SETTLE seconds, then until a second passes in which the app used under 5% of a
    core (its tabs are built; the prompt's blinking cursor keeps it writing, so quiet output
    cannot be waited for)."""
    run.drain(SETTLE)
    deadline = time.monotonic() + longest
    while time.monotonic() < deadline:
        used = run.cpu()
        run.drain(1.0)
        if run.cpu() - used < 0.05:
            return
    raise RuntimeError("the app never went quiet")


def stream_case(ws: Workspace, sessions: int) -> float:
    """Tab 1's end-of-stream lag with `sessions` sessions streaming."""
    ws.write_config({n: ws.streaming_args(n) for n in range(1, sessions + 1)})
    with ws.open(sessions) as run:
        opened_everywhere(ws, run, sessions)
        if sessions > 1:
            for _ in range(2, sessions + 1):  # the background tabs 2..8 first
                run.send(NEXT)
                run.drain(STEP)
                run.send(b"go\r")
                run.drain(STEP)
            run.send(NEXT)  # back to tab 1
            run.drain(STEP)
        since = run.length
        run.send(b"go\r")
        shown = run.wait_for(MARKER, 120.0, since=since)
        if shown is None:
            raise RuntimeError(f"tab 1's marker never showed: {run.text[-300:]!r}")
        lag = shown - read_stamp(ws.stamp(1))
        background = range(2, sessions + 1)
        ended = [n for n in background if ws.stamp(n).exists()]
        if ended:
            print(f"  (warning: background tabs {ended} had ended before tab 1's stream)")
        for number in background:  # each background tab did stream (its prompt reached it)
            read_stamp(ws.stamp(number), timeout=60.0)
    return lag


def idle_case(ws: Workspace, sessions: int) -> tuple[float, float]:
    """acp-tui's CPU over QUIET seconds and its RSS (MB), `sessions` sessions open and idle."""
    ws.write_config({n: ws.streaming_args(n) for n in range(1, sessions + 1)})
    with ws.open(sessions) as run:
        opened_everywhere(ws, run, sessions)
        for _ in range(sessions if sessions > 1 else 0):
            run.send(NEXT)  # each tab shown once (its screen is built, as a user's is), then 1
            run.drain(STEP)
        settle_quietly(run)
        cpu = run.cpu()
        run.drain(QUIET)
        return run.cpu() - cpu, run.rss_mb()


def switch_case(ws: Workspace, turns: int, switches: int) -> list[float]:
    """Seconds from the key switching to tab 1 (TURNS turns) to its last marker on the terminal,
    per switch."""
    numbered = [str(ws.turn), "--chunk", "64", "--rate", "0", "--numbered"]
    ws.write_config({1: numbered, 2: [str(ws.other), "--rate", "0"]})
    times: list[float] = []
    with ws.open(2) as run:
        opened_everywhere(ws, run, 2)
        for turn in range(1, turns + 1):
            since = run.length
            run.send(f"prompt {turn}\r".encode())
            if run.wait_for(turn_marker(turn), 30.0, since=since) is None:
                raise RuntimeError(f"turn {turn}: no marker: {run.text[-300:]!r}")
            # the next prompt may come before the turn's end is taken in: it then waits in
            # the queue and is sent when the turn ends
            if turn % 50 == 0:
                print(f"  tab 1 has {turn} turns", flush=True)
        last = turn_marker(turns)
        run.send(NEXT)  # tab 2
        run.drain(STEP)
        since = run.length
        run.send(b"go\r")
        if run.wait_for("OTHER-TAB-MARK", 30.0, since=since) is None:
            raise RuntimeError(f"tab 2 never answered: {run.text[-300:]!r}")
        run.drain(1.0)
        for _ in range(switches):
            for number, marker in ((1, last), (2, "OTHER-TAB-MARK")):
                since = run.length
                typed = time.monotonic()
                run.send(NEXT)
                shown = run.wait_for(marker, 10.0, since=since)
                if shown is None:
                    raise RuntimeError(f"tab {number}: {marker} not shown: {run.text[-300:]!r}")
                if number == 1:
                    times.append(shown - typed)
                run.drain(0.5)  # whatever follows the switch (not measured)
    return times


def main(rounds: int, rate: float, turns: int, switches: int) -> float:
    before = load()
    lags: dict[int, list[float]] = {}
    cpu: dict[int, list[float]] = {}
    rss: dict[int, list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        ws = Workspace(Path(tmp), rate)
        for _n, name in interleaved(("1", str(SESSIONS)), rounds):
            sessions = int(name)
            lag = stream_case(ws, sessions)
            lags.setdefault(sessions, []).append(lag)
            used, resident = idle_case(ws, sessions)
            cpu.setdefault(sessions, []).append(used)
            rss.setdefault(sessions, []).append(resident)
            print(
                f"  {sessions} session(s): lag {lag:.3f} s; idle CPU {used:.3f} s over "
                f"{QUIET:.0f} s, RSS {resident:.1f} MB",
                flush=True,
            )
        switch = switch_case(ws, turns, switches)
    print(
        f"{rounds} interleaved rounds in 160x50 ptys, rate {rate:.0f} chunks/s; load average "
        f"{before} before, {load()} after (2 cores)"
    )
    single, multi = 1, SESSIONS
    frames = (median(lags[multi]) - median(lags[single])) / FRAME
    print(
        f"end-of-stream lag: {median(lags[single]):.3f} s with 1 session, "
        f"{median(lags[multi]):.3f} s with {SESSIONS} streaming: {frames:+.1f} frames "
        f"(target <= {LAG_FRAMES:.0f})"
    )
    cpu_ratio = median(cpu[multi]) / max(median(cpu[single]), 0.001)
    print(
        f"idle CPU over {QUIET:.0f} s: {median(cpu[single]):.3f} s with 1 session, "
        f"{median(cpu[multi]):.3f} s with {SESSIONS}: {cpu_ratio:.2f}x (target <= {CPU_TARGET})"
    )
    per_session = (median(rss[multi]) - median(rss[single])) / (SESSIONS - 1)
    print(
        f"RSS: {median(rss[single]):.1f} MB with 1 session, {median(rss[multi]):.1f} MB with "
        f"{SESSIONS}: {per_session:.1f} MB per idle background session (target <= "
        f"{RSS_TARGET:.0f})"
    )
    print(
        f"switch to a {turns}-turn tab: median {median(switch) * 1000:.1f} ms, worst "
        f"{max(switch) * 1000:.1f} ms over {len(switch)} switches (target <= "
        f"{SWITCH_TARGET * 1000:.1f} ms)"
    )
    ratio = max(
        max(frames, 0.0) / LAG_FRAMES,
        cpu_ratio / CPU_TARGET,
        per_session / RSS_TARGET,
        median(switch) / SWITCH_TARGET,
    )
    print(f"ratio {ratio:.2f}")
    return ratio


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--switches", type=int, default=9)
    args = parser.parse_args()
    main(args.rounds, args.rate, args.turns, args.switches)
