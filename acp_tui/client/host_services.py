"""The host services one session answers the agent with, wired to each other and its thread:
permissions (shown on their tool calls), the write gate (held writes, reports), the file
system host, terminals, change tracking, elicitations."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from acp_tui.client.change_tracking import ChangeTracking
from acp_tui.client.elicitation import ElicitationBroker
from acp_tui.client.permission_state import show_permissions_in
from acp_tui.client.ui_port import ClientUi
from acp_tui.client.write_review import WriteReviewGate
from acp_tui.config import Settings
from acp_tui.host.dir_watch import DirectoryWatchers
from acp_tui.host.filesystem import FileSystemHost
from acp_tui.host.permission_rules import RulesStore
from acp_tui.host.permission_subject import named_paths
from acp_tui.host.permissions import PermissionBroker
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.host.terminals import TerminalHost
from acp_tui.sandbox.policy import SandboxPolicy
from acp_tui.tasks import Supervisor
from acp_tui.thread.thread import Thread


@dataclass(frozen=True)
class HostServices:
    permissions: PermissionBroker
    write_gate: WriteReviewGate
    fs: FileSystemHost
    terminals: TerminalHost
    changes: ChangeTracking
    elicitations: ElicitationBroker


def host_services(
    thread: Thread,
    cwd: Path,
    ui: ClientUi,
    settings: Settings,
    *,
    rules: RulesStore | None,
    guard: ProcessGuard,
    tasks: Supervisor,
    watchers: DirectoryWatchers,
    name: Callable[[], str],
    notice: Callable[[str], None] | None = None,
    sandbox: SandboxPolicy | None = None,
) -> HostServices:
    """The services of a session in `cwd` (resolved), reporting to `thread`; `watchers`: the
    process's directory watchers (one per directory, shared by every session there); `name`:
    the session's, for the other sessions in its directory; `notice`: a warning for the user
    (watching the directory is incomplete); `sandbox`: the agent's, its terminals run in it."""
    permissions = PermissionBroker(
        rules,
        policy=settings.permission_policy,
        tool_call_lookup=lambda tool_call_id: thread.tool_calls.get(tool_call_id),
        root=cwd,
    )
    show_permissions_in(thread, permissions)
    write_gate = WriteReviewGate(
        ui.review_write,
        hold_writes=settings.hold_writes,
        cwd=cwd,
        known_tool_call_paths=lambda tool_call_id: named_paths(thread.tool_calls.get(tool_call_id)),
    )
    fs = FileSystemHost(
        cwd,
        ui.asker,
        extra_roots=settings.extra_allowed_roots,
        max_read_bytes=settings.max_read_bytes,
        write_gate=write_gate,
    )
    write_gate.track(permissions)

    def check_terminal_cwd(path: Path) -> Awaitable[Path]:
        """A terminal's cwd outside the session directory asks, like a file access would."""
        return fs.policy.check(path, "run")

    terminals = TerminalHost(
        cwd, cwd_check=check_terminal_cwd, guard=guard, tasks=tasks, sandbox=sandbox
    )
    changes = ChangeTracking(
        thread,
        cwd,
        fs.changes,
        watch=settings.watch_changes,
        reverts=fs.reverts,
        tasks=tasks,
        own_files=fs.own_files,
        on_observed=fs.agent_changed,
        watchers=watchers,
        name=name,
        on_notice=notice,
    )
    return HostServices(permissions, write_gate, fs, terminals, changes, ElicitationBroker())
