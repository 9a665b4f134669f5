"""Command line: `acp-tui [options] [-- AGENT_CMD ARGS...]`. Imports the UI lazily."""

from __future__ import annotations

import argparse
import sys

from acp_tui import __version__


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="acp-tui",
        description="A terminal client for the Agent Client Protocol.",
        epilog="example: acp-tui -- gemini --acp",
    )
    parser.add_argument("--version", action="version", version=f"acp-tui {__version__}")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    build_parser().parse_args(args)
    return 0
