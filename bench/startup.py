"""Start-up: launch to `initialize` sent, and launch to the first frame, in a real pty.

    uv run python bench/startup.py [--runs N] [--timeout S]

Each run launches `acp-tui -- AGENT` in a pseudo-terminal (120x40) with a tiny agent (a few
lines below, stdlib only) that writes the time it read `initialize` to a file, answers it and
`session/new`, and waits. Measured from just before the launch:
  initialize   the agent read the `initialize` request;
  first frame  acp-tui painted its first screen (the footer's "palette" appears in the output);
  ready        the status bar says "● ready" (the session is open: the prompt can be sent);
  --help       `acp-tui --help` ran to its end;
  bare         `python -c pass` ran to its end.
  cpu          the CPU time acp-tui's process had used when its first frame arrived.
Runs are interleaved (bare, --help, launch); medians are reported with the load average. A
launch that sends no `initialize` or paints nothing within --timeout seconds is reported as a
hang (with what the pty showed), the rest of the run goes on.

Bytecode: the runs measure what users get, with the compiled modules cached (`__pycache__`).
The launched processes run without PYTHONDONTWRITEBYTECODE, and one launch that is not
counted comes first and writes any .pyc missing. (With no cache at all every launch compiles
~700 modules first, which about doubles the time to the first frame.)

Imports: one more launch runs under `python -X importtime`; the modules it imported before its
first frame are summed and the costliest listed (importtime's overhead included: read them as
proportions), with the lazy modules that showed up there although the first frame does not
need them.

Targets: initialize < 0.3 s and first frame <= 0.8 s on an idle machine; --help <= 5x bare.
The last line is `ratio X`: the median launch-to-initialize over the 0.3 s target.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from dataclasses import dataclass
from pathlib import Path

ACP_TUI = Path(sys.executable).with_name("acp-tui")
INIT_TARGET = 0.3
FRAME_TARGET = 0.8
HELP_TARGET = 5.0
FRAME_TEXT = b"palette"
READY_TEXT = "● ready".encode()
IMPORT_LINE = re.compile(rb"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)\r?\n")
# Modules acp-tui loads when first used; seeing one before the first frame is a regression.
# (Not watchfiles: loaded only where inotify is missing, by the directory watcher as it starts,
# right after the main screen is mounted, which may be just before or just after the first frame.)
LAZY = (
    "pydantic_settings",
    "pyte",
    "markdown_it",
    "acp_tui.ui.inspector.screen",
    "acp_tui.ui.screens.session_picker",
    "acp_tui.ui.replay_app",
    "acp_tui.client.check",
)

AGENT = r"""
import json, sys, time
stamp = sys.argv[1]
for line in sys.stdin:
    msg = json.loads(line)
    method, rid = msg.get("method"), msg.get("id")
    if method == "initialize":
        with open(stamp, "w") as out:
            out.write(repr(time.time()))
        result = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": [],
                  "agentInfo": {"name": "startup-bench", "version": "1"}}
    elif method == "session/new":
        result = {"sessionId": "s"}
    else:
        continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()
"""


@dataclass
class Launch:
    initialize: float | None
    frame: float | None
    screen: bytes
    cpu: float | None = None
    """CPU time (user + system) of acp-tui's process when its first frame arrived."""
    ready: float | None = None
    """When the status bar said the session is ready."""
    before_frame: bytes = b""
    """All the pty showed up to the first frame."""


def child_env() -> dict[str, str]:
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120", "LINES": "40"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run it: compiled modules are cached
    return env


