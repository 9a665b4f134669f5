"""A child process on a real pseudo-terminal, read with the asyncio loop.

The child runs in its own session and process group with the PTY as its controlling terminal,
so a ^C typed into the PTY interrupts the foreground job (its terminal signals at their default
actions, however acp-tui was started), and it is a child subreaper, so its
orphaned descendants stay below it (see `process_tree`). The master side is non-blocking and
read through `loop.add_reader`; EIO on the master means every writer closed the slave (end of
output).
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import fcntl
import os
import signal
import struct
import termios
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from acp_tui.protocol.process_tree import set_child_subreaper
from acp_tui.tasks import Supervisor

READ_SIZE = 65536


@dataclass(frozen=True)
class ExitStatus:
    """How a command ended: an exit code, or the name of the signal that killed it."""

    exit_code: int | None = None
    signal: str | None = None

    @classmethod
    def from_returncode(cls, returncode: int) -> ExitStatus:
        """The status of a subprocess return code (negative: the signal that killed it)."""
        if returncode >= 0:
            return cls(exit_code=returncode)
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"SIG{-returncode}"
        return cls(signal=name)

    def to_wire(self) -> dict[str, Any]:
        """The ACP `TerminalExitStatus` / `WaitForTerminalExitResponse` shape."""
        return {"exitCode": self.exit_code, "signal": self.signal}

    def describe(self) -> str:
        """The status in words: "exit code N" or "killed by SIGNAME"."""
        if self.signal is not None:
            return f"killed by {self.signal}"
        return f"exit code {self.exit_code}"


def set_window_size(fd: int, columns: int, rows: int) -> None:
    """Set a terminal's window size (TIOCSWINSZ)."""
    size = struct.pack("HHHH", max(1, rows), max(1, columns), 0, 0)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, size)


TERMINAL_SIGNALS = (
    signal.SIGINT,
    signal.SIGQUIT,
    signal.SIGTSTP,
    signal.SIGTTIN,
    signal.SIGTTOU,
    signal.SIGHUP,
    signal.SIGPIPE,
)
"""Signals a command on a terminal expects to find at their default action, whatever acp-tui
inherited: started in the background (`acp-tui ... &`, or from a script), it ignores SIGINT and
SIGQUIT, and an ignored signal stays ignored across exec, so a ^C typed into the command's
terminal would do nothing."""


def _take_controlling_terminal() -> None:  # pragma: no cover - runs in the forked child
    # Popen has already called setsid() (start_new_session=True); stdin is the PTY slave.
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    # what a terminal emulator gives its shell: the default actions, no signal blocked
    for number in TERMINAL_SIGNALS:
        signal.signal(number, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_SETMASK, ())
    # The command becomes a subreaper (kept across exec): what its children orphan stays in its
    # tree while it runs, so a tree kill finds it even with an emptied environment.
    set_child_subreaper()


def _prepare_child(confine: Callable[[], None] | None) -> None:  # pragma: no cover - in the child
    _take_controlling_terminal()
    if confine is not None:
        confine()


