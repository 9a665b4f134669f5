"""Where a registry binary agent is once installed: `<cache>/agents/<id>/<version>/` and its
command inside. Apart from `install` (the download, over HTTP) so that naming an installed
binary (every registry preset of the cached index, `agents.registry_bases`) loads no network
machinery."""

from __future__ import annotations

from pathlib import Path

from acp_tui.registry.extract import UnsafeArchive, member_path
from acp_tui.safe_text import safe_line


class InstallError(Exception):
    """A download or an archive that failed; the message is one line."""


def install_dir(root: Path, agent_id: str, version: str) -> Path:
    return root / "agents" / agent_id / version


def command_path(directory: Path, cmd: str) -> Path:
    """`cmd` inside `directory`; raises `InstallError` when it would lead out of it."""
    try:
        relative = member_path(cmd)
    except UnsafeArchive:
        raise InstallError(f"the command {safe_line(cmd)!r} leads out of its directory") from None
    if not relative:
        raise InstallError("the registry gives no command to run")
    return directory / relative
