"""The agent's terminals: ACP `terminal/*` requests answered with real PTYs.

`TerminalHost` takes the typed params (validated by their models in `protocol.router`), owns
every `Terminal` of a session and answers with ACP-shaped results; `Terminal` is what the UI
shows (live bytes, input, resize, kill).

A command's processes are killed as a tree, not a process group: every terminal's environment
carries a marker of its own, the host records each process it sees in the tree while it runs
(and tells the `ProcessGuard`, whose watchdog outlives acp-tui), and `kill`/`release`/
`close_all` stop and kill every descendant, marked or recorded, `setsid`/`nohup` ones too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.host.process_guard import ProcessGuard
from acp_tui.protocol.errors import invalid_params
from acp_tui.protocol.process_tree import (
    Proc,
    kill_tree,
    members,
    reap_orphans,
    snapshot,
    start_time,
)
from acp_tui.sandbox.policy import SandboxError, SandboxPolicy
from acp_tui.signal import Signal, Unsubscribe
from acp_tui.tasks import Supervisor

if TYPE_CHECKING:  # (the PTY and the screen's text: imported when the first terminal starts;
    # the request models are built at the first request, `models.client_methods`)
    from acp_tui.host.pty_process import ExitStatus, PtyProcess
    from acp_tui.protocol.models import CreateTerminalRequest, EnvVariable, TerminalRequest

__all__ = ["Terminal", "TerminalHost"]

log = logging.getLogger(__name__)

UI_OUTPUT_LIMIT = 4 * 1024 * 1024  # what a widget mounted late can still replay
DEFAULT_COLUMNS, DEFAULT_ROWS = 80, 24
CLOSE_TIMEOUT = 5.0  # how long release/close_all wait for a SIGKILLed process to be reaped
TRACK_INTERVAL = 0.5  # seconds between two looks at the running terminals' process trees
TERMINAL_MARKER_PREFIX = "ACP_TUI_TERMINAL_"
_SHELL_CHARS = frozenset(" \t\n|&;<>()$`\\\"'*?[]#~={}")


class Terminal:
    """One command on a PTY, its output, and (once it ended) its exit status."""

    def __init__(
        self,
        terminal_id: str,
        command: str,
        args: list[str],
        *,
        session_id: str,
        output_byte_limit: int,
        tasks: Supervisor | None = None,
    ) -> None:
        self._tasks = tasks if tasks is not None else Supervisor("terminal")
        self.id = terminal_id
        self.command = command
        self.args = args
        self.session_id = session_id
        self.output_byte_limit = output_byte_limit
        self.exit_status: ExitStatus | None = None
        self.released = False
        from acp_tui.host.terminal_screen import OutputBuffer

        self._buffer = OutputBuffer(max(output_byte_limit, UI_OUTPUT_LIMIT))
        self.output_arrived: Signal[bytes] = Signal("terminal output")
        self.exited: Signal[ExitStatus] = Signal("terminal exit")
        self._process: PtyProcess | None = None
        self._exited = asyncio.Event()
        self._exit_watch: asyncio.Task[None] | None = None
        self._text_cache: tuple[int, str, bool] | None = None
        self.marker = TERMINAL_MARKER_PREFIX + uuid.uuid4().hex
        """An environment variable only this terminal's processes carry."""
        self.tree: dict[int, int] = {}
        """Every process seen in this terminal's tree: pid → start time (see process_tree)."""
        self._marked: dict[tuple[int, int], bool] = {}
        """Whether a process, by (pid, start), carries *this* terminal's marker (environ is read
        once per process). Never shared: another terminal's answer is about another marker."""

    # -- lifecycle (used by TerminalHost) -----------------------------------------------------

    def attach(self, process: PtyProcess) -> None:
        """Take the started process and remember its process tree (to kill all of it later)."""
        self._process = process
        start = start_time(process.pid)
        if start is not None:
            self.tree[process.pid] = start
        process.start_reading(self._on_data, lambda: None)
        self._exit_watch = self._tasks.spawn(f"{self.id} exit", self._watch_exit(process))

    def fail_to_start(self, message: str, exit_code: int) -> None:
        """Report an exec failure the way a shell would: a message, then an exit code."""
        self._on_data(f"{message}\r\n".encode(errors="replace"))
        from acp_tui.host.pty_process import ExitStatus

        self._set_exited(ExitStatus(exit_code=exit_code))

    async def _watch_exit(self, process: PtyProcess) -> None:
        self._set_exited(await process.wait())

    def _set_exited(self, status: ExitStatus) -> None:
        self.exit_status = status
        self._exited.set()
        self.exited.emit(status)

    async def close(self) -> None:
        """Kill the process tree if anything is left of it, reap it, close the PTY."""
        process = self._process
        if process is None:
            return
        await asyncio.to_thread(self._kill_tree)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.wait_for_exit(), CLOSE_TIMEOUT)
        process.close()

    def _kill_tree(self) -> dict[int, Proc]:
        process = self._process
        watched = () if process is None else (process.pid,)
        return kill_tree(known=dict(self.tree), marker=self.marker, watched=watched)

    def track(self, procs: dict[int, Proc]) -> list[Proc]:
        """Record the processes of this terminal's tree in `procs`; return the new ones."""
        for key in [key for key in self._marked if _gone(*key, procs)]:
            del self._marked[key]
        found = members(procs, known=self.tree, marker=self.marker, checked=self._marked)
        new = [procs[pid] for pid in found if self.tree.get(pid) != procs[pid].start]
        for proc in new:
            self.tree[proc.pid] = proc.start
        root = self._process.pid if self._process is not None else None
        present = {pid: procs[pid] for pid in self.tree if pid in procs}
        reap_orphans(present, keep=() if root is None else (root,))
        for pid in [pid for pid, start in self.tree.items() if _gone(pid, start, procs)]:
            del self.tree[pid]
        return new

    @property
    def tracked(self) -> bool:
        """Whether anything of the tree may still be alive (the root, or a recorded process)."""
        return self.running or bool(self.tree)

    # -- what the UI and the agent see ----------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the command is still running."""
        return self.exit_status is None

    def _on_data(self, data: bytes) -> None:
        self._buffer.append(data)
        self.output_arrived.emit(data)

    def add_output_listener(self, cb: Callable[[bytes], None]) -> Unsubscribe:
        """Call `cb` with raw bytes as they arrive; returns a function that unsubscribes."""
        return self.output_arrived.subscribe(cb)

    def add_exit_listener(self, cb: Callable[[ExitStatus], None]) -> Unsubscribe:
        """Call `cb` once the command has ended (not called if it already had)."""
        return self.exited.subscribe(cb)

    def output_bytes(self) -> bytes:
        """The output so far (its last UI_OUTPUT_LIMIT bytes or more), for a late widget."""
        return self._buffer.tail(max(UI_OUTPUT_LIMIT, self.output_byte_limit))[0]

    def output_text(self) -> tuple[str, bool]:
        """Readable text of the last `output_byte_limit` bytes, and whether any were dropped."""
        total = self._buffer.total
        if self._text_cache is not None and self._text_cache[0] == total:
            return self._text_cache[1], self._text_cache[2]
        data, truncated = self._buffer.tail(self.output_byte_limit)
        from acp_tui.host.terminal_screen import render_text

        text = render_text(data)
        if len(text) * 4 > self.output_byte_limit:  # could exceed the limit (U+FFFD is 3 bytes)
            encoded = text.encode()
            if len(encoded) > self.output_byte_limit:
                cut = len(encoded) - self.output_byte_limit
                text = encoded[cut:].decode("utf-8", "ignore")
                truncated = True
        self._text_cache = (total, text, truncated)
        return text, truncated

    async def wait_for_exit(self) -> ExitStatus:
        """Wait for the command to end; its exit status."""
        await self._exited.wait()
        assert self.exit_status is not None
        return self.exit_status

    def write_input(self, data: bytes) -> None:
        """Send the user's typing to the PTY (ignored once the terminal is closed)."""
        if self._process is not None:
            self._process.write(data)

    def resize(self, columns: int, rows: int) -> None:
        """Resize the PTY of the running command."""
        if self._process is not None and columns > 0 and rows > 0:
            self._process.resize(columns, rows)

    def kill(self) -> None:
        """SIGKILL the command's whole process tree; the terminal stays readable."""
        if self._process is not None:
            self._kill_tree()


