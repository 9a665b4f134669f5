"""A child process started from a new thread that is confined first (a sandbox), its pipes then
read and written on the event loop.

Landlock and `no_new_privs` belong to a thread, and a child inherits its thread's: a thread made
for one spawn restricts itself, starts the child with `subprocess.Popen` (vfork and exec, as
for any child with no code to run between them) and ends. Running the restriction in the
child instead (`preexec_fn`) costs a full fork of acp-tui's memory: 10-20 ms per agent start
where this costs well under one (`bench/sandbox.py`). The exit is seen through a pidfd on the
loop (a thread waiting in `waitpid` where there is none), never from the end of the pipes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence


class ConfineFailed(Exception):
    """The confinement of the spawning thread failed: the child was not started."""


def _popen_in_thread(
    confine: Callable[[], None], argv: Sequence[str], kwargs: Mapping[str, object]
) -> subprocess.Popen[bytes]:
    outcome: list[subprocess.Popen[bytes] | BaseException] = []

    def run() -> None:
        try:
            confine()
        except BaseException as error:  # the thread ends here: nothing started unconfined
            outcome.append(ConfineFailed(str(error)))
            return
        try:
            outcome.append(subprocess.Popen(list(argv), **kwargs))  # type: ignore[call-overload]
        except BaseException as error:
            outcome.append(error)

    thread = threading.Thread(target=run, name="confined spawn", daemon=True)
    thread.start()
    thread.join()  # (a vfork and an exec: about as long as Popen on the loop would block)
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result


class ConfinedChild:
    """The running child: `stdin`, `stdout`, `stderr` as streams, `exited` set at its exit."""

    def __init__(self, popen: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop) -> None:
        self._popen = popen
        self._loop = loop
        self.pid = popen.pid
        self.exited = asyncio.Event()
        self._transports: list[asyncio.BaseTransport] = []
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._pidfd = -1

    @property
    def returncode(self) -> int | None:
        """As asyncio's: the exit code, or minus the signal that killed it; None while alive."""
        return self._popen.returncode

    async def _connect(self, limit: int) -> None:
        loop = self._loop
        popen = self._popen
        assert popen.stdin is not None and popen.stdout is not None and popen.stderr is not None
        self.stdout = asyncio.StreamReader(limit=limit, loop=loop)
        self.stderr = asyncio.StreamReader(limit=limit, loop=loop)
        for pipe, reader in ((popen.stdout, self.stdout), (popen.stderr, self.stderr)):
            transport, _ = await loop.connect_read_pipe(
                lambda reader=reader: asyncio.StreamReaderProtocol(reader, loop=loop),  # type: ignore[misc]
                pipe,
            )
            self._transports.append(transport)
        write_transport, protocol = await loop.connect_write_pipe(
            lambda: asyncio.streams.FlowControlMixin(loop=loop), popen.stdin
        )
        self._transports.append(write_transport)
        self.stdin = asyncio.StreamWriter(write_transport, protocol, None, loop)

    def _watch_exit(self) -> None:
        try:
            self._pidfd = os.pidfd_open(self.pid)
        except (AttributeError, OSError):
            threading.Thread(target=self._wait_blocking, name="agent exit", daemon=True).start()
            return
        self._loop.add_reader(self._pidfd, self._on_pidfd)

    def _on_pidfd(self) -> None:
        self._loop.remove_reader(self._pidfd)
        os.close(self._pidfd)
        self._pidfd = -1
        self._reaped(self._reap())

    def _wait_blocking(self) -> None:  # pragma: no cover - kernels without pidfd_open
        code = self._reap()
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            self._loop.call_soon_threadsafe(self._reaped, code)

    def _reap(self) -> int:
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:
            return 255  # reaped by someone else: how it ended is lost
        return os.waitstatus_to_exitcode(status)

    def _reaped(self, code: int) -> None:
        self._popen.returncode = code  # (Popen then never polls for it)
        self.exited.set()

    def close(self) -> None:
        """Close the pipes (the process is not signalled)."""
        for transport in self._transports:
            transport.close()
        if self._pidfd >= 0:
            self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1


async def start_confined(
    argv: Sequence[str],
    confine: Callable[[], None],
    *,
    cwd: str | None,
    env: Mapping[str, str],
    limit: int,
) -> ConfinedChild:
    """Start `argv` with pipes for its three streams, in its own session, from a new thread
    that `confine` restricts first. Raises OSError as Popen does, ConfineFailed."""
    loop = asyncio.get_running_loop()
    popen = _popen_in_thread(
        confine,
        argv,
        {
            "stdin": subprocess.PIPE,
            "stdout": subprocess.PIPE,
            "stderr": subprocess.PIPE,
            "cwd": cwd,
            "env": dict(env),
            "start_new_session": True,
        },
    )
    child = ConfinedChild(popen, loop)
    child._watch_exit()
    await child._connect(limit)
    return child
