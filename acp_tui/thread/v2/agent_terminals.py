"""Agent-owned terminals (ACP v2): what `terminal_update` / `terminal_output_chunk` described.

The agent runs the command; acp-tui only shows it. An `AgentTerminal` keeps a bounded tail of
the raw output bytes (they go through the same VT emulator as a client PTY's output, never to the
screen as they are) and tells listeners about appended bytes, a replaced snapshot and the exit.
It offers the read-only part of the host `Terminal` interface the terminal widget uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

from acp_tui.signal import Signal, Unsubscribe


@cache
def _escapes() -> re.Pattern[str]:
    """CSI, OSC and two-byte escape sequences (compiled when a v2 agent's terminal is first
    read, not by every launch)."""
    return re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


@cache
def _bare_lf() -> re.Pattern[bytes]:
    """A line feed with no carriage return before it."""
    return re.compile(rb"(?<!\r)\n")


def as_terminal_shows(data: bytes) -> bytes:
    """An agent-owned command's output as a terminal would show it: each bare line feed also
    returns the carriage (a PTY's `onlcr`). The agent's command writes to pipes, not to a PTY,
    so its lines end in LF alone, which a VT emulator draws as a staircase."""
    return _bare_lf().sub(b"\r\n", data)


OUTPUT_LIMIT = 1024 * 1024
"""Bytes of output kept per agent terminal (the tail)."""


@dataclass(frozen=True)
class AgentExitStatus:
    exit_code: int | None = None
    signal: str | None = None

    def describe(self) -> str:
        """The status in words: "killed by SIGNAME", "exit code N" or "exited"."""
        if self.signal is not None:
            return f"killed by {self.signal}"
        if self.exit_code is None:
            return "exited"
        return f"exit code {self.exit_code}"


class AgentTerminal:
    """One agent-owned terminal as last described by the agent."""

    read_only = True

    def __init__(self, terminal_id: str, *, limit: int = OUTPUT_LIMIT) -> None:
        self.id = terminal_id
        self.command: str = ""
        self.args: list[str] = []
        self.cwd: str | None = None
        self.exit_status: AgentExitStatus | None = None
        self.can_cancel = False
        """The agent lets the client stop it (`capabilities.cancel`: `terminal/cancel`)."""
        self.on_cancel: Callable[[str], None] | None = None
        """How a cancel is sent (set by the session): called with the terminal's id."""
        self._limit = limit
        self._output = bytearray()
        self._dropped = False
        self.output_arrived: Signal[bytes] = Signal("agent terminal output")
        self.reset: Signal[bytes] = Signal("agent terminal snapshot")
        self.exited: Signal[AgentExitStatus] = Signal("agent terminal exit")

    # ---- what the agent says -------------------------------------------------------------

    def append(self, data: bytes) -> None:
        """Keep output the agent reported (the oldest dropped beyond the limit) and tell the
        listeners.
        """
        self._output += data
        if len(self._output) > self._limit:
            del self._output[: len(self._output) - self._limit]
            self._dropped = True
        self.output_arrived.emit(data)

    def replace(self, data: bytes) -> None:
        """An authoritative snapshot of the whole output (`terminal_update.output`)."""
        self._output = bytearray(data[-self._limit :])
        self._dropped = len(data) > self._limit
        self.reset.emit(bytes(self._output))

    def set_exit(self, status: AgentExitStatus | None) -> None:
        """Record how the command ended (listeners are told once, when it stops running)."""
        was_running = self.exit_status is None
        self.exit_status = status
        if status is not None and was_running:
            self.exited.emit(status)

    # ---- what a view uses -----------------------------------------------------------------

    def output_bytes(self) -> bytes:
        """The output kept so far."""
        return bytes(self._output)

    def output_text(self) -> tuple[str, bool]:
        """The output as plain text (escape sequences dropped; for copying), and whether its
        start was dropped (only the tail is kept)."""
        text = _escapes().sub("", self._output.decode("utf-8", "replace")).replace("\r\n", "\n")
        return text, self._dropped

    def add_output_listener(self, callback: Callable[[bytes], None]) -> Unsubscribe:
        """Call `callback` with each new piece of output; returns the call that stops it."""
        return self.output_arrived.subscribe(callback)

    def add_reset_listener(self, callback: Callable[[bytes], None]) -> Unsubscribe:
        """Call `callback` when the output is replaced whole; returns the call that stops it."""
        return self.reset.subscribe(callback)

    def add_exit_listener(self, callback: Callable[[AgentExitStatus], None]) -> Unsubscribe:
        """Call `callback` when the command ends; returns the call that stops it."""
        return self.exited.subscribe(callback)

    def write_input(self, data: bytes) -> None:
        """Agent-owned terminals take no input from acp-tui."""

    def resize(self, columns: int, rows: int) -> None:
        """The agent owns the size."""

    def kill(self) -> None:
        """Ask the agent to stop the command, when it offers that (`terminal/cancel`); else
        nothing: acp-tui cannot kill what the agent runs (cancel the turn instead)."""
        if self.can_cancel and self.exit_status is None and self.on_cancel is not None:
            self.on_cancel(self.id)
