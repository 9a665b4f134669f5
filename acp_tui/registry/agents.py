"""Registry entries as agent presets, and what starting one needs.

An entry becomes a `Preset` whose command is the registry's: `npx -y PACKAGE ARGS`,
`uvx PACKAGE ARGS`, or the platform's binary `cmd ARGS` inside its install directory (downloaded
on first start). Which one: this platform's binary, else a package whose tool is on PATH, else
the first package (its tool missing is then said, with how to get it).

Overlay rules: a built-in preset with the entry's id (its own name, or the registry id it names:
`codex` is `codex-acp`) overlays it key by key, under the built-in's name (its title, install
hint and env win); its command wins when its program is installed (or when the registry's way
cannot start here either), else the registry's way of starting the agent is used.
`[agents.ID]` in the config overlays the result, key by key (`acp_tui.presets.load_presets`);
a `command` there replaces the registry's.
"""

from __future__ import annotations

import functools
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from acp_tui.presets import BUILTIN_PRESETS, Preset
from acp_tui.registry.index import RegistryAgent, RegistryIndex
from acp_tui.registry.installed import InstallError, command_path
from acp_tui.registry.installed import install_dir as _install_dir
from acp_tui.registry.launch import RegistryLaunch, launch_of

if TYPE_CHECKING:  # (the download is imported when one runs)
    from acp_tui.registry.install import DownloadControl, Progress

Which = Callable[[str], str | None]
"""Where a program is on PATH (`shutil.which`)."""

TOOL_HELP = {
    "npx": "install Node.js (it comes with npx): https://nodejs.org/",
    "uvx": "install uv (it comes with uvx): https://docs.astral.sh/uv/",
}


def registry_preset(
    agent: RegistryAgent, root: Path, platform: str, which: Which = shutil.which
) -> Preset:
    """The entry as a preset for this platform (see the module's doc for which distribution);
    `which` finds a tool on PATH."""
    launch, args, env = _launch(agent, root, platform, which)
    return Preset(
        agent.id, (*launch.prefix, *args), agent.name, env=env,
        install=TOOL_HELP.get(launch.kind), version=agent.version,
        description=agent.description, registry=launch,
    )  # fmt: skip


def _launch(
    agent: RegistryAgent, root: Path, platform: str, which: Which
) -> tuple[RegistryLaunch, tuple[str, ...], dict[str, str]]:
    base = RegistryLaunch(agent.id, agent.version, "none", (), platform=platform,
                          builds=tuple(sorted(agent.binaries)))  # fmt: skip
    target = agent.binaries.get(platform)
    if target is not None:
        directory = _install_dir(root, agent.id, agent.version)
        try:
            program = str(command_path(directory, target.cmd))
        except InstallError as error:
            # never the registry's `cmd` as given (`/bin/sh`, `../../bin/sh`): nothing to run
            why = f"{agent.name}: {error}; the registry's command is refused"
            refused = (f"({agent.id}: its command leads out of its install directory)",)
            return replace(base, prefix=refused, refused=why), (), {}
        launch = replace(base, kind="binary", prefix=(program,), binary=target, root=root)
        return launch, target.args, dict(target.env)
    if agent.packages:
        package = next((p for p in agent.packages if which(p.tool)), agent.packages[0])
        prefix = (
            ("npx", "-y", package.package) if package.tool == "npx" else ("uvx", package.package)
        )
        return replace(base, kind=package.tool, prefix=prefix), package.args, dict(package.env)
    return replace(base, prefix=(f"({agent.id}: no build for {platform})",)), (), {}


def overlay(entry: Preset, builtin: Preset) -> Preset:
    """A built-in preset over the registry's entry of the same id: the built-in's command when
    its program is installed, or when the registry's way cannot start here either (its install
    hint is then the useful one); else the registry's."""
    own = builtin.installed() or not startable(entry)
    return replace(
        entry,
        name=builtin.name,
        registry_id=builtin.registry_id,
        command=builtin.command if own else entry.command,
        title=builtin.title or entry.title,
        env={**entry.env, **builtin.env},
        install=builtin.install if own else entry.install,
        builtin=True,
        registry=None if own else entry.registry,
    )


def registry_bases(index: RegistryIndex | None, root: Path, platform: str) -> dict[str, Preset]:
    """Every registry agent as a preset, the built-in of its id overlaid (keyed by the
    built-in's name: one agent, one entry)."""
    if index is None:
        return {}
    builtins = {p.registry_id or p.name: p for p in BUILTIN_PRESETS}
    bases: dict[str, Preset] = {}
    which = functools.cache(shutil.which)  # (npx and uvx, looked for once, not per agent)
    for agent in index.agents:
        entry = registry_preset(agent, root, platform, which)
        builtin = builtins.get(agent.id)
        preset = overlay(entry, builtin) if builtin is not None else entry
        bases[preset.name] = preset
    return bases


def startable(preset: Preset) -> bool:
    """It can be started now: installed, or a binary the registry has for this platform."""
    launch = launch_of(preset)
    if launch is not None and launch.refused:
        return False
    return preset.installed() or (launch is not None and launch.kind == "binary")


def status(preset: Preset) -> str:
    """`installed`, `npx`/`uvx` (the tool is there; it fetches the package itself), `download`
    (a registry binary fetched on first start), `missing` or `refused` (its `cmd` leads out)."""
    launch = launch_of(preset)
    if launch is not None and launch.refused:
        return "refused"
    if preset.installed():
        return launch.kind if launch is not None and launch.kind in TOOL_HELP else "installed"
    return "download" if startable(preset) else "missing"


def not_startable(preset: Preset) -> str | None:
    """Why a registry preset cannot start here (its tool missing, no build), else None."""
    launch = launch_of(preset)
    if launch is not None and launch.refused:
        return launch.refused
    if launch is None or startable(preset):
        return None
    if launch.kind in TOOL_HELP:
        return (
            f"{preset.name} is started with {launch.kind}, which is not on PATH: "
            f"{TOOL_HELP[launch.kind]}"
        )
    builds = ", ".join(launch.builds) or "none"
    return f"{preset.name} has no build for {launch.platform} in the registry (builds: {builds})"


def ensure_installed(
    preset: Preset, progress: Progress | None = None, control: DownloadControl | None = None
) -> None:
    """Download and unpack a registry binary preset that is not installed yet; raises
    `InstallError` (one line) when that fails. `control` lets the caller abandon it."""
    from acp_tui.registry.install import install_binary

    launch = launch_of(preset)
    if launch is not None and launch.refused:
        raise InstallError(launch.refused)
    if launch is None or launch.kind != "binary" or preset.installed():
        return
    assert launch.binary is not None and launch.root is not None
    install_binary(
        launch.root, launch.agent_id, launch.version, launch.binary, progress, control=control
    )
    if not preset.installed():
        raise InstallError(f"{launch.binary.cmd!r} is not an executable file in the archive")
