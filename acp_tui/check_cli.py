"""`acp-tui check [options] -- AGENT_CMD ARGS...`: the non-interactive conformance run."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from acp_tui.launch_options import add_sandbox_writable, sandbox_writable

if TYPE_CHECKING:
    from acp_tui.client.check import CheckReport
    from acp_tui.host.process_guard import ProcessGuard
    from acp_tui.presets import Preset

USAGE = (
    "acp-tui check [--prompt TEXT] [--permission allow|reject|cancel] [--auth METHOD] "
    "[--mode ID] [--json] [--timeout SECONDS] [--prompt-timeout SECONDS] "
    "[--sandbox off|project|strict] [--sandbox-writable DIR] "
    "(-a NAME [-- ARGS...] | -- AGENT_CMD [ARGS...])"
)
STEP_SECONDS = 60.0
PROMPT_SECONDS = 300.0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `acp-tui check` (the agent's command comes after `--`)."""
    parser = argparse.ArgumentParser(
        prog="acp-tui check",
        usage=USAGE,
        description=(
            "Run an agent without a UI: initialize, session/new in a temporary directory, "
            "optionally one prompt; report what it announced, which ACP schema its frames fit "
            "and everything it sent outside the current ACP v1 schema (its unstable part "
            "included). Each step is printed on stderr as it goes, with its time, and "
            "bounded. Exit status 1 when there is anything, 2 when it did not run (or a step "
            "ran out of time), 128+N when stopped by signal N; the agent's processes are ended "
            "in every case."
        ),
    )
    parser.add_argument("--prompt", metavar="TEXT", help="send one prompt and wait for its end")
    parser.add_argument(
        "--permission",
        choices=("allow", "reject", "cancel"),
        default="allow",
        help="how permission requests are answered (default: allow)",
    )
    parser.add_argument("--auth", metavar="METHOD", help="the auth method id to use if asked")
    parser.add_argument("--mode", metavar="ID", help="switch to this session mode first")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--timeout",
        type=float,
        default=STEP_SECONDS,
        metavar="SECONDS",
        help=f"the bound on each step but the prompt: initialize, authenticate, session/new, "
        f"session/set_mode, and the time between two steps (default: {STEP_SECONDS:g})",
    )
    parser.add_argument(
        "--prompt-timeout",
        type=float,
        default=PROMPT_SECONDS,
        metavar="SECONDS",
        help=f"the bound on the prompt's turn (default: {PROMPT_SECONDS:g})",
    )
    parser.add_argument("--cwd", metavar="DIR", help="use DIR instead of a temporary directory")
    parser.add_argument(
        "--sandbox",
        choices=("off", "project", "strict"),
        help="the agent's sandbox (default: the `sandbox` setting, else project where the kernel"
        " offers Landlock); the report says which ran and what it allowed",
    )
    add_sandbox_writable(parser)
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        default=1,
        help="the ACP version to offer (2: the v2 draft; frames are judged by the version the "
        "agent answers)",
    )
    parser.add_argument(
        "-a",
        "--agent",
        metavar="NAME",
        help="check a preset or a registry agent (a registry binary is downloaded first)",
    )
    return parser


