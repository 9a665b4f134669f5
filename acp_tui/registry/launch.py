"""`RegistryLaunch`: how a preset's command comes from the registry (npx, uvx, a binary); a
preset holds it as a `acp_tui.presets.RegistryStart` (presets import nothing of the registry),
`launch_of` gives it back typed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from acp_tui.presets import Preset
from acp_tui.registry.index import BinaryTarget

Kind = Literal["npx", "uvx", "binary", "none"]


@dataclass(frozen=True)
class RegistryLaunch:
    """How a preset's command comes from the registry."""

    agent_id: str
    version: str
    kind: Kind
    prefix: tuple[str, ...]
    """The command without the agent's arguments (`npx -y PKG`, the binary's path)."""
    binary: BinaryTarget | None = None
    root: Path | None = None
    """The registry cache (the binary goes to `<root>/agents/<id>/<version>/`)."""
    platform: str = ""
    builds: tuple[str, ...] = ()
    """The platforms the registry has builds for (for the message when this one has none)."""
    refused: str = ""
    """Why the registry's way cannot be used at all (a binary's `cmd` leading out of its install
    directory): never started, never "installed"."""


def launch_of(preset: Preset) -> RegistryLaunch | None:
    """How the registry starts the preset's agent (None: not the registry's way)."""
    launch = preset.registry
    return launch if isinstance(launch, RegistryLaunch) else None
