"""The first frame, in a real terminal: acp-tui against the floor client and minimal Textual apps.

    uv run python bench/first_frame.py [--runs 5] [--timeout 20] [--demo] [--baseline DIR]
                                       [--sandbox MODE] [--agent AGENT_CMD...]

Each run starts, in a 160x50 pseudo-terminal (`bench/pty_harness.py`), with the agent a
separate process (`bench/pipe_agent.py`, which answers `initialize` and `session/new` at once;
with `--agent`, that command instead, the same for every client: a real agent, e.g.
`--agent bash ../shared/interop/agent.sh gemini` with its fake LLM running; it must come last):

  floor    `bench/floor_client.py --ready`: spawns the agent, opens the session, prints a line;
  minimal  `bench/minimal_textual.py`: imports Textual and shows one `Static` (no agent);
  log      `bench/minimal_textual_client.py`: issue 36's minimal Textual client, Textual's `Log`
           and the same agent (spawned once mounted; `initialize` and `session/new` as JSON
           lines; "session ready" in the Log when the session is open);
  acp-tui  `acp-tui -- AGENT` (with `--demo`: `acp-tui --demo`, its built-in agent).

Measured from just before the fork: `first` when the first printable character reaches the
terminal, `ready` when the prompt is usable (the floor's line; the minimal app's text). For
acp-tui, as a user tries it: "hi there" is typed the moment the first text shows, and the prompt
is usable when that text shows in it; Enter is typed then, and the run counts only if that
prompt really goes out (a turn starts: "working" or the agent's answer shows). Beside it:
`app`, when Textual's own frame is on screen (its footer's "quit"), and `sent`, when the turn
started. For the Log client, ready is its "session ready" line. The runs are interleaved, the
order alternating; medians (min-max) are printed with the load average.

Beside them, the CPU seconds each client's process had used when it was ready (acp-tui: when
its turn started; steadier than wall time on a loaded machine). `--baseline DIR` adds acp-tui
run from another checkout (a worktree of main, say) to the rotation, and prints acp-tui's
ratios to it.

Targets: acp-tui's first bytes on screen within 2x the floor's ready time; its ready prompt
within 1.5x the minimal Textual app's; its full UI ("● ready": sidebar, footer and the agent's
session drawn, or the turn of the prompt typed at once started) within 1.5x the minimal Textual
client's "session ready" (issue 36's reference: a `Log` and the same agent; the ratio to the
bare minimal app, which has no agent, is printed beside it). The last line is the worst of the
three ratios over its target (<= 1 meets all).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pty_harness import (
    ACP_TUI,
    READY_TEXT,
    PtyRun,
    env_for_terminal,
    interleaved,
    load,
    median,
    python_script,
    spread,
)

FIRST_TARGET = 2.0
READY_TARGET = 1.5
CLIENTS = ("floor", "minimal", "log", "acp-tui")
PROBE = "hi there"
"""What is typed into acp-tui's prompt the moment its first text shows."""
APP_TEXT = "quit"
"""Textual's own frame is on screen: its footer names the quit key (the skeleton's has no text)."""
BASELINE = "baseline"
"""With `--baseline DIR`: acp-tui from another checkout (its modules first on PYTHONPATH)."""


@dataclass
class Launch:
    """One client's launches: seconds to the first text, to ready, and CPU seconds at ready."""

    firsts: list[float] = field(default_factory=list)
    readies: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    apps: list[float] = field(default_factory=list)
    """acp-tui: seconds to Textual's own frame."""
    sents: list[float] = field(default_factory=list)
    """acp-tui: seconds to the turn of the prompt typed at the first text."""
    fulls: list[float] = field(default_factory=list)
    """acp-tui: seconds to the full UI: "● ready" in the status bar (sidebar, footer and the
    agent's session drawn), or the turn started if that came first (the prompt typed at the
    first text goes out as the session opens, and the status may go straight to "working")."""


LOG_READY = "session ready"
"""What the minimal Textual client writes to its Log when the session is open."""


def pipe_agent(workdir: Path) -> list[str]:
    """The instant agent: answers `initialize` and `session/new` at once, a prompt with text."""
    return python_script("pipe_agent.py", str(workdir / "text"), "--stamp", str(workdir / "s"))


