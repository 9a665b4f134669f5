"""`acp-tui check -- AGENT_CMD`: run an agent without a UI and report what it said and did wrong.

Initialize, `session/new` in a fresh temporary directory, optionally one prompt (permissions
answered by a fixed policy), then a report: protocol version, capabilities, auth methods, modes,
config options, commands, timings and every conformance mark of the traffic. Each step is bounded
and told as it goes (`check_steps.py`); the agent's whole tree is killed however the check ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp_tui.client.check_steps import StepClock, StepLimits, StepTimeout
from acp_tui.client.events import SessionState
from acp_tui.client.handshake import AuthMethodInfo
from acp_tui.client.session.agent_session import AgentSession
from acp_tui.config import HoldWrites, Settings
from acp_tui.host import new_files
from acp_tui.host.asker import FixedAnswer
from acp_tui.host.permissions import PendingPermission
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.protocol.methods import INITIALIZE
from acp_tui.protocol.models import PermissionOption, RequestPermissionRequest, to_wire
from acp_tui.protocol.process_tree import kill_tree
from acp_tui.protocol.traffic_store import TrafficStore
from acp_tui.sandbox.policy import SandboxRequest
from acp_tui.thread.diff import FileDiff

Policy = Literal["allow", "reject", "cancel"]
STDERR_LINES = 12
"""The agent's last stderr lines a report shows when a step ran out of time."""
CLOSE_SECONDS = 10.0
"""How long closing the session may take (`session/close`, the agent's shutdown) before the
agent's tree is killed outright."""


class CheckUi:
    """Nobody at the keyboard: one named login method, files outside the directory denied."""

    asker = FixedAnswer("deny")

    def __init__(self, auth: str | None) -> None:
        self.auth = auth
        self.auth_error: str | None = None

    async def choose_auth_method(
        self,
        agent: str,
        methods: Sequence[AuthMethodInfo],
        error: str | None,
        *,
        by_user: bool = False,
    ) -> AuthMethodInfo | None:
        """Pick the method named by --auth; with none or a second failure, record why and give
        up.
        """
        if self.auth_error is not None or self.auth is None:
            self.auth_error = error or "authentication required (give --auth METHOD)"
            return None
        self.auth_error = ""  # one try only
        return next((m for m in methods if m.id == self.auth and m.type == "agent"), None)

    async def run_login_terminal(
        self, argv: Sequence[str], env: Mapping[str, str], cwd: Path, *, by_user: bool = False
    ) -> int | None:
        """A check never runs a login command (no one is there to type): None."""
        return None

    async def review_write(self, path: Path, diff: FileDiff) -> None:
        """A check never holds a write for review: None."""
        return None


