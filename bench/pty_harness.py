"""One pseudo-terminal harness for the benches that measure what users see.

`PtyRun` spawns a command in a pseudo-terminal of a fixed size (160x50 by default), drains its
output as a terminal would (every byte read, none discarded unread), keeps the bytes and the
text they print (escape sequences removed: a marker search on that text says when something
is on screen), and reads the process's CPU time and RSS from /proc. `interleaved` runs the
cases of a bench in turn, alternating their order, so a load change hits them all alike.

Standard library only; each bench prints its ratio last.
"""

from __future__ import annotations

import bisect
import contextlib
import fcntl
import os
import pty
import re
import select
import signal
import statistics
import struct
import sys
import termios
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar

COLUMNS, LINES = 160, 50
ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
ACP_TUI = Path(sys.executable).with_name("acp-tui")
READY_TEXT = "● ready"
"""What acp-tui's status bar says when the session is open (the prompt can be sent)."""

_ESCAPE = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)"
    rb"|[P_^][^\x1b]*\x1b\\|[()][0-9A-Za-z]|.)"
    rb"|[\x00-\x08\x0b-\x1f\x7f]",
    re.DOTALL,
)
_FINISHED = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[^\[\]P_^])")

T = TypeVar("T")


def env_for_terminal(columns: int = COLUMNS, lines: int = LINES) -> dict[str, str]:
    """The environment of a process on the pty: as users run it (compiled modules cached)."""
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": str(columns), "LINES": str(lines)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("TEXTUAL", None)
    return env


def process_cpu(pid: int) -> float:
    """User + system CPU seconds a process has used so far (from /proc; 0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def process_rss_mb(pid: int) -> float:
    """A process's current resident set size in MB (from /proc; 0 when it is gone)."""
    try:
        pages = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