def command(
    name: str, workdir: Path, demo: bool, agent: list[str], options: Sequence[str] = ()
) -> tuple[list[str], str, bytes]:
    """The command line, its ready text and the keys that end it; `agent`: the agent's;
    `options`: acp-tui's own (`--sandbox off`, say)."""
    if name == "floor":
        return (
            python_script("floor_client.py", "--ready", "floor ready", "--idle", "--", *agent),
            ("floor ready"),
            b"q\n",
        )
    if name == "minimal":
        return python_script("minimal_textual.py"), "minimal ready", b"\x11"
    if name == "log":
        argv = python_script("minimal_textual_client.py", "--ready", LOG_READY, "--", *agent)
        return argv, LOG_READY, b"\x11"
    if demo:
        return [str(ACP_TUI), "--cwd", str(workdir), *options, "--demo"], READY_TEXT, b"\x11"
    return [str(ACP_TUI), "--cwd", str(workdir), *options, "--", *agent], READY_TEXT, b"\x11"


def launch(
    name: str,
    workdir: Path,
    timeout: float,
    baseline: Path | None,
    into: Launch | None,
    demo: bool = False,
    agent: list[str] | None = None,
    options: Sequence[str] = (),
) -> None:
    """Launch `name` once; its seconds to the first printable text, to the ready text and its
    CPU seconds then go `into` (None: a warm-up run).

    acp-tui is typed to as a user would: "hi there" as soon as the first text shows (ready: when
    it shows in the prompt), then Enter, which must start a turn ("working" or the agent's
    answer shows) for the run to count."""
    argv, ready_text, quit_keys = command(
        name, workdir, demo, agent or pipe_agent(workdir), options
    )
    env = env_for_terminal()
    if name == BASELINE and baseline is not None:
        env["PYTHONPATH"] = str(baseline)
    ours = name in ("acp-tui", BASELINE)
    app = sent = full = None
    with PtyRun(argv, cwd=workdir, env=env) as run:
        if ours:
            run.watch(APP_TEXT)
            run.watch(READY_TEXT)
            run.wait_for(lambda r: r.first_text is not None, timeout)
            typed = run.length
            run.send(PROBE.encode())
            ready = run.wait_for(PROBE, timeout, since=typed)
            since = run.length
            run.send(b"\r")
            sent = run.wait_for(lambda r: turn_started(r.text[since:]), timeout)
            if run.wait_for(APP_TEXT, timeout) is not None:
                app = run.seen_at(APP_TEXT)
            opened = run.seen_at(READY_TEXT)
            full = sent if opened is None or sent is None else min(opened, sent)
            if sent is None:
                print(f"  {name}: the prompt typed at the first text got no answer: not counted")
                ready = None
        else:
            ready = run.wait_for(ready_text, timeout)
        cpu = run.cpu()
        run.close(quit_keys)
    if into is None:
        return
    if run.first_text is not None:
        into.firsts.append(run.first_text - run.start)
    if ready is None:
        print(f"  {name}: not ready within {timeout} s; screen text: {run.text[-300:]!r}")
        return
    into.readies.append(ready - run.start)
    into.cpus.append(cpu)
    if app is not None and sent is not None:
        into.apps.append(app - run.start)
        into.sents.append(sent - run.start)
    if full is not None:
        into.fulls.append(full - run.start)


def turn_started(text: str) -> bool:
    return "working" in text or "END-MARKER" in text


