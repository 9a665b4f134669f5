"""Which agent to start, from the words of a command line: a preset, a registry agent or a
command, each checked in one line before anything starts (`UsageError`), and a registry binary
installed first. Shared by `acp-tui` (`cli.py`), `acp-tui check -a` (`check_cli.py`) and the
agent picker's choice (`ui/launch.py`); it imports none of them. Stdlib only at import time."""

from __future__ import annotations

import os
from pathlib import Path

TYPE_CHECKING = False  # (not `typing`'s: `--help` and `--version` import no more than they need)
if TYPE_CHECKING:  # the presets are imported where used
    from acp_tui.presets import Preset, PresetTable
    from acp_tui.registry.catalog import Catalog


class UsageError(Exception):
    """A one-line problem with the command line, with a hint."""


def more_preset(name: str, table: PresetTable, cwd: Path) -> Preset:
    """A preset named by a second (third, …) `-a`: known, and startable here."""
    preset = table.get(name)
    if preset is None:
        raise UsageError(unknown_preset(name, table))
    if preset.registry is not None:
        check_registry_agent(preset)
    else:
        try:
            check_agent_command(preset.command[0], cwd)
        except UsageError as error:
            if preset.install is None:
                raise
            raise UsageError(f"{error}; install it with: {preset.install}") from None
    return preset


def check_registry_agent(preset: Preset) -> None:
    """A registry agent that cannot start here (its tool missing, no build) in one line."""
    from acp_tui.registry.agents import not_startable

    why = not_startable(preset)
    if why is not None:
        raise UsageError(why)


def resolve_preset(
    name: str | None, extra: list[str], agent_argv: list[str], table: PresetTable
) -> tuple[Preset | None, list[str]]:
    """The preset asked for and the agent's argv.

    `-a NAME` or a bare first word that names a preset starts that preset (a preset wins over
    a program of the same name: `acp-tui gemini` is the preset; `acp-tui -- gemini` runs the
    program as is). Arguments after `--` are added to the preset's command. Words after a
    preset's name without `--` are accepted only when the preset's command has them already
    (`acp-tui gemini --acp` still works). Otherwise the words are the agent command itself.
    """
    bare = table.get(extra[0]) if name is None and extra and not extra[0].startswith("-") else None
    if bare is not None:
        name, extra, preset = extra[0], extra[1:], bare
        unknown = [arg for arg in extra if arg not in preset.command[1:]]
        if unknown:
            raise UsageError(
                f"{name!r} is an agent preset: give its extra arguments after `--` "
                f"(`acp-tui {name} -- {' '.join(unknown)}`), or run a program of that name "
                f"with `acp-tui -- {name} ...`"
            )
        return preset, [*preset.command, *agent_argv]
    if name is not None:
        named = table.get(name)
        if named is None:
            raise UsageError(unknown_preset(name, table))
        if extra:
            raise UsageError(f"unexpected {extra[0]!r} (agent arguments go after `--`)")
        return named, [*named.command, *agent_argv]
    if extra:
        # `acp-tui my-agent --acp` without `--`: accept it when the first word is not an option.
        if extra[0].startswith("-"):
            raise UsageError(f"unknown option {extra[0]!r} (agent arguments go after `--`)")
        return None, extra + agent_argv
    return None, agent_argv


def unknown_preset(name: str, table: PresetTable) -> str:
    """The one line for a preset name nobody knows: the closest name, and every name."""
    known = ", ".join(sorted(table.presets))
    close = did_you_mean(name, table)
    hint = f"; did you mean {close!r}?" if close is not None else ""
    return f"no agent preset {name!r}{hint} (known: {known})"


def did_you_mean(word: str, table: PresetTable) -> str | None:
    """The agent name closest to `word` (a typo: `gemnii` → `gemini`), if one is close."""
    import difflib

    close = difflib.get_close_matches(word, table.names(), n=1, cutoff=0.75)
    if not close:
        return None
    preset = table.get(close[0])
    return preset.name if preset is not None else close[0]


def open_catalog() -> Catalog:
    from acp_tui.registry.catalog import Catalog

    return Catalog.open()


def list_agents(table: PresetTable) -> str:
    from acp_tui.registry.catalog import list_agents as lines

    return lines(table)


def install_agent(preset: Preset | None) -> str | None:
    """Download a registry binary agent not installed yet (progress on stderr); the one-line
    error when that failed, else None."""
    if preset is None or preset.registry is None or preset.registry.kind != "binary":
        return None
    from acp_tui.registry.agents import ensure_installed
    from acp_tui.registry.installed import InstallError
    from acp_tui.registry.progress import StderrProgress

    progress = StderrProgress(f"{preset.name} {preset.registry.version}")
    try:
        ensure_installed(preset, progress)
    except InstallError as error:
        progress.finish()
        return f"cannot install {preset.name} {preset.registry.version}: {error}"
    except KeyboardInterrupt:
        progress.finish()
        return f"the download of {preset.name} {preset.registry.version} was interrupted"
    progress.finish()
    return None


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
    import shutil

    if shutil.which(command) is None:
        raise UsageError(
            f"agent command not found: {command!r} (is it installed and on your PATH?)"
        )
