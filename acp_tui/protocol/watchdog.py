"""The watchdog: a small process that ends what acp-tui started once acp-tui is gone.

acp-tui cannot clean up after `kill -9`. So at startup it spawns this script (stdlib only, in
its own session so a closing terminal window does not hang it up) with one end of a Unix
socket (SOCK_SEQPACKET: one message a line) on its stdin. acp-tui sends ``PID START`` for each
process it learns about, and ``hold PID START`` with a duplicate of a terminal's PTY master
(``drop PID START`` once that command has ended); the watchdog only reads. When the socket
closes, whatever the reason (a normal exit, a crash, SIGKILL), the watchdog kills every recorded
process that still exists, every process started with acp-tui's owner marker in its
environment, and everything below them, then closes the masters it holds and exits.

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


class Watchdog:
    """acp-tui's end of the socket to the watchdog process."""

    def __init__(self, process: subprocess.Popen[bytes], channel: socket.socket) -> None:
        self.process = process
        self.pid = process.pid
        self._channel: socket.socket | None = channel

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
        """Tell the watchdog about a process to kill if acp-tui dies (best effort)."""
        self._send(f"{pid} {start}")

    def hold(self, master_fd: int, pid: int, start: int) -> None:
        """Give the watchdog a duplicate of the PTY master of the command (pid, start), so that
        acp-tui's death does not hang its terminal up before the watchdog stopped its tree."""
        self._send(f"hold {pid} {start}", master_fd)

    def drop(self, pid: int, start: int) -> None:
        """The command (pid, start) has ended: the watchdog closes its master."""
        self._send(f"drop {pid} {start}")

    def _send(self, line: str, fd: int | None = None) -> None:
        if self._channel is None:
            return
        with contextlib.suppress(OSError):  # full (BlockingIOError) or gone: best effort
            if fd is None:
                self._channel.send(line.encode())
            else:
                socket.send_fds(self._channel, [line.encode()], [fd])

    def close(self, *, wait: float | None = None) -> None:
        """Close the socket: the watchdog cleans up and exits (wait up to `wait` s for that)."""
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
                message, fds, _flags, _address = socket.recv_fds(channel, 256, 4)
            except InterruptedError:
                continue
            except OSError:
                break
            if not message and not fds:
                break  # acp-tui is gone
            _take(message.split(), fds, known, held)
    kill_tree(known=known, marker=marker, watched=None)
    for fd in held.values():
        os.close(fd)
    return 0


def _take(  # pragma: no cover - runs in the watchdog process
    words: list[bytes], fds: list[int], known: dict[int, int], held: dict[tuple[int, int], int]
) -> None:
    """One message: ``PID START``, ``hold PID START`` (with a PTY master), ``drop PID START``."""
    verb = {2: b"", 3: words[0]}.get(len(words), b"?")
    try:
        pid, start = int(words[-2]), int(words[-1])
    except (IndexError, ValueError):
        verb, pid, start = b"?", 0, 0
    if verb in (b"", b"hold"):
        known[pid] = start
    if verb == b"hold" and fds:
        previous = held.pop((pid, start), None)
        held[(pid, start)] = fds.pop()
        if previous is not None:
            os.close(previous)
    if verb == b"drop" and (pid, start) in held:
        os.close(held.pop((pid, start)))
    for fd in fds:
        os.close(fd)


if __name__ == "__main__":  # pragma: no cover - the watchdog process
    sys.path.insert(0, sys.argv[1])
    sys.exit(_watch(sys.argv[2]))