def main(
    runs: int,
    timeout: float,
    baseline: Path | None = None,
    demo: bool = False,
    agent: list[str] | None = None,
    options: Sequence[str] = (),
) -> float:
    clients = (*CLIENTS, BASELINE) if baseline is not None else CLIENTS
    launches = {name: Launch() for name in clients}
    before = load()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "text").write_text("hello END-MARKER\n")
        for name in clients:  # not counted: compiled modules written, caches warm
            launch(name, workdir, timeout, baseline, None, demo, agent, options)
        for _n, name in interleaved(clients, runs):
            launch(name, workdir, timeout, baseline, launches[name], demo, agent, options)
    named = " ".join(agent) if agent else "the pipe agent"
    if demo:
        named = f"acp-tui --demo; the others: {named}"
    if options:
        named += f"; acp-tui {' '.join(options)}"
    print(f"{runs} interleaved runs in a 160x50 pty ({named}), medians (min-max) in seconds")
    print(f"  load average {before} before, {load()} after ({len(clients)} clients, 2 cores)")
    heads = ("first bytes on screen", "usable prompt", "CPU at ready (acp-tui: sent)")
    print(f"  {'':10} {heads[0]:>24} {heads[1]:>24} {heads[2]:>30}")
    for name in clients:
        done = launches[name]
        row = f"{spread(done.firsts):>24} {spread(done.readies):>24} {spread(done.cpus):>30}"
        print(f"  {name:10} {row}")
    for name in clients:
        done = launches[name]
        if done.apps:
            print(
                f"  {name}: Textual's frame {spread(done.apps)}, the prompt typed at the first"
                f" text sent (turn started) {spread(done.sents)}, full UI (● ready or the turn"
                f" started) {spread(done.fulls)}"
            )
    ours, minimal, log = launches["acp-tui"], launches["minimal"], launches["log"]
    if baseline is not None:
        old = launches[BASELINE]
        print(
            f"acp-tui / baseline: usable {median(ours.readies) / median(old.readies):.2f}, "
            f"Textual frame {median(ours.apps) / median(old.apps):.2f}, "
            f"CPU at sent {median(ours.cpus) / median(old.cpus):.2f}, "
            f"full UI {median(ours.fulls) / median(old.fulls):.2f}"
        )
    cpu_ratio = median(ours.cpus) / median(minimal.cpus)
    app_ratio = median(ours.apps) / median(minimal.readies)
    print(f"acp-tui CPU at sent / minimal Textual's at ready {cpu_ratio:.2f} (beside, not instead)")
    print(f"acp-tui Textual frame / minimal Textual ready {app_ratio:.2f} (beside, not instead)")
    bare_ratio = median(ours.fulls) / median(minimal.readies)
    print(f"acp-tui full UI (● ready) / bare minimal Textual app ready {bare_ratio:.2f} (beside)")
    log_cpu = median(ours.cpus) / median(log.cpus)
    print(f"acp-tui CPU at sent / minimal Textual client's at session ready {log_cpu:.2f} (beside)")
    full_ratio = median(ours.fulls) / median(log.readies)
    print(
        f"acp-tui full UI (● ready) / minimal Textual client (Log + agent) session ready "
        f"{full_ratio:.2f} (target <= {READY_TARGET}, issue 36)"
    )
    first_ratio = median(ours.firsts) / median(launches["floor"].readies)
    ready_ratio = median(ours.readies) / median(minimal.readies)
    print(f"acp-tui first bytes / floor ready {first_ratio:.2f} (target <= {FIRST_TARGET})")
    print(f"acp-tui ready / minimal Textual ready {ready_ratio:.2f} (target <= {READY_TARGET})")
    worst = max(first_ratio / FIRST_TARGET, ready_ratio / READY_TARGET, full_ratio / READY_TARGET)
    print(f"ratio {worst:.2f}")
    return worst


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument(
        "--baseline",
        type=Path,
        metavar="DIR",
        help="also run acp-tui from the checkout DIR (e.g. a worktree of main), interleaved",
    )
    parser.add_argument("--demo", action="store_true", help="acp-tui with its demo agent")
    parser.add_argument(
        "--sandbox",
        choices=("off", "project", "strict"),
        help="acp-tui's --sandbox (e.g. off for an agent that writes outside the project and its"
        " known directories: the interop kit's agents write to a HOME of their own)",
    )
    parser.add_argument(
        "--agent",
        nargs=argparse.REMAINDER,
        metavar="AGENT_CMD",
        help="the agent command every client starts (last: the rest of the line is its own;"
        " default: the instant pipe agent)",
    )
    args = parser.parse_args()
    baseline = args.baseline.resolve() if args.baseline else None
    options = ("--sandbox", args.sandbox) if args.sandbox else ()
    main(args.runs, args.timeout, baseline, args.demo, args.agent or None, options)
