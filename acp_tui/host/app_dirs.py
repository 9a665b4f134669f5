"""acp-tui's own directories, as the XDG base directory spec places them: data
(`$XDG_DATA_HOME/acp-tui`: rules, sessions, workspaces, worktrees), cache
(`$XDG_CACHE_HOME/acp-tui`: the registry and its agents) and state (`$XDG_STATE_HOME/acp-tui`:
the internal error log).
An XDG variable counts only when it holds an absolute path (the spec's rule); else the default
under the home directory. Stdlib only."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

APP = "acp-tui"


def _base(variable: str, default: tuple[str, ...], environ: Mapping[str, str] | None) -> Path:
    env = os.environ if environ is None else environ
    value = env.get(variable, "")
    if value and os.path.isabs(value):
        return Path(value) / APP
    return Path(env.get("HOME") or Path.home()).joinpath(*default, APP)


def data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_DATA_HOME/acp-tui`, else `~/.local/share/acp-tui`."""
    return _base("XDG_DATA_HOME", (".local", "share"), environ)


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/acp-tui`, else `~/.cache/acp-tui`."""
    return _base("XDG_CACHE_HOME", (".cache",), environ)


def state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_STATE_HOME/acp-tui`, else `~/.local/state/acp-tui`."""
    return _base("XDG_STATE_HOME", (".local", "state"), environ)


WORKTREES = "worktrees"
"""The folder of the data directory that holds acp-tui's git worktrees: sessions work there, so
its files are the projects', not acp-tui's own."""
