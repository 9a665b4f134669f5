"""The agent subprocess: spawn from argv, drain stderr into a ring, shut down cleanly.

The agent runs in its own process group, and its environment carries a marker of its own, so
shutdown reaches every process below it as a tree (`process_tree.kill_tree`), including
children that left the group (codex-acp's native child outlives SIGTERM to its node wrapper).
Exit is detected from the child watcher (`process_exited`), never from pipe EOF: a grandchild
that inherited stderr or stdout must not keep us waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
import shutil
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from acp_tui.protocol.confined_child import ConfineFailed, start_confined
from acp_tui.protocol.process_tree import end_group, kill_tree, start_time
from acp_tui.safe_text import safe_line

logger = logging.getLogger(__name__)

STDOUT_BUFFER_LIMIT = 8 * 1024 * 1024  # flow control only: the connection reads blocks
TERM_WAIT = 1.0  # seconds between SIGTERM and SIGKILL
STDERR_SETTLE = 0.5  # seconds to wait for stderr EOF after the exit
AGENT_MARKER_PREFIX = "ACP_TUI_AGENT_"


class AgentSpawnError(Exception):
    """The agent could not be started; str() is one line with a hint for the user."""


@dataclass(frozen=True)
class AgentExit:
    """How the agent process ended: an exit code, or the signal that killed it."""

    returncode: int | None  # None when killed by a signal
    signal_name: str | None

    @classmethod
    def from_returncode(cls, returncode: int) -> AgentExit:
        """From asyncio's return code (negative: killed by that signal)."""
        if returncode < 0:
            try:
                name = signal.Signals(-returncode).name
            except ValueError:
                name = f"signal {-returncode}"
            return cls(None, name)
        return cls(returncode, None)

    def describe(self) -> str:
        """One line for the user, e.g. "agent exited with code 3"."""
        if self.signal_name is not None:
            return f"agent was killed by {self.signal_name}"
        if self.returncode == 0:
            return "agent exited normally"
        return f"agent exited with code {self.returncode}"


class StderrRing:
    """The last `capacity` bytes written to a stream."""

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._data = bytearray()
        self.total_bytes = 0

    def append(self, block: bytes) -> None:
        """Keep `block`, dropping the oldest bytes beyond the capacity."""
        self.total_bytes += len(block)
        self._data += block
        excess = len(self._data) - self.capacity
        if excess > 0:
            del self._data[:excess]

    def tail(self, max_lines: int) -> list[str]:
        """The last lines, made safe to show (`safe_line`: escape sequences become visible)."""
        if max_lines <= 0:
            return []
        lines = self._data.decode("utf-8", "replace").splitlines()
        return [safe_line(line) for line in lines[-max_lines:]]


