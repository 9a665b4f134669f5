"""Build the session from the command line and run the app.

The agent is spawned and sent `initialize` first (`acp_tui.client.prestart`, light imports
only); Textual, the settings and the protocol models load while the agent starts up, on the
same event loop the app then runs on.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import itertools
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.client.prestart import (
    Prestarted,
    QuickSandboxSettings,
    prestart,
    quick_agent_env,
)
from acp_tui.client.sandbox_setup import plan_session_sandbox, sandbox_request
from acp_tui.host import error_log
from acp_tui.host.gc_pauses import install_from_env as log_gc_pauses
from acp_tui.host.memory_snapshots import install_from_env as snapshot_memory
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.launch_options import LaunchOptions, with_preset
from acp_tui.sandbox.policy import SandboxError, SandboxPolicy
from acp_tui.ui import runtime
from acp_tui.ui.early_start import EarlyStart, demo_argv

if TYPE_CHECKING:
    from acp_tui.presets import Preset
    from acp_tui.registry.catalog import Catalog
    from acp_tui.ui.workspace.registry_agents import RegistryAgents

__all__ = ["demo_argv", "run_app"]


def run_app(options: LaunchOptions, early: EarlyStart | None = None) -> int:
    """Run the app for parsed command-line options (the demo agent and its sample project with
    `--demo`); returns the exit code. `early`: the skeleton already drawn (`cli.main`), else
    it is drawn here."""
    if options.pick_agent:
        from acp_tui.agent_choice import install_agent
        from acp_tui.registry.catalog import Catalog
        from acp_tui.ui.screens.agent_picker import DEMO, pick_agent

        picked = pick_agent(Catalog.open())
        if picked is None:
            return 0
        if picked == DEMO:  # as `acp-tui --demo`
            options = replace(options, demo=True, pick_agent=False)
        else:
            failed = install_agent(picked)  # a registry binary: downloaded now, progress shown
            if failed is not None:
                print(f"acp-tui: {failed}", file=sys.stderr)
                return 2
            options = with_preset(options, picked)
    argv = options.agent_argv
    cwd = options.cwd
    if options.demo:
        argv = demo_argv()
        if options.cwd_defaulted:
            from acp_tui.demo.sample_project import SAMPLE_FILES
            from acp_tui.host.new_files import private_tree

            cwd = private_tree("acp-tui-demo-", SAMPLE_FILES)
    if options.replay_path is not None:
        if early is not None:
            early.end()
        return run_replay(options)  # no agent: the recorded frames play instead
    # (the collector is off from here until `AcpApp.on_mount`: ~8% of the CPU to the first frame)
    start = early if early is not None else EarlyStart.begin(argv, options.agent_label)
    error_log.install()  # acp-tui's own errors: the state directory's errors.log, named when shown
    log_gc_pauses()  # (only when a benchmark asks, by the environment)
    snapshot_memory()  # (likewise)
    unbound = runtime.bound_full_collections()  # (no full collection walks a replay twice)
    guard = ProcessGuard()
    guard.install()  # subreaper + watchdog: no process of ours outlives us, even after kill -9
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    prestarted: Prestarted | None = None
    try:
        try:
            sandbox = quick_sandbox(options, argv, cwd)
        except SandboxError:
            pass  # no prestart: the session says why the sandbox cannot be set up
        else:
            prestarted = loop.run_until_complete(
                prestart(
                    argv,
                    str(cwd),
                    {**quick_agent_env(), **preset_env(options)},
                    marker_env=guard.child_env(),
                    protocol=options.protocol or 1,  # (a v2 offer from the settings: no prestart)
                    sandbox=sandbox,
                )
            )
        return _run(loop, options, argv, cwd, prestarted, guard, start)
    except KeyboardInterrupt:  # ctrl+c while the app loads: the early agent stopped first
        if prestarted is not None:
            with contextlib.suppress(Exception):
                loop.run_until_complete(prestarted.discard())
        raise
    finally:
        start.end()  # the collector on, nothing of the frame left if Textual never took over
        unbound()
        _close_loop(loop)
        guard.close()
        # (at the process's exit, not now: tests run the app in their own process)
        atexit.unregister(runtime.leave_garbage_to_exit)
        atexit.register(runtime.leave_garbage_to_exit)


def quick_sandbox(options: LaunchOptions, argv: list[str], cwd: Path) -> SandboxPolicy:
    """The sandbox the settings most likely ask for, for the prestarted agent (the session
    plans its own from the settings and compares). Raises SandboxError."""
    quick = QuickSandboxSettings.read()
    request = sandbox_request(
        quick, options.preset, argv, asked=options.sandbox, writable=options.sandbox_writable
    )
    from acp_tui.host.local_files import real_path

    environ = {**os.environ, **quick_agent_env(), **preset_env(options)}
    return plan_session_sandbox(request, real_path(cwd), quick, argv, environ=environ)


def _run(
    loop: asyncio.AbstractEventLoop,
    options: LaunchOptions,
    argv: list[str],
    cwd: Path,
    early: Prestarted | None,
    guard: ProcessGuard,
    start: EarlyStart,
) -> int:
    from acp_tui.client.session.agent_session import AgentSession
    from acp_tui.client.session.history import OpenRequest
    from acp_tui.config import load_settings
    from acp_tui.host.dir_watch import DirectoryWatchers
    from acp_tui.host.local_files import real_path
    from acp_tui.host.permission_rules import RulesStore
    from acp_tui.protocol.traffic import tab_log_path
    from acp_tui.ui.app import AcpApp
    from acp_tui.ui.screen_ui import ScreenUi
    from acp_tui.ui.workspace.spec import SessionSpec

    loaded = load_settings()
    if options.protocol is not None:
        loaded.settings = replace(loaded.settings, protocol_version=options.protocol)
    rules = RulesStore(cwd)
    watchers = DirectoryWatchers()  # one watcher per directory, for every session of the app

    preset = options.preset
    mcp_servers, mcp_problems = preset_mcp_servers(loaded.settings.mcp_servers, preset)

    def factory(bridge: ScreenUi) -> AgentSession:
        sandbox = sandbox_request(
            loaded.settings, preset, argv, asked=options.sandbox, writable=options.sandbox_writable
        )
        session = AgentSession(
            argv,
            cwd,
            bridge,
            log_path=options.log_path,
            mcp_servers=mcp_servers,
            env_extra=preset_env(options),
            settings=loaded.settings,
            rules=rules,
            guard=guard,
            prestarted=early,
            watchers=watchers,
            sandbox=sandbox,
            name=options.agent_label,
        )
        session.preferred_auth = preset.auth_method if preset is not None else None
        session.preset_name = preset.name if preset is not None else None
        if preset is not None and preset.system_prompt is not None:
            session.system_prompt = dict(preset.system_prompt)
        return session

    rules_by_dir = {real_path(cwd): rules}
    tab_numbers = itertools.count(2)  # the later tabs' `--log` files: log.tab2.jsonl, ...

    def spawn(bridge: ScreenUi, spec: SessionSpec) -> AgentSession:
        """A later tab's session: its own agent process, no prestart; the guard and the
        settings shared, the permission rules of its directory."""
        servers, _ = preset_mcp_servers(loaded.settings.mcp_servers, spec.preset)
        where = real_path(spec.cwd)
        store = rules_by_dir.setdefault(where, RulesStore(where))
        sandbox = sandbox_request(
            loaded.settings,
            spec.preset,
            spec.argv,
            asked=options.sandbox,
            writable=options.sandbox_writable,
        )
        log = options.log_path
        session = AgentSession(
            list(spec.argv),
            where,
            bridge,
            log_path=tab_log_path(log, next(tab_numbers)) if log is not None else None,
            log_base=log,
            mcp_servers=servers,
            env_extra=dict(spec.preset.env) if spec.preset is not None else {},
            settings=loaded.settings,
            rules=store,
            guard=guard,
            watchers=watchers,
            sandbox=sandbox,
            name=spec.name,
        )
        session.preferred_auth = spec.preset.auth_method if spec.preset is not None else None
        session.preset_name = spec.preset.name if spec.preset is not None else None
        session.announce_log = log is not None
        if spec.preset is not None and spec.preset.system_prompt is not None:
            session.system_prompt = dict(spec.preset.system_prompt)
        return session

    open_request = OpenRequest(
        resume_id=options.resume or None,
        continue_last=options.continue_last,
        pick=options.resume == "",
    )
    restore = None
    if options.continue_last:  # a saved workspace of several sessions: every one comes back
        from acp_tui.presets import load_presets
        from acp_tui.ui.workspace.restore import plan_restore

        restore = plan_restore(cwd, argv, load_presets().presets)
        if restore is not None and restore.first is not None:
            open_request = OpenRequest(resume_id=restore.first)
    runtime.read_terminal_keys()  # alt+N from a real terminal (tmux: ESC N) reaches the bindings
    app = AcpApp(
        factory,
        startup_messages=[*loaded.messages, *options.messages, *mcp_problems, *rules.messages],
        preset=preset,
        guard=guard,
        inspect=options.inspect,
        open_request=open_request,
        spawn=spawn,
        presets=workspace_presets,  # (read when ctrl+t first opens: not before ready)
        registry=registry_agents(),
        more=tuple(SessionSpec(p.command, cwd, p, env=dict(p.env)) for p in options.more_presets),
        workspace_dir=cwd,
        restore=restore,
    )
    app.early_prompt = start.take()  # last thing before Textual takes the terminal
    code = app.run(loop=loop)
    if early is not None and not early.initialize.done():
        loop.run_until_complete(early.discard())  # the app ended before the session took it
    if app.exit_message:
        print(f"acp-tui: {app.exit_message}", file=sys.stderr)
    return code if isinstance(code, int) else 0


def workspace_presets() -> tuple[Preset, ...]:
    """The agent presets the new-session picker offers: those that can start here."""
    from acp_tui.presets import load_presets

    table = load_presets()
    return tuple(p for p in table.presets.values() if p.registry is None and p.installed())


def registry_agents() -> RegistryAgents:
    """The ACP registry's agents for the new-session picker (its catalog opened, and read, when
    the picker first asks)."""
    from acp_tui.ui.workspace.registry_agents import RegistryAgents

    def open_catalog() -> Catalog:
        from acp_tui.registry.catalog import Catalog

        return Catalog.open()

    return RegistryAgents(open_catalog)


def preset_env(options: LaunchOptions) -> dict[str, str]:
    return dict(options.preset.env) if options.preset is not None else {}


def preset_mcp_servers(
    global_servers: list[dict[str, Any]], preset: Preset | None
) -> tuple[list[dict[str, Any]], list[str]]:
    """The settings' `[[mcp_servers]]` and the preset's as one list (the preset's win by name),
    and the problems with the settings' entries."""
    from acp_tui.mcp_servers import merged, normalize_servers

    servers, problems = normalize_servers(global_servers)
    problems = [f"mcp_servers: {problem}" for problem in problems]
    return merged(servers, preset.mcp_servers if preset is not None else ()), problems


def run_replay(options: LaunchOptions) -> int:
    """Run `--replay FILE`: the app fed from a `--log` recording, with no agent started; returns the
    exit code."""
    from acp_tui.client.replay import ReplayError, ReplaySession, load_log
    from acp_tui.client.session.agent_session import AgentSession
    from acp_tui.config import load_settings
    from acp_tui.ui.replay_app import ReplayApp
    from acp_tui.ui.screen_ui import ScreenUi

    assert options.replay_path is not None
    settings = load_settings().settings
    notes: list[str] = []
    try:
        frames = load_log(
            options.replay_path, max_frame_bytes=settings.max_frame_bytes, problems=notes
        )
    except ReplayError as error:
        print(f"acp-tui: {error}", file=sys.stderr)
        return 2

    def factory(bridge: ScreenUi) -> AgentSession:
        return ReplaySession(
            frames,
            options.cwd,
            bridge,
            speed=options.replay_speed,
            paused=options.replay_paused,
            notes=notes,
            settings=settings,
        )

    app = ReplayApp(factory, inspect=options.inspect)
    code = app.run()
    return code if isinstance(code, int) else 0


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    try:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.wait(pending, timeout=2))
        loop.run_until_complete(loop.shutdown_asyncgens())
    finally:
        asyncio.set_event_loop(None)
        loop.close()