class CheckSession(AgentSession):
    """An `AgentSession` whose permission requests are answered by a fixed policy (v1: in place
    of the route's handler; v2, whose driver asks the permission broker: as the broker's one
    listener)."""

    def __init__(self, *args: Any, policy: Policy = "allow", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.policy = policy
        self.permission_answers: list[str] = []
        self.permissions.subscribe(self._answer_pending)

    def _chosen(self, options: list[PermissionOption]) -> PermissionOption | None:
        for kind in _WANTED.get(self.policy, ()):
            for option in options:
                if option.kind == kind:
                    self.permission_answers.append(f"{kind} {option.option_id}")
                    return option
        self.permission_answers.append("cancelled")
        return None

    async def request_permission(self, params: RequestPermissionRequest) -> dict[str, Any]:
        self.thread.upsert_tool_call(params.tool_call)
        option = self._chosen(params.options)
        if option is None:
            return {"outcome": {"outcome": "cancelled"}}
        return {"outcome": {"outcome": "selected", "optionId": option.option_id}}

    def _answer_pending(self, pending: PendingPermission) -> None:
        option = self._chosen(pending.options)
        if option is None:
            pending.cancel()
        else:
            pending.select(option.option_id)


_WANTED: dict[str, tuple[str, ...]] = {
    "allow": ("allow_once", "allow_always"),
    "reject": ("reject_once", "reject_always"),
}


@dataclass
class CheckReport:
    command: list[str]
    ok: bool = False
    error: str | None = None
    protocol_version: Any = None
    agent_info: dict[str, Any] = field(default_factory=dict)
    capabilities: dict[str, Any] = field(default_factory=dict)
    auth_methods: list[dict[str, Any]] = field(default_factory=list)
    modes: list[str] = field(default_factory=list)
    current_mode: str | None = None
    config_options: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    stop_reason: str | None = None
    permission_answers: list[str] = field(default_factory=list)
    frames: int = 0
    sandbox: list[str] = field(default_factory=list)
    """Which sandbox the agent ran in and what it allowed, a line each."""
    schema: str = ""
    """Which ACP schema the agent's frames fit (1.21, current stable, current unstable)."""
    marks: list[dict[str, Any]] = field(default_factory=list)
    mark_counts: dict[str, int] = field(default_factory=dict)
    stderr_tail: list[str] = field(default_factory=list)
    """The agent's last stderr lines, when a step ran out of time."""

    @property
    def violations(self) -> int:
        """How many protocol violations the check marked."""
        return len(self.marks)

    def to_json(self) -> str:
        """The report as indented JSON, with the violation count."""
        return json.dumps({**asdict(self), "violations": self.violations}, indent=2)


async def run_check(
    argv: Sequence[str],
    *,
    prompt: str | None = None,
    policy: Policy = "allow",
    auth: str | None = None,
    mode: str | None = None,
    limits: StepLimits | None = None,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    guard: ProcessGuard | None = None,
    say: Callable[[str], None] | None = None,
    sandbox: SandboxRequest | None = None,
    protocol: int = 1,
) -> CheckReport:
    """Run `acp-tui check`: start the agent, shake hands, open a session, optionally send one
    prompt, and report every frame that broke the protocol.

    Each step is bounded (`limits`) and told through `say` as it goes ("initialize… 1.2 s");
    the agent's processes are killed as a tree (those carrying `guard`'s marker) however the
    check ends; the command line also installs the guard (subreaper, watchdog) and closes it.
    """
    report = CheckReport(command=list(argv))
    clock = StepClock(limits or StepLimits(), say)
    guard = guard if guard is not None else ProcessGuard()
    with contextlib.ExitStack() as stack:
        if cwd is None:
            cwd = stack.enter_context(new_files.private_scratch("acp-check-"))
        ui = CheckUi(auth)
        settings = Settings(hold_writes=HoldWrites.NEVER, protocol_version=protocol)
        session = CheckSession(
            argv, cwd, ui, settings=settings, policy=policy, env_extra=dict(env or {}),
            guard=guard, sandbox=sandbox,
        )  # fmt: skip
        unsubscribe = session.traffic.subscribe(clock.on_traffic)
        try:
            await clock.bound(_drive(session, report, prompt, mode))
        except StepTimeout as timeout:
            clock.timed_out(timeout)
            report.error = str(timeout)
            process = session.connector.process
            report.stderr_tail = process.stderr_tail(STDERR_LINES) if process else []
        finally:
            unsubscribe()
            try:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(session.close(), CLOSE_SECONDS)
            finally:  # whatever of the agent's tree is left (by the marker it inherited)
                await asyncio.to_thread(kill_tree, marker=guard.marker, watched=None)
        _fill(report, session)
        if report.error is None and ui.auth_error:
            report.error = ui.auth_error
    report.ok = report.error is None and report.violations == 0
    return report


async def _drive(
    session: CheckSession, report: CheckReport, prompt: str | None, mode: str | None
) -> None:
    if not await session.start():
        crash = session.crash
        report.error = session.error or (
            f"{crash.description} during {crash.during}" if crash else "start failed"
        )
        return
    if mode is not None:
        problem = await session.set_mode(mode)
        if problem is not None:
            report.error = f"session/set_mode {mode!r}: {problem}"
            return
    if prompt is None:
        return
    done = asyncio.Event()
    unsubscribe = session.state_changed.subscribe(
        lambda state: done.set() if state is not SessionState.RUNNING else None
    )
    try:
        session.submit(prompt)
        await done.wait()
    finally:
        unsubscribe()
    report.stop_reason = session.thread.last_stop_reason
    if session.state is SessionState.CRASHED and session.crash is not None:
        report.error = f"{session.crash.description} during the prompt"


def _fill(report: CheckReport, session: CheckSession) -> None:
    store: TrafficStore = session.traffic_store
    if session.sandbox is not None:
        report.sandbox = session.sandbox.describe(Path.home())
        report.sandbox += [f"  refused: {hint}" for hint in session.refusals.said]
    else:
        report.sandbox = [f"sandbox: not set up: {session.sandbox_error}"]
    report.agent_info = to_wire(session.agent_info) if session.agent_info is not None else {}
    report.capabilities = to_wire(session.agent_capabilities)
    report.auth_methods = [
        {"id": m.id, "name": m.name, "type": m.type} for m in session.auth_methods
    ]
    thread = session.thread
    report.modes = [mode.id for mode in thread.modes]
    report.current_mode = thread.current_mode_id
    report.config_options = [_option_name(option) for option in thread.config_options]
    report.commands = [command.name for command in thread.commands]
    report.permission_answers = session.permission_answers
    report.frames = len(store)
    report.schema = store.schema_fit.describe()
    for frame in store.frames:
        if frame.kind == "request" and frame.direction == "out" and frame.latency is not None:
            name = frame.method or "?"
            if name == INITIALIZE and report.protocol_version is None:
                report.protocol_version = _protocol_version(store, frame.pair)
            report.timings_ms.setdefault(name, round(frame.latency * 1000, 1))
        for mark in frame.marks:
            report.marks.append(
                {"frame": frame.index, "method": frame.label, "kind": str(mark.kind),
                 "detail": mark.detail}
            )  # fmt: skip
    report.mark_counts = {str(kind): count for kind, count in store.mark_counts.items()}


def _option_name(option: Any) -> str:
    ident = getattr(option, "id", None)
    current = getattr(option, "current_value", None)
    return f"{ident}={current}" if current is not None else str(ident)


def _protocol_version(store: TrafficStore, index: int) -> Any:
    try:
        result = json.loads(store.frames[index].raw).get("result")
    except (ValueError, AttributeError):
        return None
    return result.get("protocolVersion") if isinstance(result, dict) else None


def format_report(report: CheckReport) -> str:
    """The report for people: one fact per line, marks last."""
    info = report.agent_info
    name = " ".join(str(info[k]) for k in ("name", "version") if info.get(k)) or "?"
    lines = [
        f"agent:            {name}",
        f"command:          {' '.join(report.command)}",
        f"protocol version: {report.protocol_version}",
        f"capabilities:     {json.dumps(report.capabilities, sort_keys=True)}",
        "auth methods:     "
        + (", ".join(f"{m['id']} ({m['type']})" for m in report.auth_methods) or "none"),
        f"modes:            {', '.join(report.modes) or 'none'}"
        + (f" (current {report.current_mode})" if report.current_mode else ""),
        f"config options:   {', '.join(report.config_options) or 'none'}",
        f"commands:         {', '.join(report.commands) or 'none'}",
        "timings:          "
        + (", ".join(f"{k} {v:g} ms" for k, v in report.timings_ms.items()) or "none"),
    ]
    if report.stop_reason is not None:
        lines.append(f"prompt:           stopped with {report.stop_reason}")
    if report.permission_answers:
        lines.append(f"permissions:      {', '.join(report.permission_answers)}")
    lines.append(f"frames:           {report.frames}")
    lines += report.sandbox
    if report.schema:
        lines.append(f"schema:           the frames fit {report.schema}")
    if report.error:
        lines.append(f"error:            {report.error}")
    if report.stderr_tail:
        lines.append("agent's stderr:")
        lines.extend(f"  {line}" for line in report.stderr_tail)
    if not report.marks:
        version = "v2 draft" if report.protocol_version == 2 else "v1 schema"
        lines.append(f"conformance:      nothing outside the current ACP {version}")
    else:
        counts = ", ".join(f"{count} {kind}" for kind, count in report.mark_counts.items())
        lines.append(f"conformance:      {report.violations} marks ({counts})")
        for mark in report.marks:
            lines.append(
                f"  frame {mark['frame']:>4} {mark['method']}: {mark['kind']}: {mark['detail']}"
            )
    return "\n".join(_printable(line) for line in lines)


def _printable(line: str) -> str:
    """Agent text on a terminal: control characters escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in line)
