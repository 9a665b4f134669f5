"""`acp-tui check [options] -- AGENT_CMD ARGS...`: the non-interactive conformance run."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

USAGE = (
    "acp-tui check [--prompt TEXT] [--permission allow|reject|cancel] [--auth METHOD] "
    "[--mode ID] [--json] [--timeout SECONDS] (-a NAME [-- ARGS...] | -- AGENT_CMD [ARGS...])"
)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `acp-tui check` (the agent's command comes after `--`)."""
    parser = argparse.ArgumentParser(
        prog="acp-tui check",
        usage=USAGE,
        description=(
            "Run an agent without a UI: initialize, session/new in a temporary directory, "
            "optionally one prompt; report what it announced, which ACP schema its frames fit "
            "and everything it sent outside the current ACP v1 schema (its unstable part "
            "included). Exit status 1 when there is anything, 2 when it did not run."
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
    parser.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS")
    parser.add_argument("--cwd", metavar="DIR", help="use DIR instead of a temporary directory")
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
    env: dict[str, str] = {}
    if args.agent is not None:
        resolved = _preset_argv(args.agent, agent_argv)
        if isinstance(resolved, str):
            print(f"acp-tui check: {resolved}", file=sys.stderr)
            return 2
        agent_argv, env = resolved
    if not agent_argv:
        print(f"usage: {USAGE}", file=sys.stderr)
        return 2
    if os.sep in agent_argv[0] and not os.path.isabs(agent_argv[0]):
        # the agent runs in a temporary directory: a relative command is ours, not its
        agent_argv[0] = os.path.abspath(agent_argv[0])
    from acp_tui.client.check import format_report, run_check

    report = asyncio.run(
        run_check(
            agent_argv,
            prompt=args.prompt,
            policy=args.permission,
            auth=args.auth,
            mode=args.mode,
            time_limit=args.timeout,
            cwd=Path(args.cwd).resolve() if args.cwd else None,
            protocol=args.protocol,
            env=env,
        )
    )
    print(report.to_json() if args.json else format_report(report))
    if report.error is not None:
        return 2
    return 0 if report.ok else 1


def _preset_argv(name: str, extra: list[str]) -> tuple[list[str], dict[str, str]] | str:
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
    return argv, dict(preset.env) if preset is not None else {}
