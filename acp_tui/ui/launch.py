"""Build the session from the command line and run the app."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from acp_tui.cli import LaunchOptions
from acp_tui.client.agent_session import AgentSession
from acp_tui.config import Settings, load_settings
from acp_tui.host.permission_rules import RulesStore
from acp_tui.host.process_guard import ProcessGuard
from acp_tui.ui.app import AcpApp
from acp_tui.ui.bridge import UiBridge


def demo_argv() -> list[str]:
    return [sys.executable, "-m", "acp_tui.demo.agent"]


def run_app(options: LaunchOptions) -> int:
    argv = options.agent_argv
    cwd = options.cwd
    if options.demo:
        argv = demo_argv()
        if options.cwd_defaulted:
            from acp_tui.demo.sample_project import create_sample_project

            cwd = Path(tempfile.mkdtemp(prefix="acp-tui-demo-"))
            create_sample_project(cwd)

    loaded = load_settings()
    rules = RulesStore(cwd)
    if options.replay_path is not None:
        return run_replay(options, loaded.settings)
    guard = ProcessGuard()
    guard.install()  # subreaper + watchdog: no process of ours outlives us, even after kill -9

    def factory(bridge: UiBridge) -> AgentSession:
        return AgentSession(
            argv,
            cwd,
            bridge,
            log_path=options.log_path,
            settings=loaded.settings,
            rules=rules,
            guard=guard,
        )

    app = AcpApp(
        factory,
        startup_messages=[*loaded.messages, *rules.messages],
        guard=guard,
        inspect=options.inspect,
    )
    try:
        code = app.run()
    finally:
        guard.close()
    if app.exit_message:
        print(f"acp-tui: {app.exit_message}", file=sys.stderr)
    return code if isinstance(code, int) else 0


def run_replay(options: LaunchOptions, settings: Settings) -> int:
    from acp_tui.client.replay import ReplayError, ReplaySession, load_log
    from acp_tui.ui.replay_app import ReplayApp

    assert options.replay_path is not None
    try:
        frames = load_log(options.replay_path)
    except ReplayError as error:
        print(f"acp-tui: {error}", file=sys.stderr)
        return 2

    def factory(bridge: UiBridge) -> AgentSession:
        return ReplaySession(
            frames,
            options.cwd,
            bridge,
            speed=options.replay_speed,
            paused=options.replay_paused,
            settings=settings,
        )

    app = ReplayApp(factory, inspect=options.inspect)
    code = app.run()
    return code if isinstance(code, int) else 0
