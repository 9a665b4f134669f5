"""Command line: `acp-tui [options] [-- AGENT_CMD ARGS...]`. Imports the UI lazily."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

from acp_tui import __version__

USAGE = "acp-tui [--cwd DIR] [--log FILE] [--demo] -- AGENT_CMD [ARGS...]"


@dataclass(frozen=True)
class LaunchOptions:
    agent_argv: list[str]
    cwd: Path
    log_path: Path | None
    demo: bool
    cwd_defaulted: bool = False
    inspect: bool = False
    replay_path: Path | None = None
    replay_speed: float = 1.0
    replay_paused: bool = False
    resume: str | None = None
    """`--resume ID` (an id) or `--resume` alone ("": pick from the list)."""
    continue_last: bool = False
    protocol: int | None = None
    """`--protocol N`: the ACP version to offer (overrides the `protocol_version` setting)."""


class UsageError(Exception):
    """A one-line problem with the command line, with a hint."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-tui",
        usage=USAGE,
        description="A terminal client for the Agent Client Protocol (ACP).",
        epilog=(
            "examples:\n"
            "  acp-tui -- gemini --acp\n"
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
        help="continue the most recent session of this directory",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        help="the ACP version to offer: 1, or 2 (the v2 draft; a v1 agent still gets v1)",
    )
    return parser


def parse_args(argv: list[str]) -> LaunchOptions:
    if "--" in argv:
        split = argv.index("--")
        own, agent_argv = argv[:split], argv[split + 1 :]
    else:
        own, agent_argv = argv, []
    args, extra = build_parser().parse_known_args(own)
    if extra:
        # `acp-tui gemini --acp` without `--`: accept it when the first word is not an option.
        if extra[0].startswith("-"):
            raise UsageError(f"unknown option {extra[0]!r} (agent arguments go after `--`)")
        agent_argv = extra + agent_argv
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
    if not args.demo and not agent_argv:
        raise UsageError(
            "no agent command given; try `acp-tui -- gemini --acp` or `acp-tui --demo`"
        )
    if not args.demo:
        check_agent_command(agent_argv[0], cwd)
    if args.resume is not None and args.continue_last:
        raise UsageError("give either --resume or --continue, not both")
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
    )


def check_agent_command(command: str, cwd: Path) -> None:
    """Fail early, in one line, for a command that cannot possibly start."""
    if os.sep in command:
        path = Path(command) if Path(command).is_absolute() else cwd / command
        if not path.exists():
            raise UsageError(f"agent command not found: {command!r}")
        if path.is_dir():
            raise UsageError(f"agent command is a directory: {command!r}")
        if not os.access(path, os.X_OK):
            raise UsageError(f"agent command is not executable: {command!r} (try chmod +x)")
        return
    if shutil.which(command) is None:
        raise UsageError(
            f"agent command not found: {command!r} (is it installed and on your PATH?)"
        )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["check"]:
        from acp_tui.check_cli import main as check_main

        return check_main(args[1:])
    try:
        options = parse_args(args)
    except UsageError as error:
        print(f"acp-tui: {error}", file=sys.stderr)
        print(f"usage: {USAGE}", file=sys.stderr)
        return 2
    from acp_tui.ui.launch import run_app  # lazy: Textual is only imported to run the UI

    return run_app(options)