class PtyRun:
    """One command on a pseudo-terminal; `start` is the `time.monotonic()` just before the fork
    (the monotonic clock is shared by every process on the machine)."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
        columns: int = COLUMNS,
        lines: int = LINES,
    ) -> None:
        self.argv = list(argv)
        self.output = bytearray()
        self._parts: list[str] = []  # (the text in pieces: joined on demand, never per read)
        self._starts: list[int] = []
        self._length = 0
        self._joined = ""
        self.first_text: float | None = None
        """When the first printable, non-blank character arrived."""
        self._pending = b""
        self._watched: dict[str, float | None] = {}
        self.closed = False
        self.start = time.monotonic()
        pid, fd = pty.fork()
        if pid == 0:  # the child
            with contextlib.suppress(BaseException):
                if cwd is not None:
                    os.chdir(cwd)
                os.execve(self.argv[0], self.argv, env or env_for_terminal(columns, lines))
            os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))

    def pump(self, timeout: float) -> bool:
        """Read what is written within `timeout` seconds (at most one read); False once the
        process closed the terminal."""
        if self.closed:
            return False
        readable, _, _ = select.select([self.fd], [], [], timeout)
        if not readable:
            return True
        try:
            data = os.read(self.fd, 1 << 16)
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return False
        self.output += data
        self._add_text(data)
        return True

    def _add_text(self, data: bytes) -> None:
        data = self._pending + data
        last = data.rfind(b"\x1b")  # an escape sequence cut by the end of the read waits
        if last >= 0 and len(data) - last < 256 and _FINISHED.match(data, last) is None:
            data, self._pending = data[:last], data[last:]
        else:
            self._pending = b""
        text = _ESCAPE.sub(b"", data).decode("utf-8", errors="replace")
        if self.first_text is None and text.strip():
            self.first_text = time.monotonic()
        if text:
            self._parts.append(text)
            self._starts.append(self._length)
            self._length += len(text)
            self._note_watched()

    def watch(self, marker: str) -> None:
        """Note when `marker` first arrives from now on (`seen_at`), whenever it is looked for."""
        self._watched.setdefault(marker, None)

    def seen_at(self, marker: str) -> float | None:
        """The `time.monotonic()` of the read that brought `marker` (once `watch`ed)."""
        return self._watched.get(marker)

    def _note_watched(self) -> None:
        for marker, seen in self._watched.items():
            if seen is None:
                start = max(self._length - len(self._parts[-1]) - len(marker), 0)
                begins, tail = self._text_from(start)
                if tail.find(marker, start - begins) >= 0:
                    self._watched[marker] = time.monotonic()

    @property
    def length(self) -> int:
        """How much text has arrived: ``len(self.text)`` without joining it (a bench that
        marks where a step's output starts must not spend more on it the longer the run: a
        long session's text grows by about 26,000 characters a turn)."""
        return self._length

    @property
    def text(self) -> str:
        """All the printable text written so far (escape sequences and controls removed)."""
        if len(self._joined) != self._length:
            self._joined = "".join(self._parts)
        return self._joined

    def _text_from(self, start: int) -> tuple[int, str]:
        """The text from about `start` on (from the piece holding it) and where it begins: a
        search costs what arrived since, not the whole session's text."""
        index = max(bisect.bisect_right(self._starts, start) - 1, 0)
        begins = self._starts[index] if self._starts else 0
        return begins, "".join(self._parts[index:])

    def wait_for(
        self, marker: str | Callable[[PtyRun], bool], timeout: float, since: int = 0
    ) -> float | None:
        """The `time.monotonic()` when `marker` is found in the text after offset `since` (or
        the predicate holds), None if not within `timeout` seconds or the process ended."""
        deadline = time.monotonic() + timeout
        seen = since
        while True:
            if isinstance(marker, str):
                start = max(since, seen - len(marker))
                begins, tail = self._text_from(start)
                found = tail.find(marker, start - begins)
                seen = self._length
                if found >= 0:
                    return time.monotonic()
            elif marker(self):
                return time.monotonic()
            left = deadline - time.monotonic()
            if left <= 0 or not self.pump(min(left, 0.05)):
                return None

    def drain(self, seconds: float) -> None:
        """Keep reading for `seconds` (what the terminal would keep showing)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self.pump(deadline - time.monotonic()):
            pass

    def send(self, data: bytes) -> None:
        """Type `data` on the terminal."""
        os.write(self.fd, data)

    def cpu(self) -> float:
        return process_cpu(self.pid)

    def rss_mb(self) -> float:
        return process_rss_mb(self.pid)

    def close(self, quit_keys: bytes = b"\x11", grace: float = 5.0) -> int | None:
        """Type `quit_keys` (ctrl+q), keep draining until the process ends (SIGTERM, then
        SIGKILL after `grace` seconds); its exit status."""
        if quit_keys and not self.closed:
            with contextlib.suppress(OSError):
                os.write(self.fd, quit_keys)
        status: int | None = None
        for sig in (None, signal.SIGTERM, signal.SIGKILL):
            if sig is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, sig)
            deadline = time.monotonic() + grace
            while time.monotonic() < deadline:
                self.pump(0.01)
                done, raw = os.waitpid(self.pid, os.WNOHANG)
                if done:
                    status = os.waitstatus_to_exitcode(raw)
                    break
            if status is not None:
                break
        with contextlib.suppress(OSError):
            os.close(self.fd)
        self.closed = True
        return status

    def __enter__(self) -> PtyRun:
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.closed or _alive(self.pid):
            self.close()


def _alive(pid: int) -> bool:
    try:
        done, _ = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return False
    return done == 0


def interleaved(names: Sequence[str], rounds: int) -> Iterator[tuple[int, str]]:
    """(round, name) for each case of each round, the order reversed every other round."""
    for n in range(rounds):
        for name in names if n % 2 == 0 else list(reversed(names)):
            yield n, name


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def spread(values: Sequence[float]) -> str:
    """'median (min-max)' in seconds."""
    if not values:
        return "   n/a"
    return f"{median(values):6.3f} ({min(values):.3f}-{max(values):.3f})"


def load() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def python_script(name: str, *args: str) -> list[str]:
    """The command line running `bench/NAME` with this Python."""
    return [sys.executable, str(BENCH / name), *args]
