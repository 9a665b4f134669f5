"""Start the agent and send `initialize` before the rest of the app has even been imported.

Importing Textual, the protocol models and the settings takes most of a second; the agent
needs a while to start as well. `prestart` spawns the agent and writes `initialize` with only
light imports (asyncio, the process and connection modules), so both happen at once. The
`AgentSession` then adopts the running process, its connection and the pending answer
(`AgentSession(..., prestarted=...)`), provided it would have started the very same command
(argv, cwd, environment); otherwise it shuts the early agent down and starts its own.

Frames that cross the wire before the session attaches its taps are kept and handed over, so
`--log` still sees the whole conversation.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from acp_tui.host.settings_file import read_settings_file
from acp_tui.protocol.agent_api import AgentApi
from acp_tui.protocol.announce import initialize_params
from acp_tui.protocol.connection import Connection
from acp_tui.protocol.process import AgentProcess, AgentSpawnError
from acp_tui.protocol.traffic import TrafficEvent
from acp_tui.sandbox.modes import SandboxMode
from acp_tui.sandbox.policy import SandboxError, SandboxPolicy
from acp_tui.tasks import Supervisor


class TapRelay:
    """A connection tap that keeps events until a target is attached, then forwards them."""

    def __init__(self) -> None:
        self.kept: list[TrafficEvent] = []
        self.first = asyncio.Event()
        self._target: Callable[[TrafficEvent], None] | None = None

    def __call__(self, event: TrafficEvent) -> None:
        self.first.set()
        if self._target is None:
            self.kept.append(event)
        else:
            self._target(event)

    def attach(self, target: Callable[[TrafficEvent], None]) -> None:
        """Send the traffic kept so far to `target`, then every new event."""
        kept, self.kept = self.kept, []
        self._target = target
        for event in kept:
            target(event)


@dataclass
class Prestarted:
    """An agent started early, with its `initialize` request on the way."""

    argv: list[str]
    cwd: str
    env_extra: dict[str, str]
    process: AgentProcess
    connection: Connection
    initialize: asyncio.Task[Any]
    relay: TapRelay = field(default_factory=TapRelay)
    offered: int = 1
    """The protocol version the early `initialize` offered."""
    tasks: Supervisor = field(default_factory=lambda: Supervisor("prestart"))
    """Owns the `initialize` request until the session adopts it."""
    sandbox: SandboxPolicy | None = None
    """The sandbox it was started in (the session adopts it only if it plans the same)."""

    def matches(self, argv: Sequence[str], cwd: str, env_extra: Mapping[str, str]) -> bool:
        """Whether this early process was started for exactly this command, directory and
        environment.
        """
        return self.argv == list(argv) and self.cwd == cwd and self.env_extra == dict(env_extra)

    async def discard(self) -> None:
        """Stop the early agent (the session starts its own)."""
        await self.tasks.close()  # the initialize request
        with contextlib.suppress(Exception):
            await self.connection.close()
        with contextlib.suppress(Exception):
            await self.process.shutdown()


async def prestart(
    argv: Sequence[str],
    cwd: str,
    env_extra: Mapping[str, str],
    *,
    marker_env: Mapping[str, str] | None = None,
    protocol: int = 1,
    sandbox: SandboxPolicy | None = None,
) -> Prestarted | None:
    """Spawn the agent and write `initialize`; None if it cannot start (the session will try
    again and report why). `marker_env` (the process guard's owner marker) is added to the
    agent's environment but is not part of what the session compares; `sandbox`: the one the
    settings will most likely ask for (the session compares it)."""
    try:
        process = await spawn_confined(
            argv, sandbox, cwd=cwd, env_extra={**env_extra, **(marker_env or {})}
        )
    except AgentSpawnError:
        return None
    connection = Connection(process.reader, process.writer)
    relay = TapRelay()
    connection.add_tap(relay)
    connection.start()
    tasks = Supervisor("prestart")
    asked = AgentApi(connection).initialize(initialize_params(protocol))
    initialize = tasks.spawn("initialize", asked, awaited=True)
    early = Prestarted(
        list(argv),
        cwd,
        dict(env_extra),
        process,
        connection,
        initialize,
        relay,
        protocol,
        tasks,
        sandbox,
    )
    # Run the loop until the frame is in the pipe (the relay saw it) or the request ended.
    first = tasks.spawn("first frame", relay.first.wait(), awaited=True)
    await asyncio.wait([first, initialize], return_when=asyncio.FIRST_COMPLETED)
    first.cancel()
    return early


async def spawn_confined(
    argv: Sequence[str], sandbox: SandboxPolicy | None, *, cwd: str, env_extra: Mapping[str, str]
) -> AgentProcess:
    """`AgentProcess.spawn` in `sandbox` (its ruleset built here, closed once the agent runs).
    Raises `AgentSpawnError`, the sandbox's failure included."""
    try:
        ruleset = sandbox.ruleset() if sandbox is not None else None
    except SandboxError as error:
        raise AgentSpawnError(str(error)) from error
    try:
        return await AgentProcess.spawn(
            argv,
            cwd=cwd,
            env_extra=env_extra,
            confine=ruleset.restrict_thread if ruleset is not None else None,
        )
    finally:
        if ruleset is not None:
            ruleset.close()


def quick_agent_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """A fast guess of the settings' `agent_env` (file and `ACP_TUI_AGENT_ENV`), read without
    the settings machinery. Only a guess: the session compares it with the real settings."""
    value = quick_setting("agent_env", environ)
    if isinstance(value, dict) and all(isinstance(v, str) for v in value.values()):
        return {str(k): v for k, v in value.items()}
    return {}


@dataclass(frozen=True)
class QuickSandboxSettings:
    """A fast guess of the sandbox's settings (see `quick_agent_env`); what fails to read is
    left at its default: the session plans its sandbox from the real settings and starts the
    agent again if the two differ."""

    sandbox: SandboxMode | None = None
    sandbox_writable: list[Path] = field(default_factory=list)
    sandbox_secrets: list[Path] = field(default_factory=list)
    extra_allowed_roots: list[Path] = field(default_factory=list)

    @classmethod
    def read(cls, environ: Mapping[str, str] | None = None) -> QuickSandboxSettings:
        """The guess from the file and the `ACP_TUI_*` variables."""
        mode = quick_setting("sandbox", environ, json_value=False)
        return cls(
            SandboxMode(mode) if mode in tuple(SandboxMode) else None,
            _quick_paths(quick_setting("sandbox_writable", environ)),
            _quick_paths(quick_setting("sandbox_secrets", environ)),
            _quick_paths(quick_setting("extra_allowed_roots", environ)),
        )


def _quick_paths(value: Any) -> list[Path]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return []
    expanded = [Path(item).expanduser() for item in value]
    return [path if path.is_absolute() else Path.home() / path for path in expanded]


def quick_setting(
    name: str, environ: Mapping[str, str] | None = None, *, json_value: bool = True
) -> Any:
    """One setting's raw value from `ACP_TUI_<NAME>` (JSON when `json_value`), else the config
    file, read without the settings machinery; None when not there or unreadable."""
    env = os.environ if environ is None else environ
    raw = env.get(f"ACP_TUI_{name.upper()}")
    value: Any = None
    if raw is not None:
        if not json_value:
            return raw
        with contextlib.suppress(ValueError, RecursionError):
            value = json.loads(raw)
    else:
        override = env.get("ACP_TUI_CONFIG", "")
        # RuntimeError: no home, or RecursionError (tomllib on nesting); ValueError: not a
        # regular file of at most 1 MiB, not TOML (the settings loader reports those)
        with contextlib.suppress(OSError, ValueError, RuntimeError):
            base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
            path = Path(override).expanduser() if override else Path(base) / "acp-tui/config.toml"
            value = tomllib.loads(read_settings_file(path)).get(name)
    return value
