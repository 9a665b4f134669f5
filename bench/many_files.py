"""An agent that creates thousands of files itself (no fs/*), in the real app on a real pty.

    uv run python bench/many_files.py [COUNTS...] [--timeout S]     (default: 5000 20000)

For each count, acp-tui runs in a pseudo-terminal (140x45) with `tests/agents/flood_agent.py
files COUNT` as its agent in a fresh temp directory; a prompt is typed, the agent writes COUNT
files under `flood/` and ends its turn. Measured on the pty output, from the keys sent:
  summary   the turn summary line appears ("Δ changed N files");
  F2        F2 pressed once the summary is there: the Changes view is drawn with its list (the
            title with the file count);
  ctrl+q    ctrl+q pressed while F2 is open: the process exits.
Each time is printed with its ratio to a 1 s budget (`ratio`), with the load average. A step
that does not happen within --timeout seconds is reported as such and the run is ended.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import tempfile
import termios
import time
from pathlib import Path

ACP_TUI = Path(sys.executable).with_name("acp-tui")
FLOOD_AGENT = Path(__file__).resolve().parents[1] / "tests" / "agents" / "flood_agent.py"
BUDGET = 1.0
READY = "● ready".encode()


class Pty:
    def __init__(self, argv: list[str], cwd: Path) -> None:
        env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "140", "LINES": "45"}
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: acp-tui on the pty
            with contextlib.suppress(BaseException):
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 45, 140, 0, 0))
        self.output = bytearray()
        self.exited = False

    def wait_for(self, text: bytes, timeout: float, since: int = 0) -> float | None:
        """Seconds until `text` shows in the output after offset `since` (None: timed out)."""
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if text in self.output[since:]:
                return time.perf_counter() - start
            if not self._read(0.01):
                return None
        return None

    def wait_exit(self, timeout: float) -> float | None:
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            self._read(0.01)
            done, _status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self.exited = True
                return time.perf_counter() - start
        return None

    def _read(self, wait: float) -> bool:
        readable, _, _ = select.select([self.fd], [], [], wait)
        if readable:
            try:
                self.output += os.read(self.fd, 65536)
            except OSError:
                return False
        return True

    def send(self, data: bytes) -> int:
        os.write(self.fd, data)
        return len(self.output)

    def end(self) -> None:
        if not self.exited:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(os.getpgid(self.pid), signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
        os.close(self.fd)


def run(count: int, timeout: float) -> dict[str, float | None]:
    result: dict[str, float | None] = {"summary": None, "F2": None, "ctrl+q": None}
    with tempfile.TemporaryDirectory() as directory:
        cwd = Path(directory)
        agent = [sys.executable, str(FLOOD_AGENT), "files", str(count)]
        app = Pty([str(ACP_TUI), "--cwd", str(cwd), "--", *agent], cwd)
        try:
            if app.wait_for(READY, timeout) is None:
                return result
            mark = app.send(b"make files\r")
            result["summary"] = app.wait_for(f"changed {count:,} files".encode(), timeout, mark)
            if result["summary"] is None:
                return result
            mark = app.send(b"\x1bOQ")  # F2
            result["F2"] = app.wait_for(f"· {count:,} files".encode(), timeout, mark)
            app.send(b"\x11")  # ctrl+q
            result["ctrl+q"] = app.wait_exit(timeout)
        finally:
            app.end()
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("counts", nargs="*", type=int, default=[5000, 20000])
    parser.add_argument("--timeout", type=float, default=120.0)
    args = parser.parse_args()
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    for count in args.counts:
        result = run(count, args.timeout)
        parts = []
        for step, seconds in result.items():
            shown = "not seen" if seconds is None else f"{seconds:.2f}s"
            ratio = "" if seconds is None else f" (ratio {seconds / BUDGET:.2f})"
            parts.append(f"{step} {shown}{ratio}")
        print(f"{count:>6} files: " + "; ".join(parts))


if __name__ == "__main__":
    main()
