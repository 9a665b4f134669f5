"""Command line: `acp-tui [options] [-- AGENT_CMD ARGS...]`. Imports the UI lazily."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from acp_tui import __version__
from acp_tui.agent_choice import (
    UsageError,
    check_agent_command,
    check_registry_agent,
    did_you_mean,
    install_agent,
    list_agents,
    more_preset,
    open_catalog,
    resolve_preset,
)
from acp_tui.launch_options import LaunchOptions, add_sandbox_writable, sandbox_writable
from acp_tui.pydantic_plugins import skip_pydantic_plugins

TYPE_CHECKING = False  # (not `typing`'s: `--help` and `--version` import no more than they need)
if TYPE_CHECKING:  # the presets are imported where used
    from acp_tui.presets import PresetTable
    from acp_tui.registry.catalog import Catalog

USAGE = "acp-tui [--cwd DIR] [--log FILE] [--demo] [NAME | -a NAME | -- AGENT_CMD [ARGS...]]"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `acp-tui` (the agent's command comes after `--`)."""
    parser = argparse.ArgumentParser(
        prog="acp-tui",
        usage=USAGE,
        description="A terminal client for the Agent Client Protocol (ACP).",
        epilog=(
            "examples:\n"
            "  acp-tui gemini            (a preset: built-in or [agents.NAME] in config.toml)\n"
            "  acp-tui -a gemini -- --debug   (a preset with extra agent arguments)\n"
            "  acp-tui -a gemini -a codex     (two sessions, one per agent: alt+1/alt+2)\n"
            "  acp-tui -- gemini --acp   (an agent command as is, no preset)\n"
            "  acp-tui --cwd ~/src/project -- claude-code-acp\n"
            "  acp-tui --demo            (a built-in scripted agent: no network, no key)"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"acp-tui {__version__}")
    parser.add_argument(
        "--cwd", metavar="DIR", help="the session's working directory (default: the current one)"
    )
    parser.add_argument("--log", metavar="FILE", help="append every JSON-RPC frame to FILE (JSONL)")
    parser.add_argument("--demo", action="store_true", help="run the built-in demo agent")
    parser.add_argument(
        "-a",
        "--agent",
        metavar="NAME",
        action="append",
        help="start the agent preset NAME (see --list-agents); repeated, one session each",
    )
    parser.add_argument(
        "--list-agents",
        action="store_true",
        help="list the agent presets and the registry's agents, and which are installed",
    )
    parser.add_argument(
        "--inspect", action="store_true", help="open the traffic inspector at start (f12 toggles)"
    )
    parser.add_argument(
        "--replay", metavar="FILE", help="show a session recorded with --log (no agent is started)"
    )
    parser.add_argument(
        "--replay-speed",
        type=float,
        default=1.0,
        metavar="X",
        help="replay at X times the recorded pace (0: as fast as possible)",
    )
    parser.add_argument(
        "--replay-paused", action="store_true", help="start the replay paused (f8 steps)"
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const="",
        metavar="ID",
        help="open session ID; without ID, pick one of this directory's sessions",
    )
    parser.add_argument(
        "--continue",
        dest="continue_last",
        action="store_true",
        help="reopen the workspace of this directory (each session it had, one tab each);"
        " with one session saved, continue the most recent session",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        help="the ACP version to offer: 1, or 2 (the v2 draft; a v1 agent still gets v1)",
    )
    parser.add_argument(
        "--sandbox",
        choices=("off", "project", "strict"),
        help="confine the agent and what it starts (Linux Landlock): off; project: writes only"
        " in the project, the temporary directory and the agent's own directories; strict: and"
        " the user's secrets unreadable (default: the `sandbox` setting, else project where"
        " the kernel offers Landlock)",
    )
    add_sandbox_writable(parser)
    return parser


def parse_args(
    argv: list[str], presets: PresetTable | None = None, opened: list[Catalog] | None = None
) -> LaunchOptions:
    """The options; `presets` is the agent table to use as is, else the user's catalog is read
    (the registry refreshed first when the agent named comes from it, or is not known yet) and
    appended to `opened` (for its notices)."""
    catalog: Catalog | None = None
    if "--" in argv:
        split = argv.index("--")
        own, agent_argv = argv[:split], argv[split + 1 :]
    else:
        own, agent_argv = argv, []
    args, extra = build_parser().parse_known_args(own)
    if presets is not None:
        table = presets
    else:
        catalog = open_catalog()
        if opened is not None:
            opened.append(catalog)
        table = catalog.table()
        first = args.agent[0] if args.agent else None
        named = first or (extra[0] if extra and not extra[0].startswith("-") else None)
        wanted = [named] if named is not None else []
        wanted += (args.agent or [])[1:]
        if args.list_agents or any(_wants_registry(name, table) for name in wanted):
            table = catalog.table(refresh=True)
    if args.list_agents:
        return LaunchOptions([], Path.cwd(), None, False, list_agents=True)
    names = list(args.agent or [])
    preset, agent_argv = resolve_preset(names[0] if names else None, extra, agent_argv, table)
    cwd = Path(os.path.expanduser(args.cwd)) if args.cwd else Path.cwd()
    if not cwd.is_dir():
        raise UsageError(f"--cwd {args.cwd!r} is not a directory")
    log_path = Path(args.log).expanduser().resolve() if args.log else None
    if args.replay:
        replay_path = Path(args.replay).expanduser()
        if not replay_path.is_file():
            raise UsageError(f"--replay {args.replay!r} is not a file")
        if args.demo or agent_argv:
            raise UsageError("--replay shows a recording: give no agent command and no --demo")
        if args.replay_speed < 0:
            raise UsageError("--replay-speed must be 0 (as fast as possible) or more")
        return LaunchOptions(
            [], cwd.resolve(), log_path, False, args.cwd is None, inspect=args.inspect,
            replay_path=replay_path, replay_speed=args.replay_speed,
            replay_paused=args.replay_paused,
        )  # fmt: skip
    if args.demo and agent_argv:
        raise UsageError("give either --demo or an agent command, not both")
    pick = not args.demo and not agent_argv  # the picker: the demo, and how to install the rest
    if preset is not None and preset.registry is not None:
        check_registry_agent(preset)
    elif not args.demo and not pick:
        try:
            check_agent_command(agent_argv[0], cwd)
        except UsageError as error:
            if preset is None:  # a program: a preset of that name knows how to install it
                preset = table.get(agent_argv[0])
                if preset is None:
                    word = agent_argv[0]
                    close = did_you_mean(word, table) if os.sep not in word else None
                    if close is None:
                        raise
                    raise UsageError(f"{error}; did you mean `acp-tui {close}`?") from None
            if preset.install is None:
                raise
            raise UsageError(f"{error}; install it with: {preset.install}") from None
    if args.resume is not None and args.continue_last:
        raise UsageError("give either --resume or --continue, not both")
    more = tuple(more_preset(name, table, cwd) for name in names[1:])
    return LaunchOptions(
        agent_argv,
        cwd.resolve(),
        log_path,
        args.demo,
        args.cwd is None,
        resume=args.resume,
        continue_last=args.continue_last,
        inspect=args.inspect,
        protocol=args.protocol,
        sandbox=args.sandbox,
        sandbox_writable=_sandbox_writable(args.sandbox_writable),
        preset=preset,
        pick_agent=pick,
        messages=(*table.messages, *(catalog.notices if catalog is not None else ())),
        more_presets=more,
    )


def _sandbox_writable(given: list[str]) -> tuple[Path, ...]:
    try:
        return sandbox_writable(given)
    except ValueError as error:
        raise UsageError(str(error)) from None


def _wants_registry(name: str, table: PresetTable) -> bool:
    """Refresh the registry before starting `name`: it comes from the registry (the newest
    version is wanted), or it is neither a known agent nor a program."""
    import shutil

    preset = table.get(name)
    if preset is not None:
        return preset.registry is not None
    return shutil.which(name) is None


def main(argv: list[str] | None = None) -> int:
    """The `acp-tui` command: parse the arguments, install a missing registry agent, then run the
    app (or `check`, or `--list-agents`); returns the exit code (2: a usage error).
    """
    skip_pydantic_plugins()  # (the models are built before the first frame: no plugin scan)
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["check"]:
        from acp_tui.check_cli import main as check_main

        return check_main(args[1:])
    opened: list[Catalog] = []
    try:
        options = parse_args(args, opened=opened)
    except UsageError as error:
        for notice in opened[0].notices if opened else ():
            print(f"acp-tui: {notice}", file=sys.stderr)
        print(f"acp-tui: {error}", file=sys.stderr)
        print(f"usage: {USAGE}", file=sys.stderr)
        return 2
    if options.list_agents:
        catalog = opened[0]
        print(list_agents(catalog.table(refresh=True)))
        for notice in catalog.notices:
            print(f"acp-tui: {notice}", file=sys.stderr)
        return 0
    failed = install_agent(options.preset)
    if failed is not None:
        print(f"acp-tui: {failed}", file=sys.stderr)
        return 2
    if options.pick_agent and not (sys.stdin.isatty() and sys.stdout.isatty()):
        print(
            "acp-tui: no agent given (and no terminal to pick one in); try `acp-tui NAME` "
            "(see --list-agents), `acp-tui -- AGENT_CMD` or `acp-tui --demo`",
            file=sys.stderr,
        )
        print(f"usage: {USAGE}", file=sys.stderr)
        return 2
    from acp_tui.ui import runtime  # standard library only

    runtime.setup()  # the process's policy (the switch interval), before the app's threads
    early = None
    if not options.pick_agent and options.replay_path is None:
        from acp_tui.ui.early_start import EarlyStart, demo_argv  # standard library only

        # the skeleton on screen before the launch module (asyncio, the prestart) is imported
        argv = demo_argv() if options.demo else options.agent_argv
        early = EarlyStart.begin(argv, options.agent_label)
    try:
        from acp_tui.ui.launch import run_app  # lazy: Textual is only imported to run the UI

        return run_app(options, early)
    except KeyboardInterrupt:  # ctrl+c before the app took the terminal: quit, no traceback
        return 130
    finally:
        if early is not None:
            early.end()