class _AgentProtocol(asyncio.subprocess.SubprocessStreamProtocol):
    """Stream protocol that also reports the exit the moment the child watcher sees it."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited = asyncio.Event()

    def process_exited(self) -> None:
        super().process_exited()
        self.exited.set()


def _check_command(argv: Sequence[str], cwd: str | None, env: Mapping[str, str]) -> None:
    """Resolve argv[0] like exec would, or raise AgentSpawnError with a helpful message."""
    if not argv or not argv[0]:
        raise AgentSpawnError("no agent command given")
    if cwd is not None and not os.path.isdir(cwd):
        raise AgentSpawnError(f"agent working directory does not exist: {cwd!r}")
    command = argv[0]
    if os.sep in command:
        path = command if cwd is None else os.path.join(cwd, command)
        if not os.path.exists(path):
            raise AgentSpawnError(f"agent command not found: {command!r} (no such file)")
    else:
        found = shutil.which(command, path=env.get("PATH", os.defpath))
        if found is None:
            raise AgentSpawnError(
                f"agent command not found: {command!r} (is it installed and on PATH?)"
            )
        path = found
    if os.path.isdir(path):
        raise AgentSpawnError(f"agent command is a directory, not a program: {command!r}")
    if not os.access(path, os.X_OK):
        raise AgentSpawnError(
            f"agent command is not executable: {command!r} (check its permissions, chmod +x)"
        )


def _spawn_error(argv: Sequence[str], exc: OSError) -> AgentSpawnError:
    command = argv[0]
    if exc.errno == errno.ENOENT:
        return AgentSpawnError(
            f"agent command not found: {command!r} (is it installed and on PATH?)"
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EISDIR):
        return AgentSpawnError(
            f"agent command is not executable: {command!r} (check its permissions, chmod +x)"
        )
    if exc.errno == errno.ENOEXEC:
        return AgentSpawnError(
            f"cannot execute agent command {command!r}: not a program (missing #! line?)"
        )
    return AgentSpawnError(f"cannot start agent command {command!r}: {exc.strerror or exc}")


class _Child(Protocol):
    """What `AgentProcess` uses of its child, however it was started."""

    pid: int
    exited: asyncio.Event
    stdin: asyncio.StreamWriter | None
    stdout: asyncio.StreamReader | None
    stderr: asyncio.StreamReader | None

    @property
    def returncode(self) -> int | None:
        """The exit code, or minus the signal that killed it; None while it runs."""

    def close(self) -> None:
        """Close the pipes."""


class _AsyncioChild:
    """A child asyncio started (`loop.subprocess_exec`)."""

    def __init__(
        self,
        process: asyncio.subprocess.Process,
        protocol: _AgentProtocol,
        transport: asyncio.SubprocessTransport,
    ) -> None:
        self._process = process
        self._transport = transport
        self.pid = process.pid
        self.exited = protocol.exited
        self.stdin = process.stdin
        self.stdout = process.stdout
        self.stderr = process.stderr

    @property
    def returncode(self) -> int | None:
        return self._process.returncode

    def close(self) -> None:
        self._transport.close()


class AgentProcess:
    """A running agent: `reader` is its stdout, `writer` its stdin."""

    def __init__(self, child: _Child, stderr_ring_bytes: int, marker: str = "") -> None:
        self._child = child
        self.marker = marker
        """The environment variable (value "1") every process of the agent's tree inherits."""
        assert child.stdout is not None and child.stdin is not None
        self.reader: asyncio.StreamReader = child.stdout
        self.writer: asyncio.StreamWriter = child.stdin
        self.pid: int = child.pid
        self.start_time = start_time(child.pid)
        self._stderr = StderrRing(stderr_ring_bytes)
        self._stderr_task: asyncio.Task[None] | None = None
        if child.stderr is not None:
            self._stderr_task = asyncio.create_task(
                self._drain_stderr(child.stderr), name=f"agent-stderr {self.pid}"
            )

    @classmethod
    async def spawn(
        cls,
        argv: Sequence[str],
        *,
        cwd: str | None = None,
        env_extra: Mapping[str, str] | None = None,
        stderr_ring_bytes: int = 256 * 1024,
        confine: Callable[[], None] | None = None,
    ) -> AgentProcess:
        """Start the agent: argv without a shell, the full environment plus `env_extra` and its
        owner marker, its own process group, pipes for the three streams. `confine` restricts
        the thread that starts it, which the agent inherits (the sandbox: see
        `confined_child`; if it fails nothing is started). Raises `AgentSpawnError` with a
        readable reason."""
        marker = AGENT_MARKER_PREFIX + os.urandom(16).hex()  # (not uuid: it imports platform)
        env = {**os.environ, **(env_extra or {}), marker: "1"}
        _check_command(argv, cwd, env)
        loop = asyncio.get_running_loop()
        child: _Child
        try:
            if confine is not None:
                child = await start_confined(
                    argv, confine, cwd=cwd, env=env, limit=STDOUT_BUFFER_LIMIT
                )
            else:
                transport, protocol = await loop.subprocess_exec(
                    lambda: _AgentProtocol(STDOUT_BUFFER_LIMIT, loop),
                    *argv,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                    cwd=cwd,
                    env=env,
                    start_new_session=True,
                )
                process = asyncio.subprocess.Process(transport, protocol, loop)
                child = _AsyncioChild(process, protocol, transport)
        except OSError as exc:
            raise _spawn_error(argv, exc) from exc
        except ConfineFailed as exc:
            raise AgentSpawnError(f"cannot confine the agent in its sandbox: {exc}") from exc
        logger.info("spawned agent pid %s: %s", child.pid, list(argv))
        return cls(child, stderr_ring_bytes, marker)

    async def _drain_stderr(self, stream: asyncio.StreamReader) -> None:
        try:
            while block := await stream.read(64 * 1024):
                self._stderr.append(block)
        except (OSError, ValueError) as exc:
            logger.debug("agent stderr read failed: %s", exc)

    def stderr_tail(self, max_lines: int = 20) -> list[str]:
        """The last lines the agent wrote to stderr, made safe to show."""
        return self._stderr.tail(max_lines)

    @property
    def stderr_bytes(self) -> int:
        """How many bytes the agent wrote to stderr in total."""
        return self._stderr.total_bytes

    @property
    def exit(self) -> AgentExit | None:
        """How the agent ended; None while it runs."""
        returncode = self._child.returncode
        return None if returncode is None else AgentExit.from_returncode(returncode)

    async def wait(self) -> AgentExit:
        """Wait for the exit, then briefly for the rest of stderr (so the tail is complete)."""
        await self._child.exited.wait()
        await self._settle_stderr()
        exit_ = self.exit
        assert exit_ is not None
        return exit_

    async def _settle_stderr(self) -> None:
        # a grandchild may hold stderr open forever: wait for EOF only briefly
        task = self._stderr_task
        if task is not None and not task.done():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), STDERR_SETTLE)

    async def _exited_within(self, seconds: float) -> bool:
        try:
            await asyncio.wait_for(self._child.exited.wait(), seconds)
        except TimeoutError:
            return False
        return True

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, sig)

    async def shutdown(self, grace: float = 2.0) -> AgentExit:
        """Close stdin; after `grace` s SIGTERM the group; after a short wait SIGKILL it."""
        with contextlib.suppress(OSError, RuntimeError):
            self.writer.close()
        if not await self._exited_within(grace):
            logger.info("agent pid %s still running after %.1fs: SIGTERM", self.pid, grace)
            self._signal_group(signal.SIGTERM)
            if not await self._exited_within(TERM_WAIT):
                logger.warning("agent pid %s ignored SIGTERM: SIGKILL", self.pid)
                self._signal_group(signal.SIGKILL)
                await self._child.exited.wait()
        # children left behind (in its group or not) would hold our pipes open: end them too
        await self.kill_tree()
        exit_ = await self.wait()
        self._release()
        logger.info("agent pid %s: %s", self.pid, exit_.describe())
        return exit_

    async def kill_tree(self) -> int:
        """SIGKILL everything below the agent (and the agent); returns how many were killed."""
        known = {self.pid: self.start_time} if self.start_time is not None else {}
        killed = await asyncio.to_thread(
            kill_tree, known=known, marker=self.marker or None, watched=(self.pid,)
        )
        # its group (it leads it) may hold children the kill could not find: end and reap them
        await asyncio.to_thread(end_group, self.pid, keep=(self.pid,))
        if killed:
            logger.info("agent pid %s: killed %d processes of its tree", self.pid, len(killed))
        return len(killed)

    def _release(self) -> None:
        if self._stderr_task is not None and not self._stderr_task.done():
            self._stderr_task.cancel()  # never wait for an EOF a grandchild may withhold
        self._child.close()

    def __repr__(self) -> str:
        state: Any = self.exit.describe() if self.exit else "running"
        return f"<AgentProcess pid={self.pid} {state}>"
