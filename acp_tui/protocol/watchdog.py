"""The watchdog: a small process that ends what acp-tui started once acp-tui is gone.

acp-tui cannot clean up after `kill -9`. So at startup it spawns this script (stdlib only, in
its own session so a closing terminal window does not hang it up) with a pipe on its stdin.
acp-tui writes a line ``PID START`` for each process it learns about; the watchdog only reads.
When the pipe closes, whatever the reason (a normal exit, a crash, SIGKILL), the watchdog kills
every recorded process that still exists, every process started with acp-tui's owner marker in
its environment, and everything below them, then exits.

`Watchdog` is acp-tui's side: `spawn(marker)`, `record(pid, start)`, `close()`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


class Watchdog:
    """acp-tui's end of the pipe to the watchdog process."""

    def __init__(self, process: subprocess.Popen[bytes], pipe: int) -> None:
        self.process = process
        self.pid = process.pid
        self._pipe: int | None = pipe

    @classmethod
    def spawn(cls, marker: str) -> Watchdog:
        """Start the watchdog process with the read end of a pipe on its stdin; when the pipe closes
        it kills what was recorded and whatever carries `marker` in its environment."""
        read_end, write_end = os.pipe()
        os.set_inheritable(write_end, False)
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", __file__, _PACKAGE_ROOT, marker],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
                env={k: v for k, v in os.environ.items() if k != marker},
            )
        except BaseException:
            os.close(write_end)
            raise
        finally:
            os.close(read_end)
        os.set_blocking(write_end, False)
        return cls(process, write_end)

    def record(self, pid: int, start: int) -> None:
        """Tell the watchdog about a process to kill if acp-tui dies (best effort)."""
        if self._pipe is None:
            return
        with contextlib.suppress(BlockingIOError, BrokenPipeError, OSError):
            os.write(self._pipe, f"{pid} {start}\n".encode())

    def close(self, *, wait: float | None = None) -> None:
        """Close the pipe: the watchdog cleans up and exits (wait up to `wait` s for that)."""
        pipe, self._pipe = self._pipe, None
        if pipe is not None:
            os.close(pipe)
        if wait is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(wait)


def _watch(marker: str) -> int:  # pragma: no cover - runs in the watchdog process
    from acp_tui.protocol.process_tree import kill_tree

    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    known: dict[int, int] = {}
    with os.fdopen(0, "rb", buffering=0) as pipe:
        buffer = b""
        while block := pipe.read(65536):
            buffer += block
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                with contextlib.suppress(ValueError):
                    pid, start = (int(field) for field in line.split())
                    known[pid] = start
    kill_tree(known=known, marker=marker, watched=None)
    return 0


if __name__ == "__main__":  # pragma: no cover - the watchdog process
    sys.path.insert(0, sys.argv[1])
    sys.exit(_watch(sys.argv[2]))
