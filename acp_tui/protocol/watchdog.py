"""The watchdog: a small process that ends what acp-tui started once acp-tui is gone.

acp-tui cannot clean up after `kill -9`. So at startup it spawns this script (stdlib only, in
its own session so a closing terminal window does not hang it up) with one end of a Unix
socket (SOCK_SEQPACKET: one message a line) on its stdin. acp-tui sends ``PID START`` for each
process it learns about, and ``hold PID START`` with a duplicate of a terminal's PTY master
(``drop PID START`` once that command has ended; ``hold 0 N`` holds a master before its command
has started, under a key N of acp-tui's, pid 0 naming no process); the watchdog only reads.
When the socket closes, whatever the reason (a normal exit, a crash, SIGKILL), the watchdog
kills every recorded process that still exists, every process started with acp-tui's owner
marker in its environment, and everything below them, then closes the masters it holds and exits.

Holding the masters is what makes `kill -9` clean: the death of acp-tui closes its own master
side, and were it the last one the kernel would hang up every terminal, killing the commands
(each one a subreaper, so the parent of every orphan of its tree) while their children that
ignore the hangup live on, re-parented to init, without acp-tui's marker if they cleared their
environment, and unrecorded if they started since acp-tui last looked. With the watchdog
holding the master, the commands live until it has stopped them, and their whole trees are
still below them to be found.

`Watchdog` is acp-tui's side: `spawn(marker)`, `record(pid, start)`, `hold(fd, pid, start)`,
`drop(pid, start)`, `close()`.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


MESSAGE_BYTES = 8192  # records per message: a socket holds a few hundred messages, not lines
RECV_BYTES = MESSAGE_BYTES + 256


class Watchdog:
    """acp-tui's end of the socket to the watchdog process.

    Records are batched (`flush()` sends them, several lines a message) and kept until the
    socket takes them, so a burst of new processes is not lost while the watchdog lags.
    """

    def __init__(self, process: subprocess.Popen[bytes], channel: socket.socket) -> None:
        self.process = process
        self.pid = process.pid
        self._channel: socket.socket | None = channel
        self._lines = bytearray()  # records and drops not sent yet
        self._holds: list[tuple[bytes, int]] = []  # holds not sent yet, with a duplicate fd

    @classmethod
    def spawn(cls, marker: str) -> Watchdog:
        """Start the watchdog process with its end of a socket on its stdin; when the socket
        closes it kills what was recorded and whatever carries `marker` in its environment."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", __file__, _PACKAGE_ROOT, marker],
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
                close_fds=True,
                env={k: v for k, v in os.environ.items() if k != marker},
            )
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        ours.setblocking(False)
        return cls(process, ours)

    def record(self, pid: int, start: int) -> None:
        """Tell the watchdog about a process to kill if acp-tui dies (sent by `flush()`)."""
        if self._channel is not None:
            self._lines += f"{pid} {start}\n".encode()
            if len(self._lines) >= MESSAGE_BYTES:
                self.flush()

    def hold(self, master_fd: int, pid: int, start: int) -> None:
        """Give the watchdog a duplicate of the PTY master of the command (pid, start), so that
        acp-tui's death does not hang its terminal up before the watchdog stopped its tree."""
        if self._channel is not None:
            self._holds.append((f"hold {pid} {start}\n".encode(), os.dup(master_fd)))
            self.flush()

    def drop(self, pid: int, start: int) -> None:
        """The command (pid, start) has ended: the watchdog closes its master."""
        if self._channel is not None:
            self._lines += f"drop {pid} {start}\n".encode()
            self.flush()

    def flush(self) -> None:
        """Send what is waiting (holds first: a drop never overtakes its hold); what the socket
        does not take now stays for the next call."""
        channel = self._channel
        try:
            while channel is not None and self._holds:
                line, fd = self._holds[0]
                socket.send_fds(channel, [line], [fd])
                self._holds.pop(0)
                os.close(fd)
            while channel is not None and self._lines:
                cut = self._lines.rfind(b"\n", 0, MESSAGE_BYTES) + 1
                channel.send(self._lines[:cut])
                del self._lines[:cut]
        except BlockingIOError:
            return  # the watchdog lags: the rest goes with the next flush
        except OSError:
            self._discard()  # the watchdog is gone: nobody will read any of it

    def _discard(self) -> None:
        for _line, fd in self._holds:
            os.close(fd)
        self._holds.clear()
        self._lines.clear()

    def close(self, *, wait: float | None = None) -> None:
        """Close the socket: the watchdog cleans up and exits (wait up to `wait` s for that)."""
        self.flush()
        self._discard()
        channel, self._channel = self._channel, None
        if channel is not None:
            channel.close()
        if wait is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(wait)


def _watch(marker: str) -> int:  # pragma: no cover - runs in the watchdog process
    from acp_tui.protocol.process_tree import kill_tree

    for sig in (signal.SIGHUP, signal.SIGINT, signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    known: dict[int, int] = {}
    held: dict[tuple[int, int], int] = {}
    with socket.socket(fileno=0) as channel:
        while True:
            try:
                message, fds, _flags, _address = socket.recv_fds(channel, RECV_BYTES, 4)
            except InterruptedError:
                continue
            except OSError:
                break
            if not message and not fds:
                break  # acp-tui is gone
            spare = list(fds)  # a hold takes its master from here
            for line in message.splitlines():
                _take(line.split(), spare, known, held)
            for fd in spare:
                os.close(fd)
    kill_tree(known=known, marker=marker, watched=None)
    for fd in held.values():
        os.close(fd)
    return 0


def _take(  # pragma: no cover - runs in the watchdog process
    words: list[bytes], fds: list[int], known: dict[int, int], held: dict[tuple[int, int], int]
) -> None:
    """One line: ``PID START``, ``hold PID START`` (with a PTY master), ``drop PID START``."""
    verb = {2: b"", 3: words[0]}.get(len(words), b"?")
    try:
        pid, start = int(words[-2]), int(words[-1])
    except (IndexError, ValueError):
        verb, pid, start = b"?", 0, 0
    if verb in (b"", b"hold") and pid > 0:  # (0: a PTY held before its command started)
        known[pid] = start
    if verb == b"hold" and fds:
        previous = held.pop((pid, start), None)
        held[(pid, start)] = fds.pop(0)
        if previous is not None:
            os.close(previous)
    if verb == b"drop" and (pid, start) in held:
        os.close(held.pop((pid, start)))


if __name__ == "__main__":  # pragma: no cover - the watchdog process
    sys.path.insert(0, sys.argv[1])
    sys.exit(_watch(sys.argv[2]))