class PtyProcess:
    """One spawned child and the master side of its PTY."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        master_fd: int,
        tasks: Supervisor | None = None,
    ) -> None:
        self._process = process
        self.pid = process.pid
        self.master_fd = master_fd
        self._loop = asyncio.get_running_loop()
        self._reading = False
        self._closed = False
        self._on_data: Callable[[bytes], None] | None = None
        self._on_eof: Callable[[], None] | None = None
        self._eof = False
        self._pending_input = bytearray()
        self._exit_status: ExitStatus | None = None
        self._exited = asyncio.Event()
        tasks = tasks if tasks is not None else Supervisor("pty")
        self._waiter = tasks.spawn(f"wait for pid {self.pid}", self._wait_for_child())

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: Path,
        columns: int = 80,
        rows: int = 24,
        tasks: Supervisor | None = None,
        on_master: Callable[[int], None] | None = None,
        confine: Callable[[], None] | None = None,
    ) -> PtyProcess:
        """Start `argv` on a new PTY. Raises OSError (e.g. FileNotFoundError) if exec fails,
        SubprocessError if `confine` (the sandbox, run in the child before exec) fails.
        `on_master` gets the master before the command starts (the watchdog's copy)."""
        master_fd, slave_fd = os.openpty()
        try:
            set_window_size(master_fd, columns, rows)
            if on_master is not None:
                on_master(master_fd)
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=slave_fd,
                stdout=slave_fd,
                stderr=slave_fd,
                cwd=cwd,
                env=dict(env),
                start_new_session=True,
                preexec_fn=partial(_prepare_child, confine),
                close_fds=True,
            )
        except BaseException:
            os.close(master_fd)
            raise
        finally:
            os.close(slave_fd)
        os.set_blocking(master_fd, False)
        return cls(process, master_fd, tasks)

    # -- output -------------------------------------------------------------------------------

    def start_reading(self, on_data: Callable[[bytes], None], on_eof: Callable[[], None]) -> None:
        """Call `on_data` with each output read from the PTY, and `on_eof` at its end."""
        self._on_data = on_data
        self._on_eof = on_eof
        if not self._closed and not self._eof:
            self._loop.add_reader(self.master_fd, self._read_ready)
            self._reading = True

    def _read_ready(self) -> None:
        self._read_once()

    def _read_once(self) -> bool:
        """Read one chunk; False when nothing is available right now (or at EOF)."""
        if self._closed or self._eof:
            return False
        try:
            data = os.read(self.master_fd, READ_SIZE)
        except BlockingIOError:
            return False
        except OSError as exc:
            if exc.errno != errno.EIO:
                raise
            data = b""
        if not data:
            self._reached_eof()
            return False
        if self._on_data is not None:
            self._on_data(data)
        return True

    def drain(self) -> None:
        """Read everything the PTY holds right now (the kernel flushes its buffer on read)."""
        while self._read_once():
            pass

    def _reached_eof(self) -> None:
        self._eof = True
        self._stop_reader()
        if self._on_eof is not None:
            self._on_eof()
        if self._exit_status is not None:
            self.close()  # nothing can come any more: free the descriptor now

    def _stop_reader(self) -> None:
        if self._reading:
            self._loop.remove_reader(self.master_fd)
            self._reading = False

    # -- process ------------------------------------------------------------------------------

    async def _wait_for_child(self) -> None:
        returncode = await self._process.wait()
        # Output written before the exit is still in the PTY: take it before reporting the exit.
        if self._on_data is not None:
            self.drain()
        self._exit_status = ExitStatus.from_returncode(returncode)
        self._exited.set()
        if self._eof:
            self.close()

    @property
    def exit_status(self) -> ExitStatus | None:
        """How the process ended, once it has."""
        return self._exit_status

    async def wait(self) -> ExitStatus:
        """Wait for the process to end; its exit status."""
        await self._exited.wait()
        assert self._exit_status is not None
        return self._exit_status

    def signal_group(self, sig: int = signal.SIGKILL) -> None:
        """Send `sig` to the child's whole process group (its pgid is its pid)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    # -- input and size -----------------------------------------------------------------------

    def write(self, data: bytes) -> None:
        """Send input to the process (queued while the PTY cannot take more)."""
        if self._closed or not data:
            return
        if self._pending_input:
            self._pending_input += data
            return
        try:
            written = os.write(self.master_fd, data)
        except BlockingIOError:
            written = 0
        except OSError:
            return  # the other side is gone; typing into a dead terminal does nothing
        if written < len(data):
            self._pending_input += data[written:]
            self._loop.add_writer(self.master_fd, self._write_ready)

    def _write_ready(self) -> None:
        try:
            written = os.write(self.master_fd, self._pending_input)
        except BlockingIOError:
            return
        except OSError:
            written = len(self._pending_input)
        del self._pending_input[:written]
        if not self._pending_input:
            self._loop.remove_writer(self.master_fd)

    def resize(self, columns: int, rows: int) -> None:
        """Set the PTY's window size (ignored once closed)."""
        if not self._closed:
            with contextlib.suppress(OSError):
                set_window_size(self.master_fd, columns, rows)

    def close(self) -> None:
        """Stop reading and close the master side (the process itself is not signalled)."""
        if self._closed:
            return
        self._stop_reader()
        if self._pending_input:
            self._loop.remove_writer(self.master_fd)
            self._pending_input.clear()
        self._closed = True
        os.close(self.master_fd)