def process_cpu(pid: int) -> float | None:
    """User + system CPU seconds of a running process (from /proc), None if unreadable."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def frame_at(output: bytes | bytearray) -> int:
    """Where the first frame starts in the output (-1: not yet); `-X importtime` lines (which
    name modules like rich.palette) are not part of a frame."""
    return IMPORT_LINE.sub(b"", output).find(FRAME_TEXT)


def timed(argv: list[str]) -> float:
    start = time.time()
    subprocess.run(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=child_env()
    )
    return time.time() - start


def launch(workdir: Path, timeout: float, importtime: bool = False) -> Launch:
    stamp = workdir / "initialize.time"
    stamp.unlink(missing_ok=True)
    agent = workdir / "agent.py"
    argv = [str(ACP_TUI), "--cwd", str(workdir), "--", sys.executable, str(agent), str(stamp)]
    if importtime:
        argv = [sys.executable, "-X", "importtime", *argv]
    env = child_env()
    start = time.time()
    pid, fd = pty.fork()
    if pid == 0:  # the child: acp-tui on the pty
        with contextlib.suppress(BaseException):
            os.execve(argv[0], argv, env)
        os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    output = bytearray()
    before_frame = b""
    frame: float | None = None
    cpu: float | None = None
    ready: float | None = None
    initialize: float | None = None
    deadline = start + timeout
    try:
        while time.time() < deadline and (frame is None or initialize is None or ready is None):
            readable, _, _ = select.select([fd], [], [], 0.005)
            if readable:
                try:
                    output += os.read(fd, 65536)
                except OSError:
                    break  # the app ended
                if frame is None and frame_at(output) >= 0:
                    frame = time.time() - start
                    cpu = process_cpu(pid)
                    before_frame = bytes(output)
                if ready is None and READY_TEXT in output:
                    ready = time.time() - start
            if initialize is None and stamp.exists():
                with contextlib.suppress(ValueError):
                    initialize = float(stamp.read_text()) - start
        if frame is not None:
            os.write(fd, b"\x11")  # ctrl+q
        _reap(pid, fd, 5.0)
    finally:
        os.close(fd)
    return Launch(
        initialize, frame, bytes(output[-2000:]), cpu=cpu, ready=ready, before_frame=before_frame
    )


def _reap(pid: int, fd: int, grace: float) -> None:
    deadline = time.time() + grace
    while time.time() < deadline:
        with contextlib.suppress(OSError):
            select.select([fd], [], [], 0.01) and os.read(fd, 65536)
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            return
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def import_report(workdir: Path, timeout: float, top: int = 14) -> None:
    """The modules one launch imported before its first frame (`-X importtime`)."""
    result = launch(workdir, timeout, importtime=True)
    if result.frame is None:
        print("-X importtime launch: no first frame")
        return
    rows = [
        (int(own), int(total), len(indent), name.decode())
        for own, total, indent, name in IMPORT_LINE.findall(result.before_frame)
    ]
    own_sum = sum(row[0] for row in rows) / 1e6
    print(
        f"-X importtime, one launch: {len(rows)} modules imported before the first frame, "
        f"{own_sum:.3f} s of imports (with importtime's overhead; the launch took "
        f"{result.frame:.3f} s)"
    )
    print("  cumulative  module (indented: imported by the one above it)")
    for _own, total, depth, name in sorted(rows, key=lambda row: -row[1])[:top]:
        print(f"  {total / 1e6:8.3f} s  {'  ' * (depth - 1)}{name}")
    names = {row[3] for row in rows}
    early = [name for name in LAZY if name in names]
    print(f"  lazy modules imported before the first frame: {', '.join(early) or 'none'}")


def main(runs: int, timeout: float) -> float:
    bare_argv = [sys.executable, "-c", "pass"]
    help_argv = [str(ACP_TUI), "--help"]
    bare: list[float] = []
    helps: list[float] = []
    inits: list[float] = []
    frames: list[float] = []
    cpus: list[float] = []
    readies: list[float] = []
    hangs = 0
    loads = [load()]
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        (workdir / "agent.py").write_text(AGENT)
        timed(help_argv)
        launch(workdir, timeout)  # not counted: writes any compiled module not cached yet
        for n in range(runs):
            bare.append(timed(bare_argv))
            helps.append(timed(help_argv))
            result = launch(workdir, timeout)
            if result.initialize is None or result.frame is None:
                hangs += 1
                print(f"run {n}: HANG (initialize {result.initialize}, frame {result.frame})")
                print(f"  pty tail: {result.screen[-300:]!r}")
                continue
            inits.append(result.initialize)
            frames.append(result.frame)
            if result.cpu is not None:
                cpus.append(result.cpu)
            if result.ready is None:
                print(f"run {n}: never said ready within {timeout} s")
            else:
                readies.append(result.ready)
        loads.append(load())
        import_report(workdir, timeout)
    print(f"{runs} interleaved runs, medians (min-max); {hangs} hung; load average (1, 5, 15 min)")
    print(f"  {loads[0]} before, {loads[1]} after (the machine has {os.cpu_count()} cores)")
    for name, values in (
        ("bare python", bare),
        ("acp-tui --help", helps),
        ("launch to initialize", inits),
        ("launch to first frame", frames),
        ("CPU to first frame", cpus),
        ("launch to ready", readies),
    ):
        if values:
            print(f"  {name:<22} {median(values):6.3f} s ({min(values):.3f}-{max(values):.3f})")
    b, h, i, f = median(bare), median(helps), median(inits), median(frames)
    print(f"ratio --help/bare {h / b:.1f} (target <= {HELP_TARGET:.0f})")
    print(f"ratio initialize/--help {i / h:.1f}   first frame/--help {f / h:.1f}")
    print(f"ratio first frame/target {f / FRAME_TARGET:.2f} (target {FRAME_TARGET} s)")
    print(f"ratio {i / INIT_TARGET:.2f}")
    return i


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--timeout", type=float, default=20.0)
    args = parser.parse_args()
    main(args.runs, args.timeout)