def main(argv: list[str]) -> int:
    """Run `acp-tui check ARGS -- AGENT...`: print the report (text or JSON); the exit code
    says whether the agent kept the protocol.
    """
    split = argv.index("--") if "--" in argv else len(argv)
    args = build_parser().parse_args(argv[:split])
    agent_argv = argv[split + 1 :]
    try:
        writable = sandbox_writable(args.sandbox_writable)
    except ValueError as error:
        print(f"acp-tui check: {error}", file=sys.stderr)
        return 2
    env: dict[str, str] = {}
    preset: Preset | None = None
    if args.agent is not None:
        resolved = _preset_argv(args.agent, agent_argv)
        if isinstance(resolved, str):
            print(f"acp-tui check: {resolved}", file=sys.stderr)
            return 2
        agent_argv, env, preset = resolved
    if not agent_argv:
        print(f"usage: {USAGE}", file=sys.stderr)
        return 2
    if os.sep in agent_argv[0] and not os.path.isabs(agent_argv[0]):
        # the agent runs in a temporary directory: a relative command is ours, not its
        agent_argv[0] = os.path.abspath(agent_argv[0])
    from acp_tui.client.check import format_report, run_check
    from acp_tui.client.check_steps import StepLimits
    from acp_tui.client.sandbox_setup import sandbox_request
    from acp_tui.config import load_settings
    from acp_tui.host.process_guard import ProcessGuard

    loaded = load_settings()  # (only the sandbox's: the rest of the check runs at defaults)
    sandbox = sandbox_request(
        loaded.settings, preset, agent_argv, asked=args.sandbox, writable=writable
    )
    progress = _Progress()
    guard = ProcessGuard()
    guard.install()  # subreaper + watchdog: nothing of the agent outlives the check, even kill -9
    check = run_check(
        agent_argv,
        prompt=args.prompt,
        policy=args.permission,
        auth=args.auth,
        mode=args.mode,
        limits=StepLimits(args.timeout, args.prompt_timeout),
        cwd=Path(args.cwd).resolve() if args.cwd else None,
        env=env,
        guard=guard,
        say=progress,
        sandbox=sandbox,
        protocol=args.protocol,
    )
    try:
        outcome = asyncio.run(_stoppable(check, guard))
    finally:
        guard.close()  # every process below the check or carrying its marker, then the watchdog
    if isinstance(outcome, signal.Signals):
        progress.end_line()
        print(
            f"acp-tui check: stopped by {outcome.name}; the agent's processes were ended",
            file=sys.stderr,
        )
        return 128 + outcome
    print(outcome.to_json() if args.json else format_report(outcome))
    if outcome.error is not None:
        return 2
    return 0 if outcome.ok else 1


class _Progress:
    """The steps as they go, on stderr (stdout is the report's)."""

    def __init__(self) -> None:
        self.mid_line = False

    def __call__(self, text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()
        self.mid_line = not text.endswith("\n")

    def end_line(self) -> None:
        """End a step's line left open ("session/new… ") before another message."""
        if self.mid_line:
            self("\n")


async def _stoppable(
    check: Coroutine[Any, Any, CheckReport], guard: ProcessGuard
) -> CheckReport | signal.Signals:
    """Run the check; SIGTERM, SIGINT or SIGHUP kill the agent's processes at once and stop it
    (the session still closes), returning the signal instead of the report."""
    loop = asyncio.get_running_loop()
    task = asyncio.ensure_future(check)
    stopped: list[signal.Signals] = []

    def stop(sig: signal.Signals) -> None:
        if not stopped:
            stopped.append(sig)
            guard.kill_everything()
            task.cancel()

    signals = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    for sig in signals:
        loop.add_signal_handler(sig, stop, sig)
    try:
        return await task
    except asyncio.CancelledError:
        if not stopped:
            raise
        return stopped[0]
    finally:
        for sig in signals:
            loop.remove_signal_handler(sig)


def _preset_argv(
    name: str, extra: list[str]
) -> tuple[list[str], dict[str, str], Preset | None] | str:
    """The argv and environment of the preset or registry agent `name` (installed first when it
    is a registry binary), or the one-line reason it cannot run."""
    from acp_tui.agent_choice import (
        UsageError,
        check_registry_agent,
        install_agent,
        open_catalog,
        resolve_preset,
    )

    catalog = open_catalog()
    table = catalog.table(refresh=True)
    for notice in catalog.notices:
        print(f"acp-tui check: {notice}", file=sys.stderr)
    try:
        preset, argv = resolve_preset(name, [], extra, table)
        if preset is not None and preset.registry is not None:
            check_registry_agent(preset)
    except UsageError as error:
        return str(error)
    failed = install_agent(preset)
    if failed is not None:
        return failed
    return argv, dict(preset.env) if preset is not None else {}, preset