class TerminalHost:
    """Answers `terminal/*` for one session; `close_all()` when the session or app ends."""

    def __init__(
        self,
        cwd: Path,
        *,
        cwd_check: Callable[[Path], Awaitable[Path]] | None = None,
        default_output_byte_limit: int = 1_000_000,
        guard: ProcessGuard | None = None,
        tasks: Supervisor | None = None,
        sandbox: SandboxPolicy | None = None,
    ) -> None:
        self.tasks = tasks if tasks is not None else Supervisor("terminals")
        self.sandbox = sandbox
        """The agent's sandbox, which every command started here runs in too (None: none)."""
        """Runs the terminals' exit watchers, PTY waiters and the process-tree tracker."""
        self.cwd = cwd
        self.cwd_check = cwd_check
        self.default_output_byte_limit = default_output_byte_limit
        self.guard = guard if guard is not None else ProcessGuard()
        self._terminals: dict[str, Terminal] = {}  # every terminal, released ones too (for the UI)
        self._tracker: asyncio.Task[None] | None = None

    # -- ACP requests -----------------------------------------------------------------------------

    async def create(self, params: CreateTerminalRequest) -> dict[str, Any]:
        """Answer terminal/create: start the command in a real PTY (checked, in the session
        directory, under the guard).
        """
        command, args = params.command, list(params.args)
        if not command.strip():
            raise invalid_params("command must not be empty")
        if any("\x00" in value for value in (params.session_id, command, *args)):
            raise invalid_params("sessionId, command and args must not contain NUL bytes")
        env = _env(params.env)
        limit = params.output_byte_limit
        from acp_tui.host.pty_process import PtyProcess
        from acp_tui.host.terminal_screen import MAX_RETAINED_BYTES

        limit = self.default_output_byte_limit if limit is None else min(limit, MAX_RETAINED_BYTES)
        cwd = await self._cwd(params.cwd)
        session_id = params.session_id

        if not args and any(char in _SHELL_CHARS for char in command):
            argv = [os.environ.get("SHELL") or "/bin/sh", "-c", command]
        else:
            argv = [command, *args]

        terminal = Terminal(
            f"term-{uuid.uuid4().hex[:12]}",
            command,
            args,
            session_id=session_id,
            output_byte_limit=limit,
            tasks=self.tasks,
        )
        environment = {
            **os.environ,
            "TERM": "xterm-256color",
            **env,
            **self.guard.child_env(),
            terminal.marker: "1",
        }
        drops: list[Callable[[], None]] = []  # the watchdog's copy of the PTY, held first

        def hold(master_fd: int) -> None:
            drops.append(self.guard.hold_pty(master_fd))

        ruleset = None
        try:
            ruleset = self.sandbox.ruleset() if self.sandbox is not None else None
            process = await PtyProcess.spawn(
                argv,
                env=environment,
                cwd=cwd,
                columns=DEFAULT_COLUMNS,
                rows=DEFAULT_ROWS,
                tasks=self.tasks,
                on_master=hold,
                confine=ruleset.restrict_thread if ruleset is not None else None,
            )
        except FileNotFoundError:
            terminal.fail_to_start(f"{argv[0]}: command not found", 127)
        except OSError as exc:
            terminal.fail_to_start(f"{argv[0]}: {exc.strerror or exc}", 126)
        except (SandboxError, subprocess.SubprocessError) as exc:  # never run unconfined
            terminal.fail_to_start(f"{argv[0]}: not started, the sandbox failed: {exc}", 126)
        else:
            terminal.attach(process)
            for drop in drops:  # the watchdog lets the PTY go when the command has ended
                terminal.add_exit_listener(_call(drop))
            drops.clear()
            self._record(terminal)
        finally:
            if ruleset is not None:
                ruleset.close()  # (the command keeps its restriction)
            for drop in drops:  # it never started
                drop()
        self._terminals[terminal.id] = terminal
        return {"terminalId": terminal.id}

    async def output(self, params: TerminalRequest) -> dict[str, Any]:
        """Answer terminal/output: the output kept so far, whether it was cut, and the exit
        status once ended.
        """
        terminal = self._lookup(params)
        text, truncated = terminal.output_text()
        result: dict[str, Any] = {"output": text, "truncated": truncated}
        if terminal.exit_status is not None:
            result["exitStatus"] = terminal.exit_status.to_wire()
        return result

    async def wait_for_exit(self, params: TerminalRequest) -> dict[str, Any]:
        """Answer terminal/wait_for_exit: wait for the command to end."""
        terminal = self._lookup(params)
        return (await terminal.wait_for_exit()).to_wire()

    async def kill(self, params: TerminalRequest) -> dict[str, Any]:
        """Answer terminal/kill: kill the command's whole process tree."""
        await asyncio.to_thread(self._lookup(params).kill)
        return {}

    async def release(self, params: TerminalRequest) -> dict[str, Any]:
        """Answer terminal/release: kill what still runs of the command and close its PTY."""
        terminal = self._lookup(params)
        terminal.released = True
        await terminal.close()
        return {}

    # -- for the UI and the app ---------------------------------------------------------------

    def get(self, terminal_id: str) -> Terminal | None:
        """The terminal with this id, if any."""
        return self._terminals.get(terminal_id)

    async def close_all(self) -> None:
        """Kill every terminal's process tree and close every PTY (session end / app exit)."""
        tracker, self._tracker = self._tracker, None
        if tracker is not None:
            tracker.cancel()
        await asyncio.gather(*(terminal.close() for terminal in self._terminals.values()))

    # -- process trees --------------------------------------------------------------------------

    def _record(self, terminal: Terminal) -> None:
        procs = snapshot()
        for proc in terminal.track(procs):
            self.guard.record(proc.pid, proc.start)
        self.guard.flush()
        if self._tracker is None or self._tracker.done():
            self._tracker = self.tasks.spawn("terminal trees", self._track())

    async def _track(self) -> None:
        """While any tree may live, record its processes (orphans too) and reap orphans."""
        while True:
            await asyncio.sleep(TRACK_INTERVAL)
            terminals = [t for t in self._terminals.values() if t.tracked]
            if not terminals:
                return
            procs = await asyncio.to_thread(snapshot)
            for terminal in terminals:
                for proc in terminal.track(procs):
                    self.guard.record(proc.pid, proc.start)
            self.guard.record_below(procs)

    # -- validation ---------------------------------------------------------------------------

    def _lookup(self, params: TerminalRequest) -> Terminal:
        terminal = self._terminals.get(params.terminal_id)
        if terminal is None or terminal.released:
            raise invalid_params(f"unknown terminal {params.terminal_id!r}")
        if terminal.session_id != params.session_id:
            raise invalid_params(f"terminal {params.terminal_id!r} belongs to another session")
        return terminal

    async def _cwd(self, value: str | None) -> Path:
        if value is None:
            return self.cwd
        if "\x00" in value:
            raise invalid_params("cwd must be a string without NUL bytes")
        cwd = Path(value)
        if not cwd.is_absolute():
            raise invalid_params(f"cwd must be an absolute path: {value!r}")
        if self.cwd_check is not None:
            cwd = await self.cwd_check(cwd)
        if not cwd.is_dir():
            raise invalid_params(f"cwd is not an existing directory: {str(cwd)!r}")
        return cwd


def _env(variables: list[EnvVariable]) -> dict[str, str]:
    env: dict[str, str] = {}
    for variable in variables:
        name, value = variable.name, variable.value
        if not name or "=" in name or "\x00" in name or "\x00" in value:
            raise invalid_params(f"invalid environment variable name or value: {name!r}")
        env[name] = value
    return env


def _gone(pid: int, start: int, procs: dict[int, Proc]) -> bool:
    return pid not in procs or procs[pid].start != start or procs[pid].state in "ZX"


def _call(function: Callable[[], None]) -> Callable[[ExitStatus], None]:
    """An exit listener that calls `function`."""
    return lambda _status: function()
