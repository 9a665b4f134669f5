"""A short name for an agent command (`gemini`, or the script an interpreter runs)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

_INTERPRETER = re.compile(
    r"(python|pypy|node|nodejs|npx|pnpx|bun|bunx|deno|tsx|ts-node|uv|uvx|pipx|sh|bash|zsh|ruby|perl)"
    r"[\d.]*(\.exe)?"
)
# Words between an interpreter and what it runs: `uv run`, `uv tool run`, `deno run`, `bun x`.
_SUBCOMMANDS = frozenset({"run", "x", "exec", "tool", "dlx"})
# Options of those interpreters that take a value (the value is not the script).
_VALUED_OPTIONS = frozenset({"--from", "--with", "-p", "--package", "--python", "--import"})


def command_name(argv: Sequence[str]) -> str:
    """A short name for an agent command: `gemini`, or the script or package an interpreter
    runs (`tsx agent.ts` → agent, `npx @scope/pkg@1` → pkg, `python -m pkg.main` → pkg.main)."""
    if not argv:
        return "agent"
    name = Path(argv[0]).name
    if not _INTERPRETER.fullmatch(name):
        return name
    args = iter(argv[1:])
    for arg in args:
        if arg == "-m":
            module = next(args, None)
            return module or name
        if arg in _VALUED_OPTIONS:
            next(args, None)
        elif arg.startswith("-") or arg in _SUBCOMMANDS:
            continue
        else:
            return _script_name(arg)
    return name


def _script_name(arg: str) -> str:
    if arg.startswith("@") or ("/" not in arg and ("@" in arg or "." not in arg)):
        package = arg.rsplit("/", 1)[-1]  # @scope/pkg
        return package.split("@", 1)[0] or arg  # pkg@1.2.3
    path = Path(arg)
    return path.stem if path.suffix else path.name
