"""The rule for an agent's own directories when nothing more exact names them, and the secrets.

Every agent may write `~/.<id>` and its XDG config, data, state and cache directories (`<id>`:
the preset's name, else the program's); an agent started through a package runner needs that
runner's cache (npx: `~/.npm`; uvx: uv's cache and tool directories; …).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

DEFAULT_SECRETS = (".ssh", ".gnupg", ".aws", ".config/gh", ".netrc", ".docker")
"""Below the home directory: what `strict` keeps unreadable (the settings add more)."""


RUNNERS = frozenset({"npx", "npm", "pnpm", "pnpx", "bunx", "bun", "yarn", "uvx", "uv", "pipx"})
LAUNCHERS = RUNNERS | {"node", "python", "python3", "sh", "bash", "env", "deno"}
"""Programs that start an agent rather than being one: their name is not the agent's."""


def xdg_dir(environ: Mapping[str, str], variable: str, home: Path, default: str) -> Path:
    """An XDG base directory: the variable when it is an absolute path, else `home/default`."""
    value = environ.get(variable, "")
    return Path(value) if value and os.path.isabs(value) else home / default


def program_id(argv: Sequence[str]) -> str:
    """The agent's name as its command says it: the program's without directory and extension
    (`/usr/bin/gemini` → gemini); for a launcher, what it launches (`python -m kimi_cli` →
    kimi_cli, `node dist/agent.js` → agent, `npx @scope/pkg@1` → pkg); "" if none."""
    words = list(argv)
    while words:
        name = _bare(words[0])
        if name not in LAUNCHERS:
            return name
        rest = words[1:]
        if name in ("uv", "npm", "pnpm", "yarn", "bun") and rest and not rest[0].startswith("-"):
            rest = rest[1:]  # `uv run X`, `npm exec X`: the verb
        if rest[:1] == ["-m"] and len(rest) > 1:
            return rest[1].split(".", 1)[0]
        words = [word for word in rest if not word.startswith("-")]
    return ""


def _bare(word: str) -> str:
    name = word.rsplit("/", 1)[-1]
    if "@" in name[1:]:
        name = name[: name.index("@", 1)]  # a package's version
    name = name.lstrip("@")
    return name.split(".", 1)[0] if not name.startswith(".") else name


def default_state_dirs(
    agent_id: str, argv: Sequence[str], home: Path, environ: Mapping[str, str]
) -> list[Path]:
    """The directories the rule gives an agent (existing or not: the caller checks)."""
    found: list[Path] = []
    ids = [agent_id] if agent_id else []
    program = program_id(argv)
    if program and program not in ids:
        ids.append(program)
    runner = _bare(argv[0]) if argv else ""
    config = xdg_dir(environ, "XDG_CONFIG_HOME", home, ".config")
    data = xdg_dir(environ, "XDG_DATA_HOME", home, ".local/share")
    state = xdg_dir(environ, "XDG_STATE_HOME", home, ".local/state")
    cache = xdg_dir(environ, "XDG_CACHE_HOME", home, ".cache")
    for name in ids:
        if not name or name in (".", "..") or "/" in name:
            continue
        found += [home / f".{name}", config / name, data / name, state / name, cache / name]
    found += _runner_dirs(runner, home, environ, cache, data)
    return found


def _runner_dirs(
    runner: str, home: Path, environ: Mapping[str, str], cache: Path, data: Path
) -> list[Path]:
    """What a package runner writes when it starts an agent."""
    if runner in ("npx", "npm", "pnpm", "pnpx", "bunx", "bun", "yarn"):
        npm_cache = environ.get("npm_config_cache") or environ.get("NPM_CONFIG_CACHE")
        return [
            Path(npm_cache) if npm_cache else home / ".npm",
            cache / "pnpm",
            data / "pnpm",
            home / ".bun",
            cache / "yarn",
        ]
    if runner in ("uvx", "uv"):
        uv_cache = environ.get("UV_CACHE_DIR")
        return [Path(uv_cache) if uv_cache else cache / "uv", data / "uv"]
    if runner == "pipx":
        return [data / "pipx", cache / "pipx", home / ".local/pipx"]
    return []
